// What a new or careless user of the front end meets (issue 7): null handles as operands, numpy's
// same_kind rule for compound assignment (and the new %= &= |= ^= <<= >>=, also into a temporary
// view), printing an expression, jetfuse functions called on scalars only, operands of unsupported
// types, and jf::explain / jf::stats on the CPU. Runs on jf::cpu, and on jf::cuda when present.
// The misuses that must not compile are checked as traits here and by tests/compile_fail/.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

std::vector<jf::device> devices() {
  std::vector<jf::device> d{jf::cpu};
  if (jf::cuda_available()) d.push_back(jf::cuda);
  return d;
}

template <class E>
std::string message_of(const E& f) {
  try {
    f();
  } catch (const jf::value_error& e) {
    return e.what();
  }
  return "(no jf::value_error)";
}

// ---- item 2: null handles ----------------------------------------------------------------------

TEST(NullHandle, AsAnOperandIsValueErrorNamingIt) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    jf::array<double> a({1.0, 2.0, 3.0}, dev);
    jf::array<double> n;
    jf::array<bool> nullmask;
    EXPECT_NE(message_of([&] { jf::array<double> r = a + n; }).find("array operand 2 of the expression"),
              std::string::npos);
    EXPECT_NE(message_of([&] { jf::array<double> r = n * 2.0; }).find("array operand 1 of the expression"),
              std::string::npos);
    EXPECT_NE(message_of([&] { jf::array<double> r = a + n; }).find("null array handle"), std::string::npos);
    EXPECT_THROW(jf::eval(jf::sqrt(n)), jf::value_error);
    EXPECT_THROW(jf::eval(jf::where(nullmask, a, 0.0)), jf::value_error);
    EXPECT_THROW(jf::eval(jf::unfused, a + n), jf::value_error);
    EXPECT_THROW(jf::eval(a * 2.0, a + n), jf::value_error);
    // explain raises too instead of describing a shape.
    EXPECT_THROW(jf::explain(a + n), jf::value_error);
    // Compound assignment: a null operand, and a null target.
    jf::array<double> x({5.0, 6.0, 7.0}, dev);
    EXPECT_THROW(x += n, jf::value_error);
    EXPECT_EQ(x.to_vector(), (std::vector<double>{5.0, 6.0, 7.0}));  // untouched
    jf::array<double> nx;
    EXPECT_NE(message_of([&] { nx += a; }).find("`x += e` with x a null array handle"), std::string::npos);
    EXPECT_TRUE(nx.is_null());
    // Assigning into a null handle still allocates it (that is not an operand).
    jf::array<double> r;
    r = a * 2.0;
    EXPECT_EQ(r.to_vector(), (std::vector<double>{2.0, 4.0, 6.0}));
  }
}

// ---- item 6: numpy's same_kind casting for compound assignment ---------------------------------

using i32 = jf::array<std::int32_t>;
using i64 = jf::array<std::int64_t>;
using f32 = jf::array<float>;
using f64 = jf::array<double>;
using b8 = jf::array<bool>;

template <class X>
concept add_assignable = requires(X&& x) {
  std::forward<X>(x) += 1.0;
};

