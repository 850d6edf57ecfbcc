// Element-wise operations on evaluated jf::option_array operands (jetfuse/option_operands.hpp):
// None propagates, against Awkward 2.14's own answers (tests/data/option_operands_table.txt,
// written by tests/data/gen_option_operands_table.py): values with None, type strings and str()
// text, on both backends; the validity shared or AND-ed and broadcast; one kernel per evaluation.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "awkward_values.hpp"
#include "test_support.hpp"

namespace {

using i64 = std::int64_t;

class OptionOperands : public test_support::on_backends {};

struct op_case {
  std::string name;
  std::vector<std::string> values, type, str;
};
struct table_case {
  std::string label, dtype;
  std::vector<std::string> x_offsets, x_content, y_offsets, y_content, d;
  std::vector<op_case> ops;
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream s(line);
  std::vector<std::string> w;
  for (std::string x; s >> x;) w.push_back(x);
  return w;
}

std::vector<table_case> load() {
  std::ifstream f(std::string(JF_TEST_DATA_DIR) + "/option_operands_table.txt");
  EXPECT_TRUE(f.good()) << "tests/data/option_operands_table.txt is missing";
  std::vector<table_case> cases;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> w = words(line);
    const std::string key = w.front();
    w.erase(w.begin());
    if (key == "case") {
      cases.push_back(table_case{w.at(0), w.at(1), {}, {}, {}, {}, {}, {}});
      continue;
    }
    table_case& c = cases.back();
    if (key == "x_offsets") c.x_offsets = test_support::values_of(w);
    else if (key == "x_content") c.x_content = test_support::values_of(w);
    else if (key == "y_offsets") c.y_offsets = test_support::values_of(w);
    else if (key == "y_content") c.y_content = test_support::values_of(w);
    else if (key == "d") c.d = test_support::values_of(w);
    else if (key == "op") c.ops.push_back(op_case{w.at(0), test_support::values_of({w.begin() + 1, w.end()}), {}, {}});
    else if (key == "type") c.ops.back().type = w;
    else if (key == "str") c.ops.back().str = w;
  }
  return cases;
}

template <class T> std::vector<T> numbers(const std::vector<std::string>& w) {
  std::vector<T> v;
  for (const std::string& x : w) v.push_back(static_cast<T>(std::stod(x)));
  return v;
}

