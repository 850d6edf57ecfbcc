// numpy's array repr (numpy 2 defaults: precision 8, threshold 1000, edgeitems 3, linewidth 75),
// with the dtype always shown. Follows numpy/_core/arrayprint.py: FloatingFormat,
// IntegerFormat, BoolFormat, _formatArray and _array_repr_implementation.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "jetfuse/array.hpp"

namespace jf::detail {

namespace {

constexpr int precision = 8;
constexpr std::int64_t threshold = 1000;
constexpr std::int64_t edgeitems = 3;
constexpr std::size_t linewidth = 75;
const std::string prefix = "array(";
const std::string separator = ", ";

// ---- float digits ---------------------------------------------------------------------------------
// numpy's Dragon4 in "unique" mode with a cutoff of `precision` fractional digits equals the
// shortest round-trip string when that has at most 8 fractional digits, else the exact value
// correctly rounded to 8 digits (printf is exact) with trailing zeros trimmed.

struct sci_parts {
  std::string int_part, frac_part, exp_sign, exp_digits;
};

template <class F> std::string positional(F x) {
  char buf[512];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed);
  std::string s(buf, r.ptr);
  const auto dot = s.find('.');
  if (dot != std::string::npos && s.size() - dot - 1 > static_cast<std::size_t>(precision)) {
    std::snprintf(buf, sizeof buf, "%.*f", precision, static_cast<double>(x));
    s = buf;
    while (s.back() == '0') s.pop_back();
  }
  if (s.find('.') == std::string::npos) s += '.';
  return s;
}

// digits < 0: the first pass (shortest, cut at `precision`); else exactly `digits` fractional
// digits of the exact value.
template <class F> sci_parts scientific(F x, int digits = -1) {
  char buf[128];
  auto split = [](const std::string& t) {
    sci_parts p;
    const auto e = t.find('e');
    const std::string mant = t.substr(0, e);
    p.exp_sign = t.substr(e + 1, 1);
    p.exp_digits = t.substr(e + 2);
    const auto dot = mant.find('.');
    p.int_part = mant.substr(0, dot);
    if (dot != std::string::npos) p.frac_part = mant.substr(dot + 1);
    return p;
  };
  if (digits >= 0) {
    std::snprintf(buf, sizeof buf, "%.*e", digits, static_cast<double>(x));
    return split(buf);
  }
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  sci_parts p = split(std::string(buf, r.ptr));
  if (p.frac_part.size() > static_cast<std::size_t>(precision)) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, static_cast<double>(x));
    p = split(buf);
    while (!p.frac_part.empty() && p.frac_part.back() == '0') p.frac_part.pop_back();
  }
  return p;
}

std::string pad_left(const std::string& s, std::size_t w, char c = ' ') {
  return s.size() >= w ? s : std::string(w - s.size(), c) + s;
}
std::string pad_right(const std::string& s, std::size_t w, char c = ' ') {
  return s.size() >= w ? s : s + std::string(w - s.size(), c);
}

