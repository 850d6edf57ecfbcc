// numpy.histogram's uniform bins (binning.hpp): numpy 2's _get_outer_edges, _get_bin_edges and
// np.linspace, step by step in the dtypes numpy uses, so that every backend bins exactly as numpy.
#include "jetfuse/detail/binning.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "jetfuse/errors.hpp"

namespace jf::detail {
namespace {

// Python's repr of a float (and numpy's str of a float32 scalar, T = float): the shortest
// round-trip digits, positional for exponents -4 <= e < 16, else scientific as "1e-05".
template <class T> std::string python_repr(T x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // [-]d[.ddd]e[+-]xx
  const std::size_t epos = sci.find('e');
  const int exp = std::stoi(sci.substr(epos + 1));
  std::string sign = sci[0] == '-' ? "-" : "";
  std::string digits = sci.substr(sign.size(), epos - sign.size());
  if (digits.size() > 1) digits.erase(1, 1);  // drop the point
  if (exp < -4 || exp >= 16) {
    std::string m = digits.substr(0, 1);
    if (digits.size() > 1) m += "." + digits.substr(1);
    const std::string e = std::to_string(exp < 0 ? -exp : exp);
    return sign + m + "e" + (exp < 0 ? "-" : "+") + (e.size() < 2 ? "0" + e : e);
  }
  const int point = exp + 1;  // digits before the decimal point
  std::string s;
  if (point <= 0) s = "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
  else if (static_cast<std::size_t>(point) >= digits.size())
    s = digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0') + ".0";
  else s = digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
  return sign + s;
}

// v rounded to dtype t (float32 or float64), as a double.
double in(dtype t, double v) { return t == dtype::float32 ? static_cast<double>(static_cast<float>(v)) : v; }

// a op b computed in dtype t.
double sub(dtype t, double a, double b) { return t == dtype::float32 ? static_cast<double>(static_cast<float>(a) - static_cast<float>(b)) : a - b; }
double add(dtype t, double a, double b) { return t == dtype::float32 ? static_cast<double>(static_cast<float>(a) + static_cast<float>(b)) : a + b; }
double mul(dtype t, double a, double b) { return t == dtype::float32 ? static_cast<double>(static_cast<float>(a) * static_cast<float>(b)) : a * b; }
double div(dtype t, double a, double b) { return t == dtype::float32 ? static_cast<double>(static_cast<float>(a) / static_cast<float>(b)) : a / b; }

}  // namespace

binning make_binning(const reduce_spec& sp) {
  binning b;
  if (sp.bins < 1) throw value_error("`bins` must be positive, when an integer");
  b.bins = sp.bins;
  b.edge = sp.data == dtype::float32 ? dtype::float32 : dtype::float64;
  switch (sp.range) {
  case bin_range::given:  // python floats: first_edge, last_edge are doubles, norm_denom an np.float64
    if (sp.lo > sp.hi) throw value_error("max must be larger than min in range parameter.");
    if (!std::isfinite(sp.lo) || !std::isfinite(sp.hi))
      throw value_error("supplied range of [" + python_repr(sp.lo) + ", " + python_repr(sp.hi) + "] is not finite");
    b.work = dtype::float64;
    b.first = sp.lo;
    b.last = sp.hi;
    if (b.first == b.last) {
      b.first -= 0.5;
      b.last += 0.5;
    }
    b.denom = b.last - b.first;
    break;
  case bin_range::data_float: {  // a.min(), a.max(): scalars of the data's dtype
    const dtype t = b.edge;
    auto text = [&](double v) { return t == dtype::float32 ? python_repr(static_cast<float>(v)) : python_repr(v); };
    if (!std::isfinite(sp.lo) || !std::isfinite(sp.hi))
      throw value_error("autodetected range of [" + text(sp.lo) + ", " + text(sp.hi) + "] is not finite");
    b.work = t;
    b.first = in(t, sp.lo);
    b.last = in(t, sp.hi);
    if (b.first == b.last) {
      b.first = sub(t, b.first, 0.5);
      b.last = add(t, b.last, 0.5);
    }
    b.denom = sub(t, b.last, b.first);
    break;
  }
  case bin_range::data_int:  // integer scalars: the width is an exact unsigned difference
    b.work = dtype::float64;
    if (sp.ilo == sp.ihi) {
      b.first = static_cast<double>(sp.ilo) - 0.5;
      b.last = static_cast<double>(sp.ihi) + 0.5;
      b.denom = b.last - b.first;
    } else {
      b.first = static_cast<double>(sp.ilo);
      b.last = static_cast<double>(sp.ihi);
      b.denom = static_cast<double>(static_cast<std::uint64_t>(sp.ihi) - static_cast<std::uint64_t>(sp.ilo));
    }
    break;
  }
  b.guarded = sp.range == bin_range::given;
  b.first_e = in(b.edge, b.first);
  b.last_e = in(b.edge, b.last);
  if (!std::isfinite(b.first_e) || !std::isfinite(b.last_e))  // numpy then fails with an IndexError
    throw value_error("jetfuse: the range [" + python_repr(b.first) + ", " + python_repr(b.last) +
                      "] is not finite in float32, the dtype of the bin edges of float32 data");
  // np.linspace(first, last, bins + 1) in `work`: delta = last - first, step = delta / bins.
  const double delta = sub(b.work, b.last, b.first);
  b.step = div(b.work, delta, static_cast<double>(b.bins));
  if (b.step == 0) {
    b.step_zero = true;
    b.step = delta;
  }
  const std::vector<double> e = bin_edges(b);
  for (std::size_t k = 0; k + 1 < e.size(); ++k)
    if (!(e[k] < e[k + 1]))
      throw value_error("Too many bins for data range. Cannot create " + std::to_string(b.bins) + " finite-sized bins.");
  return b;
}

std::vector<double> bin_edges(const binning& b) {
  std::vector<double> e(static_cast<std::size_t>(b.bins + 1));
  const dtype w = b.work;
  const double kbins = in(w, static_cast<double>(b.bins));
  for (std::int64_t k = 0; k < b.bins; ++k) {
    const double kk = in(w, static_cast<double>(k));
    const double y = b.step_zero ? mul(w, div(w, kk, kbins), b.step) : mul(w, kk, b.step);
    e[static_cast<std::size_t>(k)] = in(b.edge, add(w, y, b.first));
  }
  e[static_cast<std::size_t>(b.bins)] = in(b.edge, b.last);
  return e;
}

array_base bin_edges_array(const binning& b, device dev) {
  const std::vector<double> e = bin_edges(b);
  const shape_t s{static_cast<std::int64_t>(e.size())};
  if (b.edge == dtype::float64) return make_from_host(dev, dtype::float64, s, e.data());
  std::vector<float> f(e.begin(), e.end());
  return make_from_host(dev, dtype::float32, s, f.data());
}

}  // namespace jf::detail
