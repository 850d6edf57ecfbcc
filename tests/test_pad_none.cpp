// jf::pad_none (jetfuse/pad_none.hpp), jf::fill_none / jf::is_none of its results, the n-d
// jf::option_array and jf::jagged_option, and per-list reductions with jf::keepdims, against
// Awkward 2.14's own answers (tests/data/pad_none_table.txt, written by
// tests/data/gen_pad_none_table.py): values with None, type strings, str() and repr() text, on
// both backends; the errors; fill_none(pad_none(x, k, true), v) as one kernel; the GPU against the
// CPU on fresh random lists (JF_TEST_SEED replays them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::values_of;

class PadNone : public test_support::on_backends {};

// A case: the header's words after "case" (the last: how many lines follow) and its raw lines.
struct raw_case {
  std::vector<std::string> header;
  std::vector<std::string> lines;
};
std::vector<std::string> words(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> w;
  for (std::string x; s >> x;) w.push_back(x);
  return w;
}
std::vector<raw_case> read_cases(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path << " is missing";
  std::vector<raw_case> cases;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    raw_case c;
    c.header = words(line);
    c.header.erase(c.header.begin());  // "case"
    const int n = std::stoi(c.header.back());
    for (int k = 0; k < n && std::getline(f, line); ++k) c.lines.push_back(line);
    cases.push_back(std::move(c));
  }
  return cases;
}

template <class T>
std::vector<T> parsed(const std::string& line) {
  return test_support::parse_words<T>(values_of(words(line)));
}
template <class T>
std::vector<std::optional<T>> optionals(const std::string& line) {
  std::vector<std::optional<T>> out;
  for (const std::string& w : values_of(words(line))) {
    if (w == "None")
      out.emplace_back();
    else
      out.emplace_back(test_support::parse_words<T>({w})[0]);
  }
  return out;
}

// The table's four content dtypes (fewer instantiations than test_support::with_dtype).
template <class F>
void with_table_dtype(const std::string& name, F&& f) {
  if (name == "bool")
    f.template operator()<bool>();
  else if (name == "int32")
    f.template operator()<std::int32_t>();
  else if (name == "float32")
    f.template operator()<float>();
  else if (name == "float64")
    f.template operator()<double>();
  else
    ADD_FAILURE() << "unknown dtype " << name;
}

template <class T>
jf::jagged<T> lists_of(const raw_case& c, jf::device dev) {
  return jf::jagged<T>(jf::array<i64>(parsed<i64>(c.lines[0]), dev), jf::array<T>(parsed<T>(c.lines[1]), dev));
}

template <class T>
std::vector<std::optional<T>> flat(const std::vector<std::vector<std::optional<T>>>& lists) {
  std::vector<std::optional<T>> out;
  for (const auto& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

template <class T>
void check_pad(const raw_case& c, jf::device dev) {
  const auto& L = c.lines;
  SCOPED_TRACE("pad " + c.header[1] + " " + c.header[2] + " target " + c.header[3]);
  const jf::jagged<T> x = lists_of<T>(c, dev);
  const i64 n = x.size(), target = std::stoll(c.header[3]);
  const T fill = test_support::parse_words<T>({c.header[4]})[0];
  // clip=true: n * target * ?T
  if (L[2] == "error") {
    EXPECT_EQ(message_of<jf::value_error>([&] { (void)jf::pad_none(x, target, true); }),
              "negative dimensions are not allowed");
  } else {
    const jf::option_array<T> p = jf::pad_none(x, target, true);
    EXPECT_EQ(p.backend(), dev);
    EXPECT_EQ(p.shape(), (jf::shape_t{n, target}));
    EXPECT_EQ(p.to_vector(), optionals<T>(L[2]));
    EXPECT_EQ(jf::to_string(p), L[3]);
    EXPECT_EQ(jf::awkward_repr(p), L[4]);
    EXPECT_EQ(jf::type_string(p), L[5]);
    EXPECT_EQ(jf::type_string(jf::pad_none(x, target, true)), L[5]);
    EXPECT_EQ(jf::awkward_repr(jf::pad_none(x, target, true)), L[4]);
    const jf::array<T> f = jf::fill_none(jf::pad_none(x, target, true), fill);
    EXPECT_EQ(f.device(), dev);
    EXPECT_EQ(f.shape(), (jf::shape_t{n, target}));
    EXPECT_EQ(f.to_vector(), parsed<T>(L[11]));
    EXPECT_EQ(jf::awkward_str(f), L[12]);
    EXPECT_EQ(jf::fill_none(p, fill).to_vector(), parsed<T>(L[11]));
    EXPECT_EQ(jf::is_none(p).to_vector(), parsed<bool>(L[14]));
  }
  // clip=false: n * var * ?T
  const jf::jagged_option<T> q = jf::pad_none(x, target);
  EXPECT_EQ(q.backend(), dev);
  EXPECT_EQ(jf::num(q.values()).to_vector(), parsed<i64>(L[6]));
  EXPECT_EQ(flat(q.to_vector()), optionals<T>(L[7]));
  EXPECT_EQ(jf::to_string(q), L[8]);
  EXPECT_EQ(jf::awkward_repr(q), L[9]);
  EXPECT_EQ(jf::type_string(q), L[10]);
  EXPECT_EQ(jf::to_string(jf::pad_none(x, target, false, -1)), L[8]);
  const jf::jagged<T> qf = jf::fill_none(jf::pad_none(x, target), fill);
  EXPECT_EQ(jf::flatten(qf).to_vector(), parsed<T>(L[13]));
  EXPECT_EQ(jf::num(qf).to_vector(), parsed<i64>(L[6]));
  std::vector<bool> none;
  for (const auto& v : flat(q.to_vector())) none.push_back(!v.has_value());
  EXPECT_EQ(jf::flatten(jf::is_none(q)).to_vector(), none);
}

// Awkward's value of a reduction against ours: integers and bools exactly, floats within `rel`
// (the order of a sum's additions may differ on the GPU).
template <class R>
::testing::AssertionResult close(const std::vector<R>& got, const std::vector<R>& want, double rel) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " values, want " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok = got[i] == want[i];
    if constexpr (std::is_floating_point_v<R>)
      ok = ok || (std::isnan(got[i]) && std::isnan(want[i])) ||
           std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <=
               rel * std::abs(static_cast<double>(want[i]));
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << +got[i] << ", want " << +want[i];
  }
  return ::testing::AssertionSuccess();
}

