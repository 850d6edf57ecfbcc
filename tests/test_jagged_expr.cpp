// Expressions over jagged arrays (include/jetfuse/expr/jagged_expr.hpp, src/engine/evaluate_lists.cpp,
// the CPU list executor and the CUDA list kernels): element-wise operations with a per-list value
// broadcast onto its list, per-list reductions (None for empty lists where Awkward gives None), a
// reduction over every element — against Awkward's own answers (tests/data/jagged_expr_table.txt,
// written by tests/data/gen_jagged_expr_table.py), and jf::cuda against jf::cpu on fresh random
// lists (printed seed) with empty lists, one long list and offsets not starting at 0.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "awkward_values.hpp"
#include "explained_cuda.hpp"
#include "jetfuse/jetfuse.hpp"
#include "test_support.hpp"
#ifdef JF_HAVE_CUDA
#include "cuda/runtime.hpp"
#endif
#include "jetfuse/ir/codegen.hpp"

namespace {

using i64 = std::int64_t;

struct expr_case {
  std::string dataset, dtype, op;
  std::vector<std::string> offsets, content, met, counts, values, result_dtype;
};

std::vector<expr_case> table() {
  std::vector<expr_case> out;
  for (const test_support::table_case& t : test_support::read_table(JF_TEST_DATA_DIR "/jagged_expr_table.txt", 6))
    out.push_back(expr_case{t.header.at(0), t.header.at(1), t.header.at(2), test_support::values_of(t.lines[0]),
                            test_support::values_of(t.lines[1]), test_support::values_of(t.lines[2]),
                            test_support::values_of(t.lines[3]), test_support::values_of(t.lines[4]), t.lines[5]});
  return out;
}

template <class R>
void expect_values(const expr_case& c, const std::vector<std::optional<R>>& got) {
  ASSERT_EQ(got.size(), c.values.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    EXPECT_TRUE(test_support::same_value_ulps<R>(c.values[k], got[k])) << "at " << k;
}
template <class R>
std::vector<std::optional<R>> all_valid(const std::vector<R>& v) {
  return std::vector<std::optional<R>>(v.begin(), v.end());
}

// Awkward's dtypes, except where numpy's rule is kept (design.md: mean, var, std of float32 are
// float32 in jetfuse, float64 in Awkward 2.14).
template <class R>
void expect_dtype(const expr_case& c) {
  const std::string want = c.result_dtype.at(0);
  const std::string have(jf::name(jf::dtype_v<R>));
  const std::string op = c.op.ends_with("_axis0") ? c.op.substr(0, c.op.size() - 6) : c.op;
  const bool awkward_float64 =
      c.dtype == "float32" && want == "float64" && (op == "mean" || op == "var" || op == "std" || op == "centered");
  if (!awkward_float64) {
    EXPECT_EQ(have, want);
  }
}

template <class R>
void check_jagged_result(const expr_case& c, const jf::jagged<R>& y, const jf::jagged<double>& shape_of) {
  expect_dtype<R>(c);
  EXPECT_EQ(jf::num(y).to_vector(), test_support::parse_words<i64>(c.counts));
  EXPECT_EQ(y.size(), shape_of.size());
  expect_values<R>(c, all_valid(jf::flatten(y).to_vector()));
}
template <class R>
void check_dense(const expr_case& c, const jf::array<R>& y) {
  expect_dtype<R>(c);
  expect_values<R>(c, all_valid(y.to_vector()));
}
template <class R>
void check_option(const expr_case& c, const jf::option_array<R>& y) {
  expect_dtype<R>(c);
  expect_values<R>(c, y.to_vector());
}

// Across the lists (axis=0 or -2): Awkward's column of every list longer than j.
template <class T>
void run_across_case(const expr_case& c, const jf::jagged<T>& x, const jf::array<double>& met) {
  const std::string op = c.op.substr(0, c.op.rfind('_'));
  if constexpr (!std::is_same_v<T, bool>) {
    if (op == "prod") return check_dense(c, jf::eval(jf::prod(x, 0)));
    if (op == "mean") return check_dense(c, jf::eval(jf::mean(x, 0)));
    if (op == "var") return check_dense(c, jf::eval(jf::var(x, -2)));
    if (op == "std") return check_dense(c, jf::eval(jf::std(x, 0)));
    if (c.op == "sum_axism2") return check_dense(c, jf::eval(jf::sum(x, -2)));
    if (op == "max_expr") return check_option(c, jf::eval(jf::max(x * 2 + met, 0)));
    if (op == "sum_selected") return check_dense(c, jf::eval(jf::sum(x(x > T(0)), 0)));
    if (op == "argmax_selected") return check_option(c, jf::eval(jf::argmax(x(x > T(0)), 0)));
  }
  if (op == "sum") return check_dense(c, jf::eval(jf::sum(x, 0)));
  if (op == "min") return check_option(c, jf::eval(jf::min(x, 0)));
  if (op == "max") return check_option(c, jf::eval(jf::max(x, -2)));
  if (op == "argmin") return check_option(c, jf::eval(jf::argmin(x, 0)));
  if (op == "argmax") return check_option(c, jf::eval(jf::argmax(x, -2)));
  if (op == "count") return check_dense(c, jf::count(x, 0));
  if (op == "count_nonzero") return check_dense(c, jf::eval(jf::count_nonzero(x, 0)));
  if (op == "any") return check_dense(c, jf::eval(jf::any(x, 0)));
  if (op == "all") return check_dense(c, jf::eval(jf::all(x, -2)));
  ADD_FAILURE() << "unknown op " << c.op;
}

template <class T>
void run_case(const expr_case& c, jf::device dev) {
  SCOPED_TRACE(c.dataset + " " + c.dtype + " " + c.op);
  const std::vector<i64> off = test_support::parse_words<i64>(c.offsets);
  const jf::jagged<T> x(jf::array<i64>(off, dev), jf::array<T>(test_support::parse_words<T>(c.content), dev));
  const jf::array<double> met(test_support::parse_words<double>(c.met), dev);
  const jf::jagged<double> lists(jf::array<i64>(off, dev), jf::zeros<double>(jf::shape_t{off.back()}, dev));
  const std::string& op = c.op;
  if constexpr (!std::is_same_v<T, bool>) {
    if (op == "mul_add") return check_jagged_result(c, jf::eval(x * 2 + 1), lists);
    if (op == "add_met") return check_jagged_result(c, jf::eval(x + met), lists);
    if (op == "centered") return check_jagged_result(c, jf::eval(x - jf::mean(x, -1)), lists);
    if (op == "sqrt_expr") return check_jagged_result(c, jf::eval(jf::sqrt(x * x * 2 + met * met)), lists);
    if (op == "max_expr") return check_option(c, jf::eval(jf::max(jf::sqrt(x * x * 2 + met * met) - 1, -1)));
    if (op == "prod") return check_dense(c, jf::eval(jf::prod(x, -1)));
    if (op == "mean") return check_dense(c, jf::eval(jf::mean(x, -1)));
    if (op == "var") return check_dense(c, jf::eval(jf::var(x, -1)));
    if (op == "std") return check_dense(c, jf::eval(jf::std(x, -1)));
    // Positions among the selected elements (None where none is selected).
    if (op == "argmax_gt0") return check_option(c, jf::eval(jf::argmax(x(x > T(0)), -1)));
    if (op == "argmin_gt0") return check_option(c, jf::eval(jf::argmin(x(x > T(0)), 1)));
    if (op == "argmax_ne1") return check_option(c, jf::eval(jf::argmax(x(x != T(1)), -1)));
    if (op == "argmin_ne1") return check_option(c, jf::eval(jf::argmin(x(x != T(1)), -1)));
  }
  if (op.ends_with("_axis0") || op == "sum_axism2") return run_across_case<T>(c, x, met);
  if (op == "sum_all") return check_dense(c, jf::eval(jf::sum(x)));
  if (op == "sum") return check_dense(c, jf::eval(jf::sum(x, -1)));
  if (op == "min") return check_option(c, jf::eval(jf::min(x, -1)));
  if (op == "max") return check_option(c, jf::eval(jf::max(x, 1)));
  if (op == "argmin") return check_option(c, jf::eval(jf::argmin(x, -1)));
  if (op == "argmax") return check_option(c, jf::eval(jf::argmax(x, 1)));
  if (op == "count_nonzero") return check_dense(c, jf::eval(jf::count_nonzero(x, -1)));
  if (op == "any") return check_dense(c, jf::eval(jf::any(x, -1)));
  if (op == "all") return check_dense(c, jf::eval(jf::all(x, -1)));
  ADD_FAILURE() << "unknown op " << op;
}

// Equal values, NaN equal to NaN whatever its sign (the mean of an empty list is 0/0), None to None.
template <class V>
bool same_or_nan(const V& a, const V& b) {
  if constexpr (std::is_floating_point_v<V>)
    return a == b || (std::isnan(a) && std::isnan(b));
  else
    return a == b;
}
template <class V>
bool same_or_nan(const std::optional<V>& a, const std::optional<V>& b) {
  return a.has_value() == b.has_value() && (!a || same_or_nan(*a, *b));
}
template <class V>
void expect_same_values(const std::vector<V>& a, const std::vector<V>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_TRUE(same_or_nan(a[k], b[k])) << "at " << k;
}

class JaggedExpr : public test_support::on_backends {};

TEST_P(JaggedExpr, MatchesAwkward) {
  const std::vector<expr_case> cases = table();
  ASSERT_GT(cases.size(), 400u);
  for (const expr_case& c : cases) test_support::with_dtype(c.dtype, [&]<class T>() { run_case<T>(c, dev()); });
}

// Results share the operand's offsets (identity: later operations need no comparison); an operand
// with other offsets of the same list lengths (a copy) is compared once; other lengths raise.
TEST_P(JaggedExpr, OffsetsSharedComparedOrRefused) {
  const jf::jagged<double> x({{1, 2, 3}, {}, {4}}, dev());
  const jf::jagged<double> y = x * 2;
  EXPECT_EQ(y.offsets().buffer(), x.offsets().buffer());
  const jf::jagged<double> copy({{10, 20, 30}, {}, {40}}, dev());
  const jf::jagged<double> z = x + copy;
  EXPECT_EQ(z.to_vector(), (std::vector<std::vector<double>>{{11, 22, 33}, {}, {44}}));
  const jf::jagged<double> other({{1, 2}, {3}, {4}}, dev());
  EXPECT_THROW((void)jf::jagged<double>(x + other), jf::value_error);
  const jf::jagged<double> fewer({{1, 2, 3}, {}}, dev());
  EXPECT_THROW((void)jf::jagged<double>(x + fewer), jf::value_error);
  // A per-list value must have one entry per list.
  EXPECT_THROW((void)jf::jagged<double>(x + jf::array<double>(std::vector<double>{1, 2}, dev())), jf::shape_error);
  // A slice (offsets not starting at 0): the result's content starts at 0, its lengths are the slice's.
  const jf::jagged<double> s = x(jf::range(1, jf::none));
  const jf::jagged<double> t = s + 1;
  EXPECT_EQ(t.to_vector(), (std::vector<std::vector<double>>{{}, {5}}));
  EXPECT_EQ(t.offsets().to_vector(), (std::vector<i64>{0, 0, 1}));
  const jf::jagged<double> u = t + s;  // other offsets, the same lengths
  EXPECT_EQ(u.to_vector(), (std::vector<std::vector<double>>{{}, {9}}));
}

TEST_P(JaggedExpr, AxisErrors) {
  const jf::jagged<float> x({{1, 2}, {}, {3}}, dev());
  EXPECT_THROW((void)jf::array<double>(jf::sum(x, 2)), jf::axis_error);
  EXPECT_THROW((void)jf::array<double>(jf::sum(x, -3)), jf::axis_error);
  EXPECT_THROW((void)jf::option_array<float>(jf::max(x)), jf::value_error);  // axis=None with None: flatten first
  EXPECT_EQ(jf::max(jf::flatten(x)).item(), 3.0f);
  // Awkward 2.14's ValueError of its reducers (an AxisError in jetfuse).
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { (void)jf::array<double>(jf::sum(x, 2)); }),
            "axis=2 exceeds the depth of the nested list structure (which is 2)");
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { (void)jf::option_array<float>(jf::max(x, -3)); }),
            "axis=-3 exceeds the depth of the nested list structure (which is 2)");
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { (void)jf::count(x, 2); }),
            "axis=2 exceeds the depth of the nested list structure (which is 2)");
  // Across the lists: at the root of an expression (inside one, the result's length is not a list's).
  EXPECT_EQ(jf::array<double>(jf::sum(x, 0)).to_vector(), (std::vector<double>{4, 2}));
  EXPECT_NE(test_support::message_of<jf::value_error>([&] {
              (void)jf::array<double>(jf::sum(x, 0) * 2);
            }).find("evaluate it first"),
            std::string::npos);
  EXPECT_NE(test_support::message_of<jf::value_error>([&] {
              (void)jf::array<double>(jf::sum(x, 0, jf::keepdims));
            }).find("keepdims"),
            std::string::npos);
  EXPECT_EQ(jf::count(x).item(), 3);
  EXPECT_EQ(jf::count(x, -1).to_vector(), (std::vector<i64>{2, 0, 1}));
}

