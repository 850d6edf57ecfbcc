// What the dense fuzzer's runner (harness.cpp) and the jagged fuzzer's (jagged_harness.cpp) share:
// the registry of generated cases, the text format's pieces (hex buffers, dtype names, the case
// headers of the inputs, the results' frame) and the error kinds the Python side compares.
// `who` is the runner's name, which starts its error messages.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <istream>
#include <jetfuse/jetfuse.hpp>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace jf_fuzz_io {

// FNV-1a of a case's C++ code: the Python side computes the same, so a stale binary is caught.
std::uint64_t fnv1a(const char* s);

jf::dtype parse_dtype(const std::string& s, const char* who);

// A buffer as lower-case hex, "-" when empty, and back.
std::vector<unsigned char> from_hex(const std::string& s);
std::string to_hex(const std::vector<unsigned char>& v);
std::vector<unsigned char> bytes_of(const jf::array_base& a);
std::string hex_of(const jf::array_base& a);  // to_hex(bytes_of(a))

// "DTYPE NDIM DIMS..."
std::string shape_text(const jf::array_base& a);

// An array of dtype d and this shape on dev, holding `bytes` (row-major; empty is fine).
jf::array_base make_array(jf::dtype d, const std::vector<unsigned char>& bytes, const jf::shape_t& shape,
                          jf::device dev);

// The jf:: exception's name ("shape_error", ...), "std:<typeid>" for another one.
std::string error_kind(const std::exception& e);
// The message on one line (the results are line-based).
std::string one_line(std::string s);

// A generated case: a function that takes the harness's context.
template <class Ctx>
struct case_entry {
  const char* name;
  void (*fn)(Ctx&);
  const char* code;  // the C++ the generator hashed, to check the binary matches it
};

template <class Ctx>
std::map<std::string, case_entry<Ctx>>& registry() {
  static std::map<std::string, case_entry<Ctx>> r;
  return r;
}

// Generated translation units register their cases at start-up.
template <class Ctx>
struct registrar {
  registrar(const case_entry<Ctx>* entries, int n) {
    for (int i = 0; i < n; ++i) registry<Ctx>()[entries[i].name] = entries[i];
  }
};

// The registered case of that name, if its code is the one the generator hashed.
template <class Ctx>
const case_entry<Ctx>& find_case(const std::string& name, std::uint64_t hash, const char* who) {
  auto it = registry<Ctx>().find(name);
  if (it == registry<Ctx>().end())
    throw std::runtime_error(std::string(who) + ": no case " + name + " in this binary: rebuild it");
  if (fnv1a(it->second.code) != hash)
    throw std::runtime_error(std::string(who) + ": " + name + " in this binary is not the generated one: rebuild it");
  return it->second;
}

template <class Variant>
struct case_spec {
  std::string name;
  std::uint64_t hash = 0;
  std::vector<Variant> variants;
};

// The inputs: "case NAME HASH NVARIANTS", each followed by NVARIANTS variants that
// read_variant(std::istream&) reads (from their "variant" word on).
template <class Variant, class ReadVariant>
std::vector<case_spec<Variant>> read_cases(const char* path, const char* who, ReadVariant read_variant) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string(who) + ": cannot read " + path);
  std::vector<case_spec<Variant>> cases;
  std::string word;
  while (in >> word) {
    if (word != "case") throw std::runtime_error(std::string(who) + ": expected 'case', got " + word);
    case_spec<Variant> c;
    std::string hash;
    int nvar = 0;
    in >> c.name >> hash >> nvar;
    c.hash = std::stoull(hash, nullptr, 16);
    for (int v = 0; v < nvar; ++v) c.variants.push_back(read_variant(in));
    if (!in) throw std::runtime_error(std::string(who) + ": truncated input at case " + c.name);
    cases.push_back(std::move(c));
  }
  return cases;
}

// The results: the line `header`, then per case "case NAME" and what run(entry, variant, index, out)
// writes for each of its variants, then "end".
template <class Ctx, class Variant, class ReadVariant, class Run>
void run_cases(const char* inputs, const char* results, const char* who, const std::string& header,
               ReadVariant read_variant, Run run) {
  const std::vector<case_spec<Variant>> cases = read_cases<Variant>(inputs, who, read_variant);
  std::ofstream out(results);
  out << header << '\n';
  for (const case_spec<Variant>& c : cases) {
    const case_entry<Ctx>& ce = find_case<Ctx>(c.name, c.hash, who);
    out << "case " << c.name << '\n';
    for (std::size_t v = 0; v < c.variants.size(); ++v) run(ce, c.variants[v], static_cast<int>(v), out);
    out.flush();
  }
  out << "end\n";
}

// A runner's main: "usage: RUNNER INPUTS RESULTS <options>" and 2 with fewer than two arguments,
// else body()'s exit status: 0, or 1 with the exception's message on stderr.
template <class Body>
int runner_main(int argc, char** argv, const char* options, Body body) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s INPUTS RESULTS %s\n", argv[0], options);
    return 2;
  }
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace jf_fuzz_io