TEST(CompoundAssignment, SameKindRuleAsNumpy) {
  using jf::can_compound_assign;
  using jf::op;
  // numpy raises UFuncTypeError for these (checked with numpy 2.4): they must not compile.
  static_assert(!can_compound_assign<op::add, i32, double>);                                   // x += 1.5
  static_assert(!can_compound_assign<op::true_divide, i32, int>);                              // x /= 2
  static_assert(!can_compound_assign<op::add, i32, decltype(jf::sqrt(std::declval<i32>()))>);  // += sqrt(x)
  static_assert(!can_compound_assign<op::add, b8, int>);                                       // bool += 1
  static_assert(!can_compound_assign<op::remainder, i32, double>);                             // x %= 2.0
  static_assert(!can_compound_assign<op::bitwise_and, b8, int>);                               // bool &= 1
  static_assert(!can_compound_assign<op::bitwise_or, b8, i32>);                                // bool |= int32
  static_assert(!can_compound_assign<op::add, i64, f32>);                                      // -> float64
  // ... and numpy's TypeErrors: operations not defined for the dtypes.
  static_assert(!can_compound_assign<op::bitwise_and, f64, int>);  // float &= 2
  static_assert(!can_compound_assign<op::subtract, b8, bool>);     // bool -= True
  static_assert(!can_compound_assign<op::left_shift, b8, bool>);
  static_assert(!can_compound_assign<op::add, f64, std::string>);  // not an operand
  // numpy accepts these.
  static_assert(can_compound_assign<op::add, i32, int>);  // python int: weak
  static_assert(can_compound_assign<op::add, i32, i64>);  // int64 -> int32: same kind
  static_assert(can_compound_assign<op::add, f32, f64>);  // float64 -> float32
  static_assert(can_compound_assign<op::add, f32, i64>);  // float64 -> float32
  static_assert(can_compound_assign<op::add, i32, b8>);   // int32 + bool
  static_assert(can_compound_assign<op::add, b8, bool>);  // bool += True
  static_assert(can_compound_assign<op::multiply, b8, b8>);
  static_assert(can_compound_assign<op::remainder, i32, int>);
  static_assert(can_compound_assign<op::left_shift, i32, int>);
  static_assert(can_compound_assign<op::bitwise_and, b8, bool>);
  static_assert(can_compound_assign<op::true_divide, f32, int>);
  static_assert(can_compound_assign<op::add, f64, decltype(jf::sqrt(std::declval<i32>()))>);
  // Compound assignment is for arrays (also temporary views), never const ones.
  static_assert(can_compound_assign<op::add, i32&&, int>);
  static_assert(!can_compound_assign<op::add, double, int>);
  static_assert(!can_compound_assign<op::add, const f64&, double>);
  static_assert(!add_assignable<const f64&>);
  static_assert(add_assignable<f64&> && add_assignable<f64>);
  SUCCEED();
}

TEST(CompoundAssignment, NewOperatorsFollowNumpy) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    // Expected values from numpy 2.4 (int32 arrays, python int operands).
    i32 x({7, -7, 5, 0, -1}, dev);
    x %= 3;  // numpy: [1, 2, 2, 0, 2] (the sign of the divisor)
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{1, 2, 2, 0, 2}));
    x <<= 4;  // [16, 32, 32, 0, 32]
    x |= 3;   // [19, 35, 35, 3, 35]
    x &= 49;  // [17, 33, 33, 1, 33]
    x ^= 1;   // [16, 32, 32, 0, 32]
    x >>= 2;  // [4, 8, 8, 0, 8]
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{4, 8, 8, 0, 8}));
    x += i64({1, 2, 3, 4, 5}, dev);  // computed in int64, cast back (same kind)
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{5, 10, 11, 4, 13}));
    x -= b8({true, false, true, false, true}, dev);
    EXPECT_EQ(x.to_vector(), (std::vector<std::int32_t>{4, 10, 10, 4, 12}));
    b8 m({true, false, true}, dev);
    m |= b8({false, false, true}, dev);
    m ^= true;
    m &= b8({true, true, true}, dev);
    EXPECT_EQ(m.to_vector(), (std::vector<bool>{false, true, false}));
    f32 f({1.0f, 2.0f}, dev);
    f /= 4;                      // float32 / python int: float32
    f += f64({0.5, 0.25}, dev);  // float64 -> float32
    EXPECT_EQ(f.to_vector(), (std::vector<float>{0.75f, 0.75f}));
  }
}