// int32 offsets (Awkward's Index32) are kept as given: the jagged array holds the user's buffer,
// expressions read it as int32 (the variant key has the offsets' dtype: the same expression types
// on int64 offsets first, then int32, then int64 again), results equal the int64 version's.
TEST_P(JaggedExpr, Int32OffsetsWithoutACopy) {
  const std::vector<std::int32_t> o32 = {2, 5, 5, 6, 10, 10, 11};  // from 2: a slice's
  const std::vector<i64> o64(o32.begin(), o32.end());
  const jf::array<float> values(std::vector<float>{9, 9, 1, -2, 3, 4, 5, 6, 7, 8, 9}, dev());
  const jf::array<std::int32_t> off32(o32, dev());
  const jf::jagged<float> x(off32, values);
  const jf::jagged<float> w(jf::array<i64>(o64, dev()), values);
  EXPECT_EQ(x.stored_offsets().buffer(), off32.buffer());
  EXPECT_EQ(x.stored_offsets().dtype(), jf::dtype::int32);
  const jf::array<float> met(std::vector<float>{1, 2, 3, 4, 5, 6}, dev());
  auto same = [](const auto& a, const auto& b) { expect_same_values(a.to_vector(), b.to_vector()); };
  for (const bool narrow : {false, true, false}) {
    SCOPED_TRACE(narrow ? "int32" : "int64");
    const jf::jagged<float>& v = narrow ? x : w;
    same(jf::eval(jf::sum(v * 2 + met, -1)), jf::eval(jf::sum(w * 2 + met, -1)));
    EXPECT_EQ(jf::eval(jf::max(v, -1)).to_vector(),
              (std::vector<std::optional<float>>{3, std::nullopt, 4, 8, std::nullopt, 9}));
    same(jf::eval(jf::argmax(v(v > 2.f), -1)), jf::eval(jf::argmax(w(w > 2.f), -1)));
    same(jf::eval(jf::mean(v, 1)), jf::eval(jf::mean(w, 1)));
    EXPECT_EQ(jf::eval(jf::sum(v)).item(), 41.f);  // axis=None: every element
    same(jf::eval(jf::sum(v, 0)), jf::eval(jf::sum(w, 0)));
    same(jf::eval(jf::argmax(v, 0)), jf::eval(jf::argmax(w, 0)));
    same(jf::flatten(jf::eval(v * 2 + met)), jf::flatten(jf::eval(w * 2 + met)));
    auto [a, b] = jf::unzip(jf::combinations(v, 2));  // a pairs kernel over the int32 offsets
    EXPECT_EQ(jf::eval(jf::max(a * b, -1)).to_vector(),
              (std::vector<std::optional<float>>{3, std::nullopt, std::nullopt, 56, std::nullopt, std::nullopt}));
  }
  // With int64 operands of the same lengths (compared once), and sliced: still the user's buffer.
  same(jf::flatten(jf::eval(x + w)), jf::flatten(jf::eval(w * 2)));
  const jf::jagged<float> s = x(jf::range(1, jf::none));
  EXPECT_EQ(s.stored_offsets().buffer(), off32.buffer());
  EXPECT_EQ(jf::eval(jf::max(s, -1)).to_vector(),
            (std::vector<std::optional<float>>{std::nullopt, 4, 8, std::nullopt, 9}));
  // Offsets from 0: an element-wise result shares them (int32 stays int32).
  const jf::array<std::int32_t> from0(std::vector<std::int32_t>{0, 2, 2, 5}, dev());
  const jf::jagged<float> z(from0, values(jf::range(0, 5)));
  const jf::jagged<float> z2 = z * 2;
  EXPECT_EQ(z2.stored_offsets().buffer(), from0.buffer());
  EXPECT_EQ(z2.to_vector(), (std::vector<std::vector<float>>{{18, 18}, {}, {2, -4, 6}}));
  // offsets() widens once, on the backend (what the structure functions read).
  EXPECT_EQ(x.offsets().to_vector(), o64);
  EXPECT_EQ(&x.offsets(), &x.offsets());
  EXPECT_EQ(jf::num(x).to_vector(), jf::num(w).to_vector());
  EXPECT_EQ(x.to_vector(), w.to_vector());
  // Awkward's validity check on int32 offsets too.
  EXPECT_THROW((void)jf::jagged<float>(jf::array<std::int32_t>(std::vector<std::int32_t>{0, 3, 2}, dev()), values),
               jf::value_error);
}