template <class T, class E>
void check_reduced(const raw_case& c, jf::device dev, const E& e) {
  const auto& L = c.lines;
  const std::string& red = c.header[3];
  const auto r = jf::eval(e);
  using R = typename decltype(r)::value_type;
  const i64 n = std::stoll(std::to_string(jf::num(lists_of<T>(c, dev), 0).item()));
  EXPECT_EQ(r.shape(), (jf::shape_t{n, 1}));
  // Documented difference: mean, var and std of float32 lists are float32 (Awkward: float64).
  const bool f32_moment = std::is_same_v<T, float> && (red == "mean" || red == "var" || red == "std");
  std::string type = L[3];
  if (f32_moment) type.replace(type.rfind("float64"), 7, "float32");
  const bool float_sum =
      std::is_floating_point_v<R> && (red == "sum" || red == "prod" || red == "mean" || red == "var" || red == "std");
  if constexpr (requires { r.valid(); }) {
    EXPECT_EQ(jf::type_string(r), type);
    EXPECT_EQ(r.to_vector(), optionals<R>(L[2]));
  } else {
    EXPECT_EQ(jf::awkward_type_string(r), type);
    EXPECT_TRUE(close(r.to_vector(), parsed<R>(L[2]), std::is_same_v<R, float> ? 1e-5 : 1e-12));
  }
  // The text, where the value is Awkward's to the last bit.
  if (!f32_moment && !(float_sum && dev != jf::cpu)) {
    EXPECT_EQ(jf::awkward_str(r), L[4]);
  }
}

template <class T>
void check_keep(const raw_case& c, jf::device dev) {
  const auto& L = c.lines;
  const std::string& red = c.header[3];
  SCOPED_TRACE("keepdims " + c.header[1] + " " + c.header[2] + " " + red);
  if (L[2] == "error") return;  // Awkward does not reduce this dtype so (none in this table)
  const jf::jagged<T> x = lists_of<T>(c, dev);
  const auto k = jf::keepdims;
  if (red == "sum")
    check_reduced<T>(c, dev, jf::sum(x, -1, k));
  else if (red == "prod")
    check_reduced<T>(c, dev, jf::prod(x, -1, k));
  else if (red == "mean")
    check_reduced<T>(c, dev, jf::mean(x, -1, k));
  else if (red == "var")
    check_reduced<T>(c, dev, jf::var(x, -1, k));
  else if (red == "std")
    check_reduced<T>(c, dev, jf::std(x, -1, k));
  else if (red == "any")
    check_reduced<T>(c, dev, jf::any(x, -1, k));
  else if (red == "all")
    check_reduced<T>(c, dev, jf::all(x, 1, k));
  else if (red == "count_nonzero")
    check_reduced<T>(c, dev, jf::count_nonzero(x, -1, k));
  else if (red == "min")
    check_reduced<T>(c, dev, jf::min(x, -1, k));
  else if (red == "max")
    check_reduced<T>(c, dev, jf::max(x, 1, k));
  else if (red == "argmin")
    check_reduced<T>(c, dev, jf::argmin(x, -1, k));
  else if (red == "argmax")
    check_reduced<T>(c, dev, jf::argmax(x, -1, k));
  else
    ADD_FAILURE() << "unknown reducer " << red;
}

TEST_P(PadNone, MatchesAwkward) {
  const auto cases = read_cases(JF_TEST_DATA_DIR "/pad_none_table.txt");
  ASSERT_EQ(cases.size(), 467u);  // 131 pad_none cases, 336 keepdims cases
  for (const auto& c : cases) {
    ASSERT_EQ(c.lines.size(), static_cast<std::size_t>(std::stoi(c.header.back()))) << "a truncated table";
    with_table_dtype(c.header.at(1), [&]<class T>() {
      if (c.header[0] == "pad")
        check_pad<T>(c, dev());
      else
        check_keep<T>(c, dev());
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PadNone, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
