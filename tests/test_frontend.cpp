// The expression front end: value capture, canonical expression types, leaf counts, static dtypes
// and the NEP 50 range check of weak integer scalars. Evaluated on jf::cpu.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include <jetfuse/jetfuse.hpp>

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}
std::vector<double> random_doubles(std::size_t n) {
  std::uniform_real_distribution<double> u(-100, 100);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng());
  return v;
}

// Built from locals only: the expression must own handles to their buffers.
auto make_square_plus_one(const std::vector<double>& values) {
  jf::array<double> a(values);
  double one = 1.0;
  return a * a + one;
}

TEST(Frontend, ExpressionOutlivesItsLocals) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{100000}}) {
    const auto v = random_doubles(n);
    auto e = make_square_plus_one(v);  // a and one are gone here (ASan checks)
    jf::array<double> r = e;
    ASSERT_EQ(r.size(), static_cast<std::int64_t>(n));
    const auto got = r.to_vector();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], v[i] * v[i] + 1.0) << i;
    // Evaluating the same expression twice gives the same values (it is not consumed).
    jf::array<double> r2 = e;
    EXPECT_EQ(r2.to_vector(), got);
  }
}

TEST(Frontend, ExpressionSnapshotsHandlesNotData) {
  jf::array<double> a({1.0, 2.0, 3.0});
  auto e = a + 1.0;
  a = jf::array<double>({10.0, 20.0, 30.0});  // rebinding: the expression keeps the old buffer
  jf::array<double> r = e;
  EXPECT_EQ(r.to_vector(), (std::vector<double>{2.0, 3.0, 4.0}));
}

TEST(Frontend, CanonicalTypes) {
  jf::array<float> a, b;
  const jf::array<float> ca;
  using lv = decltype(a + b);
  static_assert(std::is_same_v<lv, decltype(std::move(a) + b)>);
  static_assert(std::is_same_v<lv, decltype(ca + jf::array<float>{})>);
  static_assert(std::is_same_v<lv, jf::call_node<jf::fn<jf::op::add>, jf::term<jf::array<float>>, jf::term<jf::array<float>>>>);
  auto sub = a + b;
  const auto csub = a + b;
  static_assert(std::is_same_v<decltype(sub * a), decltype((a + b) * a)>);
  static_assert(std::is_same_v<decltype(csub * a), decltype((a + b) * a)>);
  // Scalars are normalised to bool / int64_t / double whatever their C++ type.
  int i = 3;
  short sh = 2;
  static_assert(std::is_same_v<decltype(a + i), decltype(a + 5L)>);
  static_assert(std::is_same_v<decltype(a + sh), decltype(a + std::int64_t{1})>);
  static_assert(std::is_same_v<decltype(a + 1.0f), decltype(a + 1.0)>);
  static_assert(std::is_same_v<decltype(a * 2.0), jf::call_node<jf::fn<jf::op::multiply>, jf::term<jf::array<float>>, jf::term<double>>>);
  static_assert(!std::is_same_v<decltype(a + true), decltype(a + 1)>);
  // Named functions build call nodes with the op table's tags.
  static_assert(std::is_same_v<decltype(jf::sqrt(a)), jf::call_node<jf::fn<jf::op::sqrt>, jf::term<jf::array<float>>>>);
  static_assert(std::is_same_v<decltype(jf::astype<double>(a)), jf::call_node<jf::cast_to<jf::dtype::float64>, jf::term<jf::array<float>>>>);
  static_assert(std::is_same_v<decltype(jf::clip(a, 0, 1)), decltype(jf::minimum(jf::maximum(a, 0), 1))>);
  SUCCEED();
}

TEST(Frontend, LeafCounts) {
  jf::array<double> a, b;
  jf::array<int> c;
  using E = decltype(jf::where(a > 0.5, b * 2 + a, c) + 1.0);
  static_assert(jf::leaf_counts<E>::arrays == 4);
  static_assert(jf::leaf_counts<E>::scalars == 3);
  static_assert(jf::leaf_counts<jf::capture_t<jf::array<float>>>::arrays == 1);
  static_assert(jf::leaf_counts<decltype(-a)>::scalars == 0);
  static_assert(jf::leaf_counts<decltype(jf::clip(a, 0.0, 1.0))>::scalars == 2);
  SUCCEED();
}

template <class E> constexpr jf::dtype dt() { return jf::type_of_v<E>.type; }