// One result against the table: values (None in place, floats within a few ulps), type and str.
template <class R> void expect_case(const op_case& c, const jf::option_array<R>& r) {
  SCOPED_TRACE(c.name);
  const std::vector<std::optional<R>> got = r.to_vector();
  ASSERT_EQ(got.size(), c.values.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(test_support::same_value_ulps<R>(c.values[i], got[i])) << "element " << i;
  EXPECT_EQ(jf::type_string(r), test_support::joined(c.type));
  EXPECT_EQ(test_support::joined(words(jf::to_string(r))), test_support::joined(c.str));
}

template <class T> void run(const table_case& c, jf::device dev) {
  SCOPED_TRACE(c.label + " " + c.dtype);
  const jf::jagged<T> x(jf::array<i64>(numbers<i64>(c.x_offsets), dev), jf::array<T>(numbers<T>(c.x_content), dev));
  const jf::jagged<T> y(jf::array<i64>(numbers<i64>(c.y_offsets), dev), jf::array<T>(numbers<T>(c.y_content), dev));
  const jf::array<T> d(numbers<T>(c.d), dev);
  const jf::option_array<T> best = jf::max(x, -1), worst = jf::min(x, -1), other = jf::max(y, -1);
  const jf::option_array<i64> arg = jf::argmax(x, -1);
  for (const op_case& o : c.ops) {
    if (o.name == "best_times_2_plus_1") expect_case(o, jf::eval(best * 2 + 1));
    else if (o.name == "best_greater") expect_case(o, jf::eval(best > 3));
    else if (o.name == "sqrt_best") expect_case(o, jf::eval(jf::sqrt(jf::abs(best))));
    else if (o.name == "best_minus_dense") expect_case(o, jf::eval(best - d));
    else if (o.name == "best_plus_other") expect_case(o, jf::eval(best + other));
    else if (o.name == "best_times_worst") expect_case(o, jf::eval(best * worst));
    else if (o.name == "argmax_plus_1") expect_case(o, jf::eval(arg + 1));
    else if (o.name == "lazy_max_plus_other") expect_case(o, jf::eval(jf::max(x * 2, -1) + other));
    else if (o.name == "dense_over_best") expect_case(o, jf::eval(d / (best + 100)));
    else ADD_FAILURE() << "unknown operation " << o.name;
  }
}

TEST_P(OptionOperands, MatchAwkward) {
  const std::vector<table_case> cases = load();
  ASSERT_EQ(cases.size(), 12u);
  for (const table_case& c : cases) {
    if (c.dtype == "float64") run<double>(c, dev());
    else if (c.dtype == "float32") run<float>(c, dev());
    else run<std::int32_t>(c, dev());
  }
}

// One option operand of the result's shape: the result shares its validity (no kernel for it) and
// the values take one kernel; two operands: their validity AND-ed in one more kernel.
TEST_P(OptionOperands, ValiditySharedOrCombined) {
  const jf::jagged<float> x({{1, 5}, {}, {2}, {}, {7, 3, 9}}, dev());
  const jf::option_array<float> best = jf::max(x, -1), worst = jf::min(x, -1);
  jf::reset_stats();
  const jf::option_array<float> r = best * 2 + 1;
  EXPECT_EQ(jf::stats().launches + jf::stats().cpu_evaluations, 1u);
  EXPECT_EQ(r.valid().raw_data(), best.valid().raw_data());
  EXPECT_EQ(jf::to_string(r), "[11, None, 5, None, 19]");
  jf::reset_stats();
  const jf::option_array<float> spread = best - worst;
  EXPECT_EQ(jf::stats().launches + jf::stats().cpu_evaluations, 2u);
  EXPECT_EQ(spread.to_vector(), (std::vector<std::optional<float>>{4.f, std::nullopt, 0.f, std::nullopt, 6.f}));
  // The inputs are untouched.
  EXPECT_EQ(best.to_vector(), (std::vector<std::optional<float>>{5.f, std::nullopt, 2.f, std::nullopt, 9.f}));
}

// numpy broadcasting of an option operand against a larger dense one: the validity is a broadcast
// view of the operand's (an element is None where its column's option is).
TEST_P(OptionOperands, BroadcastAgainstADenseMatrix) {
  const jf::jagged<double> x({{1.5}, {}, {2.5, 0.5}}, dev());
  const jf::option_array<double> best = jf::max(x, -1);
  const jf::array<double> m(std::vector<double>{10, 20, 30, 40, 50, 60}, jf::shape_t{2, 3}, dev());
  const jf::option_array<double> r = m + best;
  EXPECT_EQ(r.shape(), (jf::shape_t{2, 3}));
  EXPECT_EQ(r.to_vector(),
            (std::vector<std::optional<double>>{11.5, std::nullopt, 32.5, 41.5, std::nullopt, 62.5}));
  EXPECT_EQ(jf::type_string(r), "2 * 3 * ?float64");
  // A padded (regular n-d) option array with a dense row broadcast over it.
  const jf::option_array<double> p = jf::pad_none(x, 2, true);
  const jf::array<double> row(std::vector<double>{100, 200}, dev());
  EXPECT_EQ(jf::to_string(jf::eval(p + row)), "[[102, None], [None, None], [102, 200]]");
}

// Operands on another backend raise, as for dense arrays. (Reductions of option values and option
// operands beside jagged ones do not compile: tests/compile_fail/reduce_option_operand.cpp,
// option_beside_jagged.cpp.)
TEST_P(OptionOperands, BackendsAreNotMixed) {
  if (!jf::cuda_available()) GTEST_SKIP() << "needs both backends";
  const jf::jagged<float> x({{1, 5}, {}}, dev());
  const jf::option_array<float> best = jf::max(x, -1);
  const jf::array<float> other(std::vector<float>{1, 2}, dev() == jf::cpu ? jf::cuda : jf::cpu);
  EXPECT_THROW(jf::eval(best + other), jf::backend_mismatch);
}

INSTANTIATE_TEST_SUITE_P(Backends, OptionOperands, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
