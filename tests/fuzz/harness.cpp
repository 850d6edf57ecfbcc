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

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <typeinfo>

namespace jf_fuzz {

namespace {

std::map<std::string, case_entry>& registry() {
  static std::map<std::string, case_entry> r;
  return r;
}

// FNV-1a of the C++ statement: fuzz.py computes the same, so a stale binary is caught.
std::uint64_t fnv1a(const char* s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 0x100000001b3ull;
  return h;
}

jf::dtype parse_dtype(const std::string& s) {
  for (jf::dtype d : jf::all_dtypes)
    if (jf::name(d) == s) return d;
  throw std::runtime_error("fuzz_runner: unknown dtype " + s);
}

std::vector<unsigned char> from_hex(const std::string& s) {
  std::vector<unsigned char> out;
  if (s == "-") return out;
  out.resize(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<unsigned char>(std::stoi(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::string to_hex(const std::vector<unsigned char>& v) {
  if (v.empty()) return "-";
  static const char* digits = "0123456789abcdef";
  std::string s(2 * v.size(), '0');
  for (std::size_t i = 0; i < v.size(); ++i) {
    s[2 * i] = digits[v[i] >> 4];
    s[2 * i + 1] = digits[v[i] & 15];
  }
  return s;
}

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

struct case_spec {
  std::string name;
  std::uint64_t hash = 0;
  std::vector<variant_spec> variants;
};

std::vector<case_spec> read_inputs(const char* path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string("fuzz_runner: cannot read ") + path);
  std::vector<case_spec> cases;
  std::string word;
  while (in >> word) {
    if (word != "case") throw std::runtime_error("fuzz_runner: expected 'case', got " + word);
    case_spec c;
    std::string hash;
    int nvar = 0;
    in >> c.name >> hash >> nvar;
    c.hash = std::stoull(hash, nullptr, 16);
    for (int v = 0; v < nvar; ++v) {
      variant_spec var;
      int nb = 0, nl = 0;
      in >> word >> nb >> nl;
      for (int b = 0; b < nb; ++b) {
        base_spec bs;
        std::string dt, hex;
        int nd = 0;
        in >> word >> dt >> nd;
        bs.dtype = parse_dtype(dt);
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
      c.variants.push_back(std::move(var));
    }
    if (!in) throw std::runtime_error("fuzz_runner: truncated input at case " + c.name);
    cases.push_back(std::move(c));
  }
  return cases;
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

std::vector<unsigned char> bytes_of(const jf::array_base& a) {
  std::vector<unsigned char> v(static_cast<std::size_t>(a.size()) * static_cast<std::size_t>(jf::size_of(a.dtype())));
  if (!v.empty()) a.read_into(v.data());
  return v;
}

// "DTYPE NDIM DIMS... HEX"
std::string describe(const jf::array_base& r) {
  std::ostringstream s;
  s << jf::name(r.dtype()) << ' ' << r.ndim();
  for (int k = 0; k < r.ndim(); ++k) s << ' ' << r.shape()[k];
  s << ' ' << to_hex(bytes_of(r));
  return s.str();
}

std::string error_kind(const std::exception& e) {
  if (dynamic_cast<const jf::shape_error*>(&e)) return "shape_error";
  if (dynamic_cast<const jf::dtype_error*>(&e)) return "dtype_error";
  if (dynamic_cast<const jf::axis_error*>(&e)) return "axis_error";  // a value_error
  if (dynamic_cast<const jf::value_error*>(&e)) return "value_error";
  if (dynamic_cast<const jf::index_error*>(&e)) return "index_error";
  if (dynamic_cast<const jf::backend_mismatch*>(&e)) return "backend_mismatch";
  if (dynamic_cast<const jf::no_device*>(&e)) return "no_device";
  if (dynamic_cast<const jf::cuda_error*>(&e)) return "cuda_error";
  if (dynamic_cast<const jf::out_of_memory*>(&e)) return "out_of_memory";
  if (dynamic_cast<const jf::compile_error*>(&e)) return "compile_error";
  if (dynamic_cast<const jf::error*>(&e)) return "error";
  return std::string("std:") + typeid(e).name();
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

void run_one(const case_entry& ce, const variant_spec& var, const mode& m, int vi, std::ostream& out) {
  out << "run " << vi << ' ' << m.name << ' ';
  try {
    std::vector<jf::array_base> bases;
    for (const base_spec& b : var.bases) {
      alignas(8) const unsigned char none[8] = {};  // an empty buffer still needs a valid host pointer
      const void* host = b.bytes.empty() ? none : b.bytes.data();
      bases.push_back(jf::visit_dtype(b.dtype, [&](auto t) -> jf::array_base {
        using T = typename decltype(t)::type;
        return jf::array<T>(static_cast<const T*>(host), b.shape, m.dev);
      }));
    }
    ctx c(m, bases, var.leaves);
    ce.fn(c);
    std::ostringstream line;
    line << "ok " << describe(c.result()) << '\n';
    if (!c.second().is_null()) line << "second " << describe(c.second()) << '\n';
    for (const jf::array_base& b : c.bases()) line << "base " << to_hex(bytes_of(b)) << '\n';
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

registrar::registrar(const case_entry* entries, int n) {
  for (int i = 0; i < n; ++i) registry()[entries[i].name] = entries[i];
}

}  // namespace jf_fuzz

int main(int argc, char** argv) {
  using namespace jf_fuzz;
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s INPUTS RESULTS [--cpu-only]\n", argv[0]);
    return 2;
  }
  const bool cpu_only = argc > 3 && std::strcmp(argv[3], "--cpu-only") == 0;
  try {
    const std::vector<case_spec> cases = read_inputs(argv[1]);
    std::vector<mode> modes = {{"cpu", jf::cpu, false}};
    if (!cpu_only && jf::cuda_available()) {
      modes.push_back({"cuda", jf::cuda, false});
      modes.push_back({"cuda-unfused", jf::cuda, true});
    }
    std::ofstream out(argv[2]);
    out << "modes";
    for (const mode& m : modes) out << ' ' << m.name;
    out << '\n';
    for (const case_spec& c : cases) {
      auto it = registry().find(c.name);
      if (it == registry().end())
        throw std::runtime_error("fuzz_runner: no case " + c.name + " in this binary: rebuild it");
      if (fnv1a(it->second.expr) != c.hash)
        throw std::runtime_error("fuzz_runner: " + c.name + " in this binary is not the generated one: rebuild it");
      out << "case " << c.name << '\n';
      for (std::size_t v = 0; v < c.variants.size(); ++v)
        for (const mode& m : modes) {
          if (m.unfused && !std::strstr(it->second.expr, "c.eval("))
            continue;  // jf::eval(jf::unfused, e) makes new arrays only: assignments run fused
          run_one(it->second, c.variants[v], m, static_cast<int>(v), out);
        }
      out.flush();
    }
    out << "end\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