// The CUDA kernels for int32 offsets (jf::explain_cuda: no GPU needed) read them as int32 and
// compile with NVRTC: the list kernel, the full reduction over the elements, the pairs kernel.
TEST(JaggedExprCuda, Int32OffsetsKernelsCompile) {
  const jf::jagged<float> x(jf::array<std::int32_t>(std::vector<std::int32_t>{0, 2, 2, 5}),
                            jf::array<float>(std::vector<float>{1, 2, 3, 4, 5}));
  auto [a, b] = jf::unzip(jf::combinations(x, 2));
  const std::string plans[] = {jf::explain_cuda(jf::max(x * 2, -1)), jf::explain_cuda(jf::sum(x * 2)),
                               jf::explain_cuda(jf::sum(a * b, -1))};
  for (const std::string& e : plans) {
    SCOPED_TRACE(e);
    EXPECT_NE(e.find("const int* __restrict__ jf_off = "), std::string::npos);
    test_support::expect_explained_cuda_compiles(e);
  }
#ifndef JF_HAVE_CUDA
  GTEST_SKIP() << "built without the CUDA toolkit: NVRTC compilation not checked";
#endif
}

// The offsets' validation records the longest list; the CUDA list kernel leaves out the paths for
// longer lists (jf::explain_cuda: no GPU needed): none for lists of at most 16 elements, the block's
// for at most 4096, every path for longer ones (and for offsets made on the device, whose lists the
// host never saw); a slice keeps its parent's bound.
TEST(JaggedExprCuda, LongestListChoosesTheKernelsPaths) {
  auto make = [](std::size_t longest) {
    std::vector<std::vector<float>> lists{{3, 1}, {}, std::vector<float>(longest, 2.0f), {4}};
    return jf::jagged<float>(lists);
  };
  struct want {
    std::size_t longest;
    const char* said;  // in the launch's description
    bool warp, block;
  };
  for (const want& w : {want{16, "(lists of at most 16 elements)", false, false},
                        want{17, "(lists of at most 4096 elements)", true, false},
                        want{4096, "(lists of at most 4096 elements)", true, false}, want{4097, nullptr, true, true}}) {
    const std::string e = jf::explain_cuda(jf::sum(make(w.longest) * 2, -1));
    SCOPED_TRACE(e);
    const std::string body = e.substr(e.find("extern \"C\" __global__"));
    if (w.said)
      EXPECT_NE(e.find(w.said), std::string::npos);
    else
      EXPECT_EQ(e.find("(lists of at most"), std::string::npos);
    EXPECT_EQ(body.find("__ballot_sync") != std::string::npos, w.warp);
    EXPECT_EQ(body.find("s_big") != std::string::npos, w.block);
  }
  const jf::jagged<float> x = make(3), wide = make(100);
  const std::string sliced = jf::explain_cuda(jf::sum(x(jf::range(1, jf::range::none)), -1));
  EXPECT_NE(sliced.find("(lists of at most 16 elements)"), std::string::npos) << sliced;
  const std::string sliced_wide = jf::explain_cuda(jf::max(wide(jf::range(0, 2)), -1));
  EXPECT_NE(sliced_wide.find("(lists of at most 4096 elements)"), std::string::npos) << sliced_wide;
  // A masked array's offsets, made from counts on the host here: known too.
  const jf::jagged<float> masked = x(x > 1.5f);
  const std::string m = jf::explain_cuda(jf::sum(masked, -1));
  EXPECT_NE(m.find("(lists of at most 16 elements)"), std::string::npos) << m;
  // An option result is described as it runs: its validity the kernel's second output.
  const std::string opt = jf::explain_cuda(jf::max(x, -1)), plain = jf::explain_cuda(jf::sum(x, -1));
  EXPECT_NE(opt.find("bool* __restrict__ out1"), std::string::npos) << opt;
  EXPECT_EQ(plain.find("out1"), std::string::npos) << plain;
}