TEST(CompoundAssignment, IntoATemporaryView) {
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    // numpy's stencil idiom: f[1:-1, 1:-1] -= 0.25 * lap
    f32 field = jf::full<float>({4, 5}, 1.0f, dev);
    const f32 lap = jf::full<float>({2, 3}, 2.0f, dev);
    field(jf::range(1, -1), jf::range(1, -1)) -= 0.25f * lap;
    const std::vector<float> got = field.to_vector();
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j) {
        const bool inner = i >= 1 && i <= 2 && j >= 1 && j <= 3;
        EXPECT_EQ(got[static_cast<std::size_t>(i * 5 + j)], inner ? 0.5f : 1.0f) << i << "," << j;
      }
    // A reversed view onto the same buffer: every read happens before any write (numpy).
    i64 v({1, 2, 3, 4}, dev);
    v(jf::range(jf::range::none, jf::range::none, -1)) += v;
    EXPECT_EQ(v.to_vector(), (std::vector<std::int64_t>{5, 5, 5, 5}));
    v(jf::range(0, 4, 2)) <<= 1;
    EXPECT_EQ(v.to_vector(), (std::vector<std::int64_t>{10, 5, 10, 5}));
  }
}

// ---- item 11: printing, scalar calls, unsupported operands, explain and stats ------------------

TEST(Printing, AnExpressionPrintsItsValue) {
  for (jf::device dev : devices()) {
    jf::array<double> a({1.0, 2.5, -3.0}, dev);
    std::ostringstream got, want;
    got << a * 2;
    want << jf::eval(a * 2);
    EXPECT_EQ(got.str(), want.str());
    EXPECT_EQ(got.str(), "array([ 2.,  5., -6.], dtype=float64)");
    std::ostringstream cmp;
    cmp << (a > 0);
    EXPECT_EQ(cmp.str(), "array([ True,  True, False], dtype=bool)");
  }
}

// The user guide's lazy-evaluation trap: an expression reads its arrays when it is assigned.
TEST(Printing, AnExpressionReadsItsArraysWhenAssigned) {
  jf::array<double> a({1.0, 2.0});
  auto e = a * 2;
  a += 100;
  jf::array<double> r = e;
  EXPECT_EQ(r.to_vector(), (std::vector<double>{202.0, 204.0}));
}

TEST(ScalarCalls, ComputeWithNumpysRules) {
  // As numpy on Python scalars: integers are int64, floats float64 (NEP 50).
  static_assert(std::is_same_v<decltype(jf::floor_divide(-7, 2)), std::int64_t>);
  EXPECT_EQ(jf::floor_divide(-7, 2), -4);  // the user guide's example; C++'s -7 / 2 is -3
  EXPECT_EQ(jf::remainder(-7, 2), 1);
  EXPECT_EQ(jf::mod(7, -2), -1);
  EXPECT_EQ(jf::floor_divide(1, 0), 0);  // numpy: 0, with a warning
  EXPECT_EQ(jf::power(2, 10), 1024);
  static_assert(std::is_same_v<decltype(jf::sqrt(4)), double>);
  EXPECT_EQ(jf::sqrt(4), 2.0);
  static_assert(std::is_same_v<decltype(jf::divide(1, 2)), double>);
  EXPECT_EQ(jf::divide(1, 2), 0.5);
  EXPECT_EQ(jf::floor_divide(7.5, 2), 3.0);
  static_assert(std::is_same_v<decltype(jf::add(true, true)), bool>);
  EXPECT_TRUE(jf::add(true, true));
  static_assert(std::is_same_v<decltype(jf::where(true, 1, 2.5)), double>);
  EXPECT_EQ(jf::where(false, 1, 2.5), 2.5);
  EXPECT_EQ(jf::clip(5, 0, 3), 3);
  EXPECT_EQ(jf::astype<std::int32_t>(-2.7), -2);
  EXPECT_TRUE(jf::less(-1, 0));
  EXPECT_TRUE(std::signbit(jf::minimum(0.0, -0.0)));  // numpy: the second of two equal values
  // A Python int beyond int64 (np.add(2**64 - 1, 1) raises OverflowError).
  EXPECT_THROW(jf::add(std::numeric_limits<std::uint64_t>::max(), 1), jf::dtype_error);
}

