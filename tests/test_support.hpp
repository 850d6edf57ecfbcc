// What randomised test files share: one seed per test executable, printed so that a failure
// replays (JF_TEST_SEED=<seed> ./build/dev/tests/<name>), a generator drawn from it, and the
// message of an expected exception.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <jetfuse/device.hpp>
#include <jetfuse/shape.hpp>

namespace test_support {

inline std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* env = std::getenv("JF_TEST_SEED");
    const std::uint64_t v = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("random seed %llu (JF_TEST_SEED replays it)\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}
inline std::mt19937_64& rng() {
  static std::mt19937_64 r(seed());
  return r;
}
inline std::int64_t rand_int(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng());
}

// The what() of the E that f throws (a test failure, and "", when it throws none). f's GPU work is
// waited for inside: kernels' index errors are raised at the next synchronisation.
template <class E, class F> std::string message_of(F&& f) {
  try {
    f();
    jf::synchronize();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "the expected exception was not thrown";
  return {};
}

// A numpy table (tests/data/*_table.txt, written by the scripts beside it): lines "case <words>",
// each followed by `lines` lines of whitespace-separated words; lines starting with '#' are
// comments.
struct table_case {
  std::vector<std::string> header;              // the words after "case"
  std::vector<std::vector<std::string>> lines;  // the words of the lines that follow
};
inline std::vector<table_case> read_table(const std::string& path, int lines) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path << " is missing";
  std::vector<table_case> cases;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream h(line);
    table_case c;
    std::string word;
    h >> word;  // "case"
    for (std::string w; h >> w;) c.header.push_back(w);
    for (int k = 0; k < lines; ++k) {
      std::getline(f, line);
      std::istringstream s(line);
      c.lines.emplace_back();
      for (std::string w; s >> w;) c.lines.back().push_back(w);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}
// The words of a table line of values, none for "-" (the scripts' text() of no values).
inline std::vector<std::string> values_of(const std::vector<std::string>& words) {
  return words.size() == 1 && words[0] == "-" ? std::vector<std::string>{} : words;
}
// A shape written in a table as its extents joined by `sep` ("3x4", "3,4"), or `scalar` for 0-d.
inline jf::shape_t parse_shape(const std::string& s, char sep = 'x', const std::string& scalar = "scalar") {
  jf::shape_t r;
  if (s == scalar) return r;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) r.push_back(std::stoll(part));
  return r;
}
// A shape from its extents (a table line of numbers).
inline jf::shape_t shape_of(const std::vector<std::int64_t>& extents) {
  jf::shape_t r;
  for (std::int64_t e : extents) r.push_back(e);
  return r;
}

// The words as T: floats by strtod (hex floats, nan, inf), unsigned integers by strtoull, other
// integers and bools by strtoll.
template <class T> std::vector<T> parse_words(const std::vector<std::string>& words) {
  std::vector<T> v;
  for (const std::string& w : words) {
    if constexpr (std::is_floating_point_v<T>) v.push_back(static_cast<T>(std::strtod(w.c_str(), nullptr)));
    else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>)
      v.push_back(static_cast<T>(std::strtoull(w.c_str(), nullptr, 10)));
    else v.push_back(static_cast<T>(std::strtoll(w.c_str(), nullptr, 10)));
  }
  return v;
}

// A test run on jf::cpu and on jf::cuda, the cuda case skipped (with the reason) where there is no
// GPU: class X : public test_support::on_backends {};
//      INSTANTIATE_TEST_SUITE_P(Backends, X, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);
class on_backends : public ::testing::TestWithParam<jf::device> {
 protected:
  void SetUp() override {
    if (GetParam().kind == jf::device_kind::cuda && !jf::cuda_available())
      GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  }
  jf::device dev() const { return GetParam(); }
};
// A message without its trailing spaces (numpy's index-array shape mismatch ends with one; the
// tables' words do not keep it).
inline std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

inline std::string backend_name(const ::testing::TestParamInfo<jf::device>& info) {
  return info.param.kind == jf::device_kind::cpu ? "cpu" : "cuda";
}

// Calls f.template operator()<T>() with T the element type a table names ("bool", "int32", "int64",
// "float32", "float64"); a test failure for any other name. with_any_dtype also knows the 8- and
// 16-bit and unsigned integers (more instantiations: for the tests of those).
template <class F> void with_dtype(const std::string& name, F&& f) {
  if (name == "bool") f.template operator()<bool>();
  else if (name == "int32") f.template operator()<std::int32_t>();
  else if (name == "int64") f.template operator()<std::int64_t>();
  else if (name == "float32") f.template operator()<float>();
  else if (name == "float64") f.template operator()<double>();
  else ADD_FAILURE() << "unknown dtype " << name;
}
template <class F> void with_any_dtype(const std::string& name, F&& f) {
  if (name == "int8") f.template operator()<std::int8_t>();
  else if (name == "int16") f.template operator()<std::int16_t>();
  else if (name == "uint8") f.template operator()<std::uint8_t>();
  else if (name == "uint16") f.template operator()<std::uint16_t>();
  else if (name == "uint32") f.template operator()<std::uint32_t>();
  else if (name == "uint64") f.template operator()<std::uint64_t>();
  else with_dtype(name, std::forward<F>(f));
}

// Equal values: integers exactly; floats equal or both NaN, and zeros of the same sign.
template <class T>
::testing::AssertionResult same(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " values, want " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok = got[i] == want[i];
    if constexpr (std::is_floating_point_v<T>)
      ok = (std::isnan(got[i]) && std::isnan(want[i])) || (ok && std::signbit(got[i]) == std::signbit(want[i]));
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << +got[i] << ", want " << +want[i];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace test_support