// argmin/argmax of x(m): the position among the selected elements, of an expression selected
// ((x * 2)(m)) too; an expression of x(m) has no such position (the message says what to write).
TEST_P(JaggedExpr, ArgOfSelected) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const jf::jagged<float> x({{5, 1, 7, 7, 2}, {}, {1, 1}, {3, nan, 9, nan}, {8, 30, 8}}, dev());
  using opt = std::vector<std::optional<i64>>;
  EXPECT_EQ(jf::option_array<i64>(jf::argmax(x(x > 1.5f), -1)).to_vector(), (opt{1, std::nullopt, std::nullopt, 1, 1}));
  EXPECT_EQ(jf::option_array<i64>(jf::argmin(x(x != 1.f), -1)).to_vector(), (opt{3, std::nullopt, std::nullopt, 1, 0}));
  EXPECT_EQ(jf::option_array<i64>(jf::argmax((x * -1)(x < 10.f), -1)).to_vector(), (opt{1, std::nullopt, 0, 0, 0}));
  // Evaluated when called (an option per-list value): beside other per-list values, None where any
  // operand is (Awkward: ak.argmax(x[x > 1.5], -1) - ak.argmin(x[x != 1], -1) + ak.count(x, -1)).
  EXPECT_EQ(
      jf::option_array<i64>(jf::argmax(x(x > 1.5f), -1) - jf::argmin(x(x != 1.f), -1) + jf::count(x, -1)).to_vector(),
      (opt{1 - 3 + 5, std::nullopt, std::nullopt, 1 - 1 + 4, 1 - 0 + 3}));
  EXPECT_EQ(jf::option_array<float>(jf::max(x(x < 8.f), -1) * jf::argmin(x(x != 1.f), 1)).to_vector(),
            (std::vector<std::optional<float>>{21, std::nullopt, std::nullopt, 3, std::nullopt}));
  // keepdims: the materialised selection's (n, 1) result.
  const jf::jagged<float> selected = x(x > 1.5f);
  EXPECT_EQ(jf::eval(jf::argmax(x(x > 1.5f), -1, jf::keepdims)).to_vector(),
            jf::eval(jf::argmax(selected, -1, jf::keepdims)).to_vector());
  EXPECT_NE(test_support::message_of<jf::value_error>([&] {
              (void)jf::eval(jf::argmax(x(x > 1.5f) * 2, -1));
            }).find("apply the mask last"),
            std::string::npos);
}