TEST(ElementOperands, AnElementOfANonConstArrayIsAScalarOperand) {
  // x(i) on a non-const array is a jf::element_ref (it takes x(i) = v); as an operand it is the
  // value it read, a weak scalar like `double v = x(i)`.
  for (jf::device dev : devices()) {
    SCOPED_TRACE(jf::to_string(dev));
    jf::array<double> x({1.5, -2.0, 4.0}, dev);
    jf::array<float> y({1.0f, 2.0f, 3.0f}, dev);
    jf::array<float> r = y * x(1);  // weak: float32 stays float32
    EXPECT_EQ(r.to_vector(), (std::vector<float>{-2.0f, -4.0f, -6.0f}));
    jf::array<double> w = jf::where(x > 0.0, x(2), x(0));
    EXPECT_EQ(w.to_vector(), (std::vector<double>{4.0, 1.5, 4.0}));
    EXPECT_EQ(jf::floor_divide(x(1), 3), -1.0);  // all scalars: computed at once
    x(0) = x(2) * 2;  // the element written from an element read
    EXPECT_EQ(x.to_vector(), (std::vector<double>{8.0, -2.0, 4.0}));
  }
}

TEST(UnsupportedOperands, AreRejectedByOneStaticAssert) {
  // The rejecting overloads are chosen (their static_assert fires when the call is compiled; see
  // tests/compile_fail/): nothing else matches, so the compiler prints one message.
  using rejected = jf::detail::rejected;
  f64 a;
  static_assert(std::is_same_v<decltype(a + std::string("x")), rejected>);
  static_assert(std::is_same_v<decltype(std::vector<double>{} * a), rejected>);
  static_assert(std::is_same_v<decltype((a * 2) < std::string()), rejected>);
  static_assert(std::is_same_v<decltype(jf::sqrt(std::string())), rejected>);
  static_assert(std::is_same_v<decltype(jf::maximum(a, std::string())), rejected>);
  static_assert(std::is_same_v<decltype(jf::where(a > 0, a, std::string())), rejected>);
  // Printing is not an operation on the stream.
  static_assert(std::is_same_v<decltype(std::declval<std::ostream&>() << a * 2), std::ostream&>);
  SUCCEED();
}

TEST(ExplainAndStats, DescribeTheCpuPath) {
  jf::array<double> a({1.0, 2.0, 3.0});
  const std::string e = jf::explain(a * 2 + 1);
  EXPECT_NE(e.find("on cpu"), std::string::npos) << e;
  EXPECT_NE(e.find("CPU executor"), std::string::npos) << e;
  EXPECT_NE(e.find("multiply f64"), std::string::npos) << e;  // the IR it computes
  EXPECT_NE(e.find("operands: flat"), std::string::npos) << e;
  EXPECT_EQ(e.find("CUDA"), std::string::npos) << e;
  EXPECT_EQ(e.find("__global__"), std::string::npos) << e;
  EXPECT_EQ(e.find("kernel("), std::string::npos) << e;
  const std::string t = jf::explain(jf::unfused, a.reshape({3, 1}) * a);
  EXPECT_NE(t.find("operands: strided"), std::string::npos) << t;
  EXPECT_NE(t.find("unfused: no effect on the CPU"), std::string::npos) << t;

  jf::reset_stats();
  jf::array<double> r = a * 2 + 1;
  jf::array<float> rf = a * 2 + 1;  // computed in float64, cast to float32 by the IR: no temporary
  auto [u, v] = jf::eval(a * 2 + 1, a * 2 + 1);
  const jf::stats_t s = jf::stats();
  EXPECT_EQ(s.cpu_evaluations, 4u);
  EXPECT_EQ(s.cpu_elements, 12u);
  EXPECT_EQ(s.temporaries, 0u);
  EXPECT_EQ(s.temporary_bytes, 0u);
  EXPECT_EQ(s.launches, 0u);
  EXPECT_NE(jf::to_string(s).find("cpu_evaluations=4"), std::string::npos) << jf::to_string(s);
  (void)r, (void)rf, (void)u, (void)v;
}

}  // namespace