// numpy's FloatingFormat (floatmode 'maxprec', sign '-', suppress False) built from `data`.
template <class F> class float_format {
public:
  explicit float_format(const std::vector<F>& data) {
    std::vector<F> finite;
    for (F x : data)
      if (std::isfinite(x)) finite.push_back(x);
    F max_val = 0, min_val = std::numeric_limits<F>::infinity();
    bool any_nonzero = false;
    for (F x : finite) {
      if (x == 0) continue;
      any_nonzero = true;
      max_val = std::max(max_val, std::fabs(x));
      min_val = std::min(min_val, std::fabs(x));
    }
    // 10 ** min(8, finfo.precision): 1e8 for float64, 1e6 for float32.
    const F cutoff = std::is_same_v<F, float> ? F(1e6) : F(1e8);
    if (any_nonzero && (max_val >= cutoff || min_val < F(0.0001) || max_val / min_val > F(1000))) exp_ = true;

    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_) {
      for (F x : finite) {
        const sci_parts p = scientific(x);
        exp_size_ = std::max(exp_size_, p.exp_digits.size());
        prec_ = std::max(prec_, p.frac_part.size());
        pad_left_ = std::max(pad_left_, p.int_part.size());
      }
      pad_right_ = exp_size_ + 2 + prec_;
    } else {
      for (F x : finite) {
        const std::string s = positional(x);
        const auto dot = s.find('.');
        pad_left_ = std::max(pad_left_, dot);
        pad_right_ = std::max(pad_right_, s.size() - dot - 1);
      }
    }
    if (finite.size() != data.size()) {
      bool neginf = false;
      for (F x : data) neginf = neginf || (std::isinf(x) && x < 0);
      const std::int64_t offset = static_cast<std::int64_t>(pad_right_) + 1;
      const std::int64_t need = std::max<std::int64_t>(3 - offset, 3 + (neginf ? 1 : 0) - offset);
      if (need > static_cast<std::int64_t>(pad_left_)) pad_left_ = static_cast<std::size_t>(need);
    }
  }

  std::string operator()(F x) const {
    if (!std::isfinite(x)) {
      const std::string ret = std::isnan(x) ? "nan" : x < 0 ? "-inf" : "inf";
      return pad_left(ret, pad_left_ + pad_right_ + 1);
    }
    if (exp_) {
      // Dragon4 with min_digits: past the shortest digits it prints the exact value's digits.
      const sci_parts p = scientific(x, static_cast<int>(prec_));
      return pad_left(p.int_part, pad_left_) + "." + pad_right(p.frac_part, prec_, '0') + "e" + p.exp_sign +
             pad_left(p.exp_digits, exp_size_, '0');
    }
    const std::string s = positional(x);
    const auto dot = s.find('.');
    return pad_left(s.substr(0, dot), pad_left_) + "." + pad_right(s.substr(dot + 1), pad_right_);
  }

private:
  bool exp_ = false;
  std::size_t pad_left_ = 0, pad_right_ = 0, prec_ = 0, exp_size_ = 0;
};

template <class I> class int_format {
public:
  explicit int_format(const std::vector<I>& data) {
    if (data.empty()) return;
    const auto [lo, hi] = std::minmax_element(data.begin(), data.end());
    width_ = std::max(std::to_string(*lo).size(), std::to_string(*hi).size());
  }
  std::string operator()(I x) const { return pad_left(std::to_string(x), width_); }

private:
  std::size_t width_ = 0;
};

class bool_format {
public:
  explicit bool_format(bool zero_d) : true_(zero_d ? "True" : " True") {}
  std::string operator()(unsigned char x) const { return x ? true_ : "False"; }

private:
  std::string true_;
};

// ---- layout (numpy's _formatArray) ----------------------------------------------------------------

void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width,
                 const std::string& next_line_prefix) {
  bool wrap = line.size() + word.size() > width;
  if (line.size() <= next_line_prefix.size()) wrap = false;  // wrapping would not help
  if (wrap) {
    std::size_t end = line.find_last_not_of(' ');
    s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
    line = next_line_prefix;
  }
  line += word;
}

template <class Fmt> struct layout {
  const shape_t& shape;
  const strides_t strides;  // row-major strides of the host copy
  const Fmt& fmt;
  bool summary;

  std::string recurse(std::int64_t* index, int axis, const std::string& hanging, std::size_t width) const {
    const int nd = shape.size();
    if (axis == nd) {
      std::int64_t off = 0;
      for (int i = 0; i < nd; ++i) off += index[i] * strides[i];
      return fmt.at(off);
    }
    const std::string next_hanging = hanging + " ";
    const std::size_t next_width = width - 1;  // room for the ']'
    const std::int64_t len = shape[axis];
    const bool show_summary = summary && 2 * edgeitems < len;
    const std::int64_t leading = show_summary ? edgeitems : 0;
    const std::int64_t trailing = show_summary ? edgeitems : len;
    std::string s;
    auto item = [&](std::int64_t i) {
      index[axis] = i;
      return recurse(index, axis + 1, next_hanging, next_width);
    };
    if (axis == nd - 1) {
      const std::size_t elem_width = width - 1;  // room for ',' or ']'
      std::string line = hanging;
      for (std::int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, item(i), elem_width, hanging);
        line += separator;
      }
      if (show_summary) {
        extend_line(s, line, "...", elem_width, hanging);
        line += separator;
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, item(len - i), elem_width, hanging);
        line += separator;
      }
      extend_line(s, line, item(len - 1), elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep = "," + std::string(static_cast<std::size_t>(nd - axis - 1), '\n');
      for (std::int64_t i = 0; i < leading; ++i) s += hanging + item(i) + line_sep;
      if (show_summary) s += hanging + "..." + line_sep;
      for (std::int64_t i = trailing; i > 1; --i) s += hanging + item(len - i) + line_sep;
      s += hanging + item(len - 1);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }
};