// jf::cuda against jf::cpu on fresh random lists: Poisson(2) lengths, empty lists, one long list,
// lists on both sides of the list kernel's thresholds, a slice (offsets starting past 0), the
// five-operation pipeline and every per-list reduction.
// Per-list reductions on the CPU of lists of every length class (empty, shorter than the 8 lanes,
// one pairwise block, several, more than one piece of 16384): exact integer data against host
// loops, float sums of multiples of 1/4 (exact), argmax's first position, offsets not from 0.
TEST(JaggedExprCpu, PerListReductionsOfEveryLength) {
  std::mt19937_64 r(2026);
  std::uniform_int_distribution<i64> u(-50, 50);
  const std::vector<i64> lengths = {0, 1, 2, 7, 8, 9, 0, 127, 128, 129, 1000, 16384, 16385, 40000, 3, 0, 5};
  std::vector<i64> off = {4};  // content[0..4) belongs to no list
  for (i64 m : lengths) off.push_back(off.back() + m);
  std::vector<i64> content(static_cast<std::size_t>(off.back()));
  for (auto& v : content) v = u(r);
  const jf::jagged<i64> x{jf::array<i64>(off), jf::array<i64>(content)};
  std::vector<double> fc(content.begin(), content.end());
  for (auto& v : fc) v /= 4;
  const jf::jagged<double> f{jf::array<i64>(off), jf::array<double>(fc)};
  const auto sums = jf::array<i64>(jf::sum(x * 3 - 1, -1)).to_vector();
  const auto maxs = jf::option_array<i64>(jf::max(x * 2, -1)).to_vector();
  const auto argmaxs = jf::option_array<i64>(jf::argmax(x, -1)).to_vector();
  const auto fsums = jf::array<double>(jf::sum(f, -1)).to_vector();
  ASSERT_EQ(sums.size(), lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    SCOPED_TRACE("list " + std::to_string(i) + " of " + std::to_string(lengths[i]) + " elements");
    i64 s = 0, best = 0, at = -1;
    double fs = 0;
    for (i64 j = off[i]; j < off[i + 1]; ++j) {
      const i64 v = content[static_cast<std::size_t>(j)];
      s += v * 3 - 1;
      fs += fc[static_cast<std::size_t>(j)];
      if (at < 0 || v > best) {
        best = v;
        at = j - off[i];
      }
    }
    EXPECT_EQ(sums[i], s);
    EXPECT_EQ(fsums[i], fs);
    EXPECT_EQ(maxs[i].has_value(), lengths[i] > 0);
    EXPECT_EQ(argmaxs[i].has_value(), lengths[i] > 0);
    if (lengths[i] > 0) {
      EXPECT_EQ(*maxs[i], best * 2);
      EXPECT_EQ(*argmaxs[i], at);
    }
  }
}

