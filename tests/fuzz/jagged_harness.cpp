// The jagged fuzzer's runner: reads the inputs jagged_fuzz.py wrote, runs every registered case on
// every variant on the requested backends and writes the results.
//
//   jfuzz_runner INPUTS RESULTS [BACKENDS]      BACKENDS: cpu,cuda (default: cpu, and cuda when present)
//
// INPUTS (text): "case NAME HASH NVARIANTS", then per variant "variant NJAGGED NLIST",
//   NJAGGED lines "jag DTYPE SHARE START STOP OFFSETS_HEX CONTENT_HEX" (SHARE -1: own offsets;
//   START -1: no slice) and NLIST lines "list DTYPE HEX".
// RESULTS (text): "case NAME", then per variant and backend
//   "run VARIANT BACKEND ok jagged DTYPE OFFSETS_HEX CONTENT_HEX",
//   "run VARIANT BACKEND ok option DTYPE NDIM DIMS... VALUES_HEX VALID_HEX",
//   "run VARIANT BACKEND ok dense DTYPE NDIM DIMS... VALUES_HEX" or
//   "run VARIANT BACKEND error KIND MESSAGE".
#include "jagged_harness.hpp"

#include <stdexcept>

namespace jf_jfuzz {

namespace {

using jf_fuzz_io::error_kind;
using jf_fuzz_io::from_hex;
using jf_fuzz_io::hex_of;
using jf_fuzz_io::one_line;
using jf_fuzz_io::parse_dtype;
using jf_fuzz_io::shape_text;

// A host buffer of `bytes` as a 1-d array of dtype d on dev.
jf::array_base array_1d(jf::dtype d, const std::vector<unsigned char>& bytes, jf::device dev) {
  const auto n = static_cast<std::int64_t>(bytes.size() / static_cast<std::size_t>(jf::size_of(d)));
  return jf_fuzz_io::make_array(d, bytes, jf::shape_t{n}, dev);
}

struct variant_spec {
  std::vector<jagged_spec> jagged;
  std::vector<list_value_spec> lists;
};

// "variant NJAGGED NLIST", then the jagged leaves and the per-list ones.
variant_spec read_variant(std::istream& in) {
  variant_spec var;
  std::string word, dt, a, b;
  int nj = 0, nl = 0;
  in >> word >> nj >> nl;
  for (int k = 0; k < nj; ++k) {
    jagged_spec j;
    in >> word >> dt >> j.share >> j.start >> j.stop >> a >> b;
    j.dtype = parse_dtype(dt, "jfuzz_runner");
    j.offsets = from_hex(a);
    j.content = from_hex(b);
    var.jagged.push_back(std::move(j));
  }
  for (int k = 0; k < nl; ++k) {
    list_value_spec l;
    in >> word >> dt >> a;
    l.dtype = parse_dtype(dt, "jfuzz_runner");
    l.data = from_hex(a);
    var.lists.push_back(std::move(l));
  }
  return var;
}

struct backend {
  std::string name;
  jf::device dev;
};

void run_one(const case_entry& ce, const variant_spec& var, const backend& be, int vi, std::ostream& out) {
  out << "run " << vi << ' ' << be.name << ' ';
  try {
    ctx c(be.dev, var.jagged, var.lists);
    ce.fn(c);
    out << "ok " << c.text << '\n';
  } catch (const std::exception& e) {
    out << "error " << error_kind(e) << ' ' << one_line(e.what()) << '\n';
  }
}

}  // namespace

ctx::ctx(jf::device dev, const std::vector<jagged_spec>& j, const std::vector<list_value_spec>& d) {
  for (const jagged_spec& s : j) {
    offsets_.push_back(s.share >= 0 ? offsets_.at(static_cast<std::size_t>(s.share))
                                    : jf::array<std::int64_t>(array_1d(jf::dtype::int64, s.offsets, dev)));
    contents_.push_back(array_1d(s.dtype, s.content, dev));
    start_.push_back(s.start);
    stop_.push_back(s.stop);
  }
  for (const list_value_spec& s : d) dense_.push_back(array_1d(s.dtype, s.data, dev));
}

void ctx::set_jagged(const jf::array<std::int64_t>& offsets, const jf::array_base& content) {
  text = "jagged " + std::string(jf::name(content.dtype())) + ' ' + hex_of(offsets) + ' ' + hex_of(content);
}
void ctx::set_option(const jf::array_base& values, const jf::array<bool>& valid) {
  text = "option " + shape_text(values) + ' ' + hex_of(values) + ' ' + hex_of(valid);
}
void ctx::set_dense(const jf::array_base& values) { text = "dense " + shape_text(values) + ' ' + hex_of(values); }

}  // namespace jf_jfuzz

int main(int argc, char** argv) {
  using namespace jf_jfuzz;
  return jf_fuzz_io::runner_main(argc, argv, "[cpu,cuda]", [&] {
    std::vector<backend> backends;
    const std::string wanted = argc > 3 ? argv[3] : "";
    if (wanted.empty() || wanted.find("cpu") != std::string::npos) backends.push_back({"cpu", jf::cpu});
    if (wanted.find("cuda") != std::string::npos && !jf::cuda_available())
      throw std::runtime_error("jfuzz_runner: cuda requested but jf::cuda_available() is false on this machine");
    if (wanted.find("cuda") != std::string::npos || (wanted.empty() && jf::cuda_available()))
      backends.push_back({"cuda", jf::cuda});
    std::string header = "backends";
    for (const backend& be : backends) header += ' ' + be.name;
    const auto run = [&](const case_entry& ce, const variant_spec& var, int vi, std::ostream& out) {
      for (const backend& be : backends) run_one(ce, var, be, vi, out);
    };
    jf_fuzz_io::run_cases<ctx, variant_spec>(argv[1], argv[2], "jfuzz_runner", header, read_variant, run);
  });
}
