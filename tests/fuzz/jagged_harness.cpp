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

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <typeinfo>

namespace jf_jfuzz {

namespace {

std::map<std::string, case_entry>& registry() {
  static std::map<std::string, case_entry> r;
  return r;
}

std::uint64_t fnv1a(const char* s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 0x100000001b3ull;
  return h;
}

jf::dtype parse_dtype(const std::string& s) {
  for (jf::dtype d : jf::all_dtypes)
    if (jf::name(d) == s) return d;
  throw std::runtime_error("jfuzz_runner: unknown dtype " + s);
}

std::vector<unsigned char> from_hex(const std::string& s) {
  std::vector<unsigned char> out;
  if (s == "-") return out;
  out.resize(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<unsigned char>(std::stoi(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::string hex_of(const jf::array_base& a) {
  std::vector<unsigned char> v(static_cast<std::size_t>(a.size()) * static_cast<std::size_t>(jf::size_of(a.dtype())));
  if (v.empty()) return "-";
  a.read_into(v.data());
  static const char* digits = "0123456789abcdef";
  std::string s(2 * v.size(), '0');
  for (std::size_t i = 0; i < v.size(); ++i) {
    s[2 * i] = digits[v[i] >> 4];
    s[2 * i + 1] = digits[v[i] & 15];
  }
  return s;
}

std::string shape_text(const jf::array_base& a) {
  std::ostringstream s;
  s << jf::name(a.dtype()) << ' ' << a.ndim();
  for (int k = 0; k < a.ndim(); ++k) s << ' ' << a.shape()[k];
  return s.str();
}

// A host buffer of `bytes` as a 1-d array of dtype d on dev.
jf::array_base make_array(jf::dtype d, const std::vector<unsigned char>& bytes, jf::device dev) {
  return jf::visit_dtype(d, [&](auto t) -> jf::array_base {
    using T = typename decltype(t)::type;
    alignas(8) static const unsigned char none[8] = {};  // an empty buffer still needs a host pointer
    const void* host = bytes.empty() ? none : bytes.data();
    const auto n = static_cast<std::int64_t>(bytes.size() / sizeof(T));
    return jf::array<T>(static_cast<const T*>(host), jf::shape_t{n}, dev);
  });
}

struct variant_spec {
  std::vector<jagged_spec> jagged;
  std::vector<list_value_spec> lists;
};

struct case_spec {
  std::string name;
  std::uint64_t hash = 0;
  std::vector<variant_spec> variants;
};

std::vector<case_spec> read_inputs(const char* path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string("jfuzz_runner: cannot read ") + path);
  std::vector<case_spec> cases;
  std::string word, dt, a, b;
  while (in >> word) {
    if (word != "case") throw std::runtime_error("jfuzz_runner: expected 'case', got " + word);
    case_spec c;
    std::string hash;
    int nvar = 0;
    in >> c.name >> hash >> nvar;
    c.hash = std::stoull(hash, nullptr, 16);
    for (int v = 0; v < nvar; ++v) {
      variant_spec var;
      int nj = 0, nl = 0;
      in >> word >> nj >> nl;
      for (int k = 0; k < nj; ++k) {
        jagged_spec j;
        in >> word >> dt >> j.share >> j.start >> j.stop >> a >> b;
        j.dtype = parse_dtype(dt);
        j.offsets = from_hex(a);
        j.content = from_hex(b);
        var.jagged.push_back(std::move(j));
      }
      for (int k = 0; k < nl; ++k) {
        list_value_spec l;
        in >> word >> dt >> a;
        l.dtype = parse_dtype(dt);
        l.data = from_hex(a);
        var.lists.push_back(std::move(l));
      }
      c.variants.push_back(std::move(var));
    }
    if (!in) throw std::runtime_error("jfuzz_runner: truncated input at case " + c.name);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string error_kind(const std::exception& e) {
  if (dynamic_cast<const jf::shape_error*>(&e)) return "shape_error";
  if (dynamic_cast<const jf::dtype_error*>(&e)) return "dtype_error";
  if (dynamic_cast<const jf::axis_error*>(&e)) return "axis_error";
  if (dynamic_cast<const jf::value_error*>(&e)) return "value_error";
  if (dynamic_cast<const jf::index_error*>(&e)) return "index_error";
  if (dynamic_cast<const jf::backend_mismatch*>(&e)) return "backend_mismatch";
  if (dynamic_cast<const jf::cuda_error*>(&e)) return "cuda_error";
  if (dynamic_cast<const jf::compile_error*>(&e)) return "compile_error";
  if (dynamic_cast<const jf::error*>(&e)) return "error";
  return std::string("std:") + typeid(e).name();
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
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
                                    : jf::array<std::int64_t>(make_array(jf::dtype::int64, s.offsets, dev)));
    contents_.push_back(make_array(s.dtype, s.content, dev));
    start_.push_back(s.start);
    stop_.push_back(s.stop);
  }
  for (const list_value_spec& s : d) dense_.push_back(make_array(s.dtype, s.data, dev));
}

void ctx::set_jagged(const jf::array<std::int64_t>& offsets, const jf::array_base& content) {
  text = "jagged " + std::string(jf::name(content.dtype())) + ' ' + hex_of(offsets) + ' ' + hex_of(content);
}
void ctx::set_option(const jf::array_base& values, const jf::array<bool>& valid) {
  text = "option " + shape_text(values) + ' ' + hex_of(values) + ' ' + hex_of(valid);
}
void ctx::set_dense(const jf::array_base& values) { text = "dense " + shape_text(values) + ' ' + hex_of(values); }

registrar::registrar(const case_entry* entries, int n) {
  for (int i = 0; i < n; ++i) registry()[entries[i].name] = entries[i];
}

}  // namespace jf_jfuzz

int main(int argc, char** argv) {
  using namespace jf_jfuzz;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s INPUTS RESULTS [cpu,cuda]\n", argv[0]);
    return 2;
  }
  try {
    std::vector<backend> backends;
    const std::string wanted = argc > 3 ? argv[3] : "";
    if (wanted.empty() || wanted.find("cpu") != std::string::npos) backends.push_back({"cpu", jf::cpu});
    if (wanted.find("cuda") != std::string::npos && !jf::cuda_available())
      throw std::runtime_error("jfuzz_runner: cuda requested but jf::cuda_available() is false on this machine");
    if (wanted.find("cuda") != std::string::npos || (wanted.empty() && jf::cuda_available()))
      backends.push_back({"cuda", jf::cuda});
    const std::vector<case_spec> cases = read_inputs(argv[1]);
    std::ofstream out(argv[2]);
    out << "backends";
    for (const backend& be : backends) out << ' ' << be.name;
    out << '\n';
    for (const case_spec& c : cases) {
      auto it = registry().find(c.name);
      if (it == registry().end())
        throw std::runtime_error("jfuzz_runner: no case " + c.name + " in this binary: rebuild it");
      if (fnv1a(it->second.code) != c.hash)
        throw std::runtime_error("jfuzz_runner: " + c.name + " in this binary is not the generated one: rebuild it");
      out << "case " << c.name << '\n';
      for (std::size_t v = 0; v < c.variants.size(); ++v)
        for (const backend& be : backends) run_one(it->second, c.variants[v], be, static_cast<int>(v), out);
      out.flush();
    }
    out << "end\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