// Ties and NaNs in short lists (at most 8 elements: folded left to right on the CPU, which gives
// the bits of the lanes and their tree) and in a list of 12 (the lanes): max and min keep the
// later of equal values (np.maximum's -0.0 / 0.0), the first NaN (its payload), argmax the first
// position; the float product of 8 factors keeps the tree's rounding.
TEST(JaggedExprCpu, ShortListsTiesAndNaNs) {
  const float nan1 = std::bit_cast<float>(0x7fc00001u), nan2 = std::bit_cast<float>(0x7fc00002u);
  const std::vector<std::vector<float>> lists{{0.0f, -0.0f},
                                              {-0.0f, 0.0f},
                                              {1.0f, nan1, nan2},
                                              {nan2, 2.0f, nan1},
                                              {-1.0f, 3.0f, 3.0f, -0.0f},
                                              {},
                                              {-0.0f, -5, -5, -5, -5, -5, -5, -5, 0.0f, -5, -5, -5}};
  const jf::jagged<float> x(lists);
  const auto mx = jf::option_array<float>(jf::max(x, -1)).to_vector();
  const auto mn = jf::option_array<float>(jf::min(x * -1.0f, -1)).to_vector();
  const auto am = jf::option_array<std::int64_t>(jf::argmax(x, -1)).to_vector();
  auto bits = [](const std::optional<float>& v) { return v ? std::bit_cast<std::uint32_t>(*v) : 1u; };
  EXPECT_EQ(bits(mx[0]), std::bit_cast<std::uint32_t>(-0.0f));  // the later of 0.0, -0.0
  EXPECT_EQ(bits(mx[1]), std::bit_cast<std::uint32_t>(0.0f));
  EXPECT_EQ(bits(mx[2]), std::bit_cast<std::uint32_t>(nan1));  // the first NaN
  EXPECT_EQ(bits(mx[3]), std::bit_cast<std::uint32_t>(nan2));
  EXPECT_EQ(bits(mx[4]), std::bit_cast<std::uint32_t>(3.0f));
  EXPECT_FALSE(mx[5].has_value());
  // 12 elements: lane 0 holds -0.0 then -5, lane 0's -0.0 against lane 0's 0.0 (element 8): the later.
  EXPECT_EQ(bits(mx[6]), std::bit_cast<std::uint32_t>(0.0f));
  EXPECT_EQ(bits(mn[0]), std::bit_cast<std::uint32_t>(0.0f));  // min(-0.0, 0.0) after * -1: the later
  EXPECT_EQ(bits(mn[1]), std::bit_cast<std::uint32_t>(-0.0f));
  EXPECT_EQ(am[0], std::optional<std::int64_t>(0));  // argmax: the first of equal values
  EXPECT_EQ(am[4], std::optional<std::int64_t>(1));
  EXPECT_EQ(am[2], std::optional<std::int64_t>(1));  // the first NaN
  const jf::jagged<float> p({{1.1f, 1.3f, 1.7f, 1.9f, 2.3f, 2.9f, 3.1f, 3.7f}});
  const float tree = ((1.1f * 1.3f) * (1.7f * 1.9f)) * ((2.3f * 2.9f) * (3.1f * 3.7f));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(jf::array<float>(jf::prod(p, -1)).to_vector()[0]),
            std::bit_cast<std::uint32_t>(tree));
}