TEST(Frontend, StaticDtypes) {
  jf::array<bool> bo;
  jf::array<std::int32_t> i32;
  jf::array<std::int64_t> i64;
  jf::array<float> f32;
  jf::array<double> f64;
  using jf::dtype;
  static_assert(dt<decltype(i32 + i64)>() == dtype::int64);
  static_assert(dt<decltype(i32 + f32)>() == dtype::float64);  // numpy: int32 + float32 -> float64
  static_assert(dt<decltype(f32 + f64)>() == dtype::float64);
  static_assert(dt<decltype(bo + bo)>() == dtype::bool_);
  static_assert(dt<decltype(bo + i32)>() == dtype::int32);
  // NEP 50 weak scalars.
  static_assert(dt<decltype(i32 + 1)>() == dtype::int32);
  static_assert(dt<decltype(i32 + 1.5)>() == dtype::float64);
  static_assert(dt<decltype(f32 * 2.0)>() == dtype::float32);
  static_assert(dt<decltype(bo + 1)>() == dtype::int64);
  static_assert(dt<decltype(bo + 1.0)>() == dtype::float64);
  static_assert(dt<decltype(bo * true)>() == dtype::bool_);
  static_assert(dt<decltype(1 - i64)>() == dtype::int64);
  // Op rules.
  static_assert(dt<decltype(i32 / i32)>() == dtype::float64);
  static_assert(dt<decltype(f32 / 2)>() == dtype::float32);
  static_assert(dt<decltype(jf::sqrt(bo))>() == dtype::float32);
  static_assert(dt<decltype(jf::sqrt(i32))>() == dtype::float64);
  static_assert(dt<decltype(jf::sqrt(f32))>() == dtype::float32);
  static_assert(dt<decltype(i32 < f32)>() == dtype::bool_);
  static_assert(dt<decltype(jf::logical_and(f64, i32))>() == dtype::bool_);
  static_assert(dt<decltype(jf::isnan(f32))>() == dtype::bool_);
  static_assert(dt<decltype(jf::where(f64 > 0, i32, f32))>() == dtype::float64);
  static_assert(dt<decltype(jf::where(i32, i32, 0))>() == dtype::int32);
  static_assert(dt<decltype(jf::astype<float>(i64) + 1)>() == dtype::float32);
  static_assert(dt<decltype(jf::floor_divide(i32, 2))>() == dtype::int32);
  static_assert(dt<decltype(jf::abs(bo))>() == dtype::bool_);
  static_assert(dt<decltype(jf::floor(i64))>() == dtype::int64);
  // value_type_t is the C++ element type.
  static_assert(std::is_same_v<jf::value_type_t<decltype(f32 * 2.0)>, float>);
  // The operand target dtypes of where: condition bool, values the promoted dtype.
  using W = jf::op_types<jf::op::where, jf::capture_t<jf::array<float>>, jf::capture_t<jf::array<int>>, jf::capture_t<double>>;
  static_assert(W::target(0) == dtype::bool_ && W::target(1) == dtype::float64 && W::target(2) == dtype::float64);
  SUCCEED();
}

TEST(Frontend, EvaluatedDtypesMatchStaticDtypes) {
  jf::array<std::int32_t> i32({1, -2, 3});
  jf::array<float> f32({0.5f, 1.5f, -2.5f});
  auto r1 = jf::eval(i32 + 1);
  static_assert(std::is_same_v<decltype(r1), jf::array<std::int32_t>>);
  EXPECT_EQ(r1.dtype(), jf::dtype::int32);
  EXPECT_EQ(r1.to_vector(), (std::vector<std::int32_t>{2, -1, 4}));
  auto r2 = jf::eval(i32 * f32);
  static_assert(std::is_same_v<decltype(r2), jf::array<double>>);
  EXPECT_EQ(r2.to_vector(), (std::vector<double>{0.5, -3.0, -7.5}));
  auto r3 = jf::eval(f32 / 2);
  static_assert(std::is_same_v<decltype(r3), jf::array<float>>);
  EXPECT_EQ(r3.to_vector(), (std::vector<float>{0.25f, 0.75f, -1.25f}));
}

TEST(Frontend, OutOfRangeWeakIntegerIsDtypeError) {
  jf::array<std::int32_t> a({1, 2, 3});
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_THROW(jf::eval(a + big), jf::dtype_error);
  try {
    jf::array<std::int32_t> r = a + big;
    FAIL() << "no exception";
  } catch (const jf::dtype_error& e) {
    EXPECT_NE(std::string(e.what()).find("1099511627776"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
  EXPECT_THROW(jf::eval(a * std::int64_t{-2147483649LL}), jf::dtype_error);
  // The limits themselves are fine, and an int64 array takes the value.
  EXPECT_EQ(jf::eval(a * std::int64_t{2147483647}).to_vector()[0], 2147483647);
  EXPECT_EQ(jf::eval(a - std::int64_t{-2147483648LL}).to_vector()[0], std::int32_t(-2147483647));  // 1 - INT_MIN wraps
  jf::array<std::int64_t> b({1, 2});
  EXPECT_EQ(jf::eval(b + big).to_vector(), (std::vector<std::int64_t>{big + 1, big + 2}));
  // A float scalar goes to float64, never range-checked against int32.
  EXPECT_EQ(jf::eval(a + 1e12).to_vector()[0], 1e12 + 1);
}

}  // namespace
