// The fuzzer's runner: reads the inputs fuzz.py wrote, runs every registered case on every variant
// on jf::cpu and, when a GPU is present, on jf::cuda fused and unfused, and writes the results.
//
//   fuzz_runner INPUTS RESULTS [--cpu-only]
//
// INPUTS (text):  "case NAME HASH NVARIANTS", then per variant "variant NBASES NLEAVES",
//   NBASES lines "base DTYPE NDIM DIMS... HEX" and NLEAVES lines
//   "leaf BASE NSLICES (i K | r START STOP STEP)... NAXES AXES..." (an open bound is "n").
// RESULTS (text): "case NAME", then per variant and mode "run VARIANT MODE ok DTYPE NDIM DIMS... HEX"
//   (and "second DTYPE NDIM DIMS... HEX" for jf::eval(e1, e2)) followed by one "base HEX" line per
//   base buffer as it is afterwards, or
//   "run VARIANT MODE error KIND MESSAGE".
#include "harness.hpp"

#include <cstring>
#include <sstream>
#include <stdexcept>

namespace jf_fuzz {

namespace {

using jf_fuzz_io::error_kind;
using jf_fuzz_io::from_hex;
using jf_fuzz_io::hex_of;
using jf_fuzz_io::make_array;
using jf_fuzz_io::one_line;
using jf_fuzz_io::parse_dtype;
using jf_fuzz_io::shape_text;

jf::slice_bound parse_bound(const std::string& s) {
  if (s == "n") return jf::none;
  return jf::slice_bound(std::stoll(s));
}

struct base_spec {
  jf::dtype dtype;
  jf::shape_t shape;
  std::vector<unsigned char> bytes;
};

struct variant_spec {
  std::vector<base_spec> bases;
  std::vector<leaf_spec> leaves;
};

// "variant NBASES NLEAVES", then the bases and the leaves.
variant_spec read_variant(std::istream& in) {
  variant_spec var;
  std::string word;
  int nb = 0, nl = 0;
  in >> word >> nb >> nl;
  for (int b = 0; b < nb; ++b) {
    base_spec bs;
    std::string dt, hex;
    int nd = 0;
    in >> word >> dt >> nd;
    bs.dtype = parse_dtype(dt, "fuzz_runner");
    bs.shape = jf::shape_t::of_rank(nd);
    for (int k = 0; k < nd; ++k) in >> bs.shape[k];
    in >> hex;
    bs.bytes = from_hex(hex);
    var.bases.push_back(std::move(bs));
  }
  for (int l = 0; l < nl; ++l) {
    leaf_spec ls;
    int ns = 0, na = 0;
    in >> word >> ls.base >> ns;
    for (int s = 0; s < ns; ++s) {
      std::string k;
      in >> k;
      slice_arg a;
      if (k == "i") {
        a.is_index = true;
        in >> a.index;
      } else {
        std::string start, stop;
        std::int64_t step = 1;
        in >> start >> stop >> step;
        a.r = jf::range(parse_bound(start), parse_bound(stop), step);
      }
      ls.slices.push_back(a);
    }
    in >> na;
    ls.transposed = na > 0;
    ls.axes = jf::shape_t::of_rank(na);
    for (int k = 0; k < na; ++k) in >> ls.axes[k];
    var.leaves.push_back(std::move(ls));
  }
  return var;
}

// x(args...) with a run-time number of arguments, through the public indexing operator.
template <class T>
jf::array<T> index_with(const jf::array<T>& x, const std::vector<jf::index_arg>& a) {
  switch (a.size()) {
    case 1:
      return x(a[0]);
    case 2:
      return x(a[0], a[1]);
    case 3:
      return x(a[0], a[1], a[2]);
    case 4:
      return x(a[0], a[1], a[2], a[3]);
    case 5:
      return x(a[0], a[1], a[2], a[3], a[4]);
    default:
      throw std::runtime_error("fuzz_runner: at most 5 slice arguments");
  }
}

// "DTYPE NDIM DIMS... HEX"
std::string describe(const jf::array_base& r) { return shape_text(r) + ' ' + hex_of(r); }

void run_one(const case_entry& ce, const variant_spec& var, const mode& m, int vi, std::ostream& out) {
  if (m.unfused && !std::strstr(ce.code, "c.eval("))
    return;  // jf::eval(jf::unfused, e) makes new arrays only: assignments run fused
  out << "run " << vi << ' ' << m.name << ' ';
  try {
    std::vector<jf::array_base> bases;
    for (const base_spec& b : var.bases) bases.push_back(make_array(b.dtype, b.bytes, b.shape, m.dev));
    ctx c(m, bases, var.leaves);
    ce.fn(c);
    std::ostringstream line;
    line << "ok " << describe(c.result()) << '\n';
    if (!c.second().is_null()) line << "second " << describe(c.second()) << '\n';
    for (const jf::array_base& b : c.bases()) line << "base " << hex_of(b) << '\n';
    out << line.str();
  } catch (const std::exception& e) {
    out << "error " << error_kind(e) << ' ' << one_line(e.what()) << '\n';
  }
}

}  // namespace

jf::array_base ctx::view(int i) const {
  const leaf_spec& l = leaves_.at(static_cast<std::size_t>(i));
  const jf::array_base& base = bases_.at(static_cast<std::size_t>(l.base));
  return jf::visit_dtype(base.dtype(), [&](auto t) -> jf::array_base {
    using T = typename decltype(t)::type;
    jf::array<T> a(base);
    if (!l.slices.empty()) {
      std::vector<jf::index_arg> args;
      for (const slice_arg& s : l.slices) args.push_back(s.is_index ? jf::index_arg(s.index) : jf::index_arg(s.r));
      a = index_with(a, args);
    }
    if (l.transposed) a = a.transpose(l.axes);
    return a;
  });
}

}  // namespace jf_fuzz

int main(int argc, char** argv) {
  using namespace jf_fuzz;
  return jf_fuzz_io::runner_main(argc, argv, "[--cpu-only]", [&] {
    const bool cpu_only = argc > 3 && std::strcmp(argv[3], "--cpu-only") == 0;
    std::vector<mode> modes = {{"cpu", jf::cpu, false}};
    if (!cpu_only && jf::cuda_available()) {
      modes.push_back({"cuda", jf::cuda, false});
      modes.push_back({"cuda-unfused", jf::cuda, true});
    }
    std::string header = "modes";
    for (const mode& m : modes) header += std::string(" ") + m.name;
    const auto run = [&](const case_entry& ce, const variant_spec& var, int vi, std::ostream& out) {
      for (const mode& m : modes) run_one(ce, var, m, vi, out);
    };
    jf_fuzz_io::run_cases<ctx, variant_spec>(argv[1], argv[2], "fuzz_runner", header, read_variant, run);
  });
}