TEST(JaggedExprGpu, MatchesCpu) {
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: jf::cuda tests skipped";
  auto& rng = test_support::rng();
  for (const i64 n : {i64{0}, i64{1}, i64{7}, i64{1000}, i64{100003}}) {
    std::poisson_distribution<int> len(2.0);
    std::vector<std::vector<float>> lists(static_cast<std::size_t>(n));
    std::uniform_real_distribution<float> val(-10, 10);
    for (auto& l : lists) {
      l.resize(static_cast<std::size_t>(len(rng)));
      for (float& v : l) v = std::round(val(rng) * 4) / 4;
    }
    if (n > 10) lists[static_cast<std::size_t>(n / 2)].resize(70000, 0.25f);  // one list longer than a block
    // The list kernel's thresholds (a lane up to 16 elements, a warp up to 4096, else the block).
    if (n > 10)
      for (const auto& [at, size] : {std::pair<i64, std::size_t>{5, 16}, {6, 17}, {n / 3, 4096}, {n / 3 + 1, 4097}})
        lists[static_cast<std::size_t>(at)].resize(size, -1.5f);
    const jf::jagged<float> hx(lists, jf::cpu);
    const jf::jagged<float> whole = jf::to_backend(hx, jf::cuda);
    const i64 from = n > 3 ? 3 : 0;
    for (const bool sliced : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (sliced ? " sliced" : ""));
      const jf::jagged<float> gx = sliced ? whole(jf::range(from, jf::none)) : whole;
      const jf::jagged<float> cx = sliced ? hx(jf::range(from, jf::none)) : hx;
      const i64 nl = cx.size();
      std::vector<float> m(static_cast<std::size_t>(nl));
      for (i64 i = 0; i < nl; ++i) m[static_cast<std::size_t>(i)] = static_cast<float>(i % 17) * 0.5f;
      const jf::array<float> cmet(m, jf::cpu), gmet(m, jf::cuda);
      auto same = [](const auto& a, const auto& b) { expect_same_values(a.to_vector(), b.to_vector()); };
      same(jf::eval(jf::sum(gx, -1)), jf::eval(jf::sum(cx, -1)));
      same(jf::eval(jf::max(gx, -1)), jf::eval(jf::max(cx, -1)));
      same(jf::eval(jf::min(gx * 2 - gmet, -1)), jf::eval(jf::min(cx * 2 - cmet, -1)));
      same(jf::eval(jf::argmax(gx, -1)), jf::eval(jf::argmax(cx, -1)));
      same(jf::eval(jf::count_nonzero(gx, -1)), jf::eval(jf::count_nonzero(cx, -1)));
      same(jf::eval(jf::any(gx > 5, -1)), jf::eval(jf::any(cx > 5, -1)));
      same(jf::eval(jf::mean(gx, -1)), jf::eval(jf::mean(cx, -1)));
      same(jf::eval(jf::sum(gx)), jf::eval(jf::sum(cx)));
      same(jf::flatten(jf::eval(jf::sqrt(gx * gx * 2 + gmet) - 1)),
           jf::flatten(jf::eval(jf::sqrt(cx * cx * 2 + cmet) - 1)));
      same(jf::flatten(jf::eval(gx - jf::mean(gx, -1))), jf::flatten(jf::eval(cx - jf::mean(cx, -1))));
      same(jf::eval(jf::max(jf::sqrt(gx * gx * 2 + gmet) - 1, -1)),
           jf::eval(jf::max(jf::sqrt(cx * cx * 2 + cmet) - 1, -1)));
      // Positions among the selected (the selection materialised, then the per-list argmin/argmax).
      same(jf::eval(jf::argmax(gx(gx > 2), -1)), jf::eval(jf::argmax(cx(cx > 2), -1)));
      same(jf::eval(jf::argmin(gx(gx > 2), -1)), jf::eval(jf::argmin(cx(cx > 2), -1)));
      same(jf::eval(jf::argmax((gx * 2 - gmet)(gx != 0.25f), -1)),
           jf::eval(jf::argmax((cx * 2 - cmet)(cx != 0.25f), -1)));
      // Across the lists (axis=0): the transposition's lists are as long as the number of lists
      // (sums of multiples of 1/4 below 2**22: exact in any order, so the bits agree).
      same(jf::eval(jf::sum(gx, 0)), jf::eval(jf::sum(cx, 0)));
      same(jf::eval(jf::max(gx * 2 - gmet, 0)), jf::eval(jf::max(cx * 2 - cmet, 0)));
      same(jf::eval(jf::argmin(gx, 0)), jf::eval(jf::argmin(cx, 0)));
      same(jf::eval(jf::mean(gx, -2)), jf::eval(jf::mean(cx, -2)));
      same(jf::count(gx, 0), jf::count(cx, 0));
      same(jf::eval(jf::argmax(gx(gx > 2), 0)), jf::eval(jf::argmax(cx(cx > 2), 0)));
    }
  }
}