// Formats the element at a row-major offset of the host copy.
template <class T, class Fmt> struct element_at {
  const T* data;
  Fmt fmt;
  std::string at(std::int64_t off) const { return fmt(data[off]); }
};

// Values of the elements numpy's _leading_trailing keeps (all of them when not summarising).
template <class T> std::vector<T> edge_values(const T* data, const shape_t& shape, bool summary) {
  const int nd = shape.size();
  std::vector<std::vector<std::int64_t>> keep(static_cast<std::size_t>(nd));
  for (int a = 0; a < nd; ++a) {
    const std::int64_t n = shape[a];
    for (std::int64_t i = 0; i < n; ++i)
      if (!(summary && 2 * edgeitems < n) || i < edgeitems || i >= n - edgeitems) keep[a].push_back(i);
  }
  const strides_t st = contiguous_strides(shape);
  std::vector<T> out;
  std::vector<std::size_t> pos(static_cast<std::size_t>(nd), 0);
  for (;;) {
    std::int64_t off = 0;
    for (int a = 0; a < nd; ++a) off += keep[a][pos[a]] * st[a];
    out.push_back(data[off]);
    int a = nd - 1;
    for (; a >= 0; --a) {
      if (++pos[a] < keep[a].size()) break;
      pos[a] = 0;
    }
    if (a < 0) break;
  }
  return out;
}

template <class T> std::string format_elements(const array_base& a) {
  using stored = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
  std::vector<stored> host(static_cast<std::size_t>(a.size()));
  a.read_into(host.data());
  const bool summary = a.size() > threshold;
  const std::vector<stored> data = edge_values(host.data(), a.shape(), summary);
  auto run = [&](const auto& fmt) {
    const element_at<stored, std::decay_t<decltype(fmt)>> el{host.data(), fmt};
    const layout<decltype(el)> lay{a.shape(), contiguous_strides(a.shape()), el, summary};
    std::int64_t index[max_ndim] = {};
    const std::string hanging = " " + std::string(prefix.size(), ' ');
    return lay.recurse(index, 0, hanging, linewidth - 1);  // - len(")")
  };
  if constexpr (std::is_same_v<T, bool>) return run(bool_format(a.ndim() == 0));
  else if constexpr (std::is_integral_v<T>) return run(int_format<T>(data));
  else return run(float_format<T>(data));
}

}  // namespace

std::string repr(const array_base& a) {
  if (a.is_null()) return "array(<null>)";
  const std::string lst = a.size() == 0 ? "[]" : visit_dtype(a.dtype(), [&](auto t) {
    return format_elements<typename decltype(t)::type>(a);
  });
  std::string extras;
  if ((a.size() == 0 && !(a.ndim() == 1)) || a.size() > threshold) extras = "shape=" + to_string(a.shape()) + ", ";
  extras += "dtype=" + std::string(name(a.dtype())) + ")";
  const std::string arr = prefix + lst + ",";
  const auto nl = arr.rfind('\n');
  const std::size_t last_line = arr.size() - (nl == std::string::npos ? 0 : nl + 1);
  const std::string spacer = last_line + extras.size() + 1 > linewidth ? "\n" + std::string(prefix.size(), ' ') : " ";
  return arr + spacer + extras;
}

}  // namespace jf::detail

namespace jf {
std::ostream& operator<<(std::ostream& os, const array_base& a) { return os << detail::repr(a); }
}  // namespace jf