// Across the lists (axis=0) on the CPU against host loops: 20000 Poisson(3) lists, some empty, one
// of 30000 elements (the result's length), offsets from 5; the transposition's first lists are
// longer than a CPU piece (16384). Integers: exact; argmax/argmin: the first list holding the best.
TEST(JaggedExprCpu, AcrossListsAgainstHostLoops) {
  const std::uint64_t seed = test_support::seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 r(seed);
  std::poisson_distribution<int> len(3.0);
  std::uniform_int_distribution<i64> u(-9, 9);
  std::vector<i64> off = {5};
  for (int i = 0; i < 20000; ++i) off.push_back(off.back() + (i == 777 ? 30000 : len(r)));
  std::vector<i64> content(static_cast<std::size_t>(off.back()));
  for (auto& v : content) v = u(r);
  const jf::jagged<i64> x{jf::array<i64>(off), jf::array<i64>(content)};
  std::vector<i64> sum, cnt, best, at, worst, at_min;
  for (std::size_t i = 0; i + 1 < off.size(); ++i)
    for (i64 j = 0; j < off[i + 1] - off[i]; ++j) {
      const auto jj = static_cast<std::size_t>(j);
      const i64 v = content[static_cast<std::size_t>(off[i] + j)] * 3 - 1;
      if (jj == sum.size()) {
        sum.push_back(0), cnt.push_back(0), best.push_back(v), at.push_back(static_cast<i64>(i));
        worst.push_back(v), at_min.push_back(static_cast<i64>(i));
      }
      sum[jj] += v;
      ++cnt[jj];
      if (v > best[jj]) best[jj] = v, at[jj] = static_cast<i64>(i);
      if (v < worst[jj]) worst[jj] = v, at_min[jj] = static_cast<i64>(i);
    }
  EXPECT_EQ(jf::array<i64>(jf::sum(x * 3 - 1, 0)).to_vector(), sum);
  EXPECT_EQ(jf::count(x, 0).to_vector(), cnt);
  EXPECT_EQ(jf::eval(jf::max(x * 3 - 1, 0)).to_vector(), all_valid(best));
  EXPECT_EQ(jf::eval(jf::argmax(x * 3 - 1, 0)).to_vector(), all_valid(at));
  EXPECT_EQ(jf::eval(jf::argmin(x * 3 - 1, -2)).to_vector(), all_valid(at_min));
  EXPECT_EQ(jf::eval(jf::min(x * 3 - 1, 0)).to_vector(), all_valid(worst));
}

INSTANTIATE_TEST_SUITE_P(Backends, JaggedExpr, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
