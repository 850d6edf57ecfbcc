// Binary arithmetic, bitwise, shift, min/max and float functions of two operands on every dtype
// pair they accept, evaluated on jf::cpu against scalar loops written from numpy's semantics
// (cpu_ref_ops.hpp): wrapping overflow, division by zero, INT_MIN / -1, shifts past the width
// and negative, NaN propagation. Also weak scalars on both sides and numpy value tables.
#include "cpu_op_checks.hpp"
#include "hypot_edge_values.hpp"

namespace {

using namespace cpu_test;

TEST(CpuOpsBinary, Arithmetic) {
  check_binary_all_pairs<op::add>({0, 1, 17, 1000000});
  check_binary_all_pairs<op::subtract>({0, 17, 1000});
  check_binary_all_pairs<op::multiply>({17, 1000});
  check_binary_all_pairs<op::true_divide>({0, 17, 1000});
}

TEST(CpuOpsBinary, DivisionFamily) {
  check_binary_all_pairs<op::floor_divide>({17, 100000});
  check_binary_all_pairs<op::remainder>({17, 100000});
  check_binary_all_pairs<op::power>({17, 10000});
}

TEST(CpuOpsBinary, SameDtypeLarge) {
  for (auto ns : {std::initializer_list<std::int64_t>{0, 1, 17, 1000000}}) {
    check_binary<op::floor_divide, std::int32_t, std::int32_t>(ns);
    check_binary<op::floor_divide, double, double>(ns);
    check_binary<op::remainder, std::int64_t, std::int64_t>(ns);
    check_binary<op::remainder, float, float>(ns);
    check_binary<op::multiply, std::int32_t, std::int32_t>(ns);
  }
}

template <op O> void float_pairs() {
  check_binary<O, float, float>({0, 1, 17, 100000});
  check_binary<O, double, double>({0, 1, 17, 100000});
  check_binary<O, bool, bool>({17});
  check_binary<O, std::int32_t, float>({17, 1000});
  check_binary<O, std::int64_t, std::int64_t>({17, 1000});
}
template <op O> void integer_pairs() {
  check_binary<O, bool, bool>({0, 1, 17, 1000});
  check_binary<O, std::int32_t, std::int32_t>({0, 1, 17, 100000});
  check_binary<O, std::int64_t, std::int64_t>({0, 1, 17, 100000});
  check_binary<O, std::int32_t, std::int64_t>({17, 1000});
  check_binary<O, bool, std::int32_t>({17, 1000});
}

TEST(CpuOpsBinary, FloatFunctionsOfTwo) {
  float_pairs<op::arctan2>();
  float_pairs<op::hypot>();
}

TEST(CpuOpsBinary, MinMax) {
  check_binary_all_pairs<op::minimum>({0, 17, 1000});
  check_binary_all_pairs<op::maximum>({17, 1000});
  float_pairs<op::fmin>();
  float_pairs<op::fmax>();
  integer_pairs<op::fmin>();
}

TEST(CpuOpsBinary, BitwiseAndShifts) {
  integer_pairs<op::bitwise_and>();
  integer_pairs<op::bitwise_or>();
  integer_pairs<op::bitwise_xor>();
  check_binary<op::left_shift, std::int32_t, std::int32_t>({0, 1, 17, 100000});
  check_binary<op::left_shift, std::int64_t, std::int64_t>({17, 100000});
  check_binary<op::left_shift, std::int32_t, std::int64_t>({17, 1000});
  check_binary<op::right_shift, std::int32_t, std::int32_t>({0, 1, 17, 100000});
  check_binary<op::right_shift, std::int64_t, std::int64_t>({17, 100000});
  check_binary<op::right_shift, bool, std::int64_t>({17, 1000});
}

// Weak scalars on both sides: the scalar takes the array's dtype (NEP 50) or the kind's default.
TEST(CpuOpsBinary, WeakScalars) {
  const auto xi = random_values<std::int32_t>(1001);
  const auto xf = random_values<float>(1001);
  const auto xb = random_values<bool>(1001);
  const jf::array<std::int32_t> ai(xi);
  const jf::array<float> af(xf);
  const jf::array<bool> ab(xb);
  const jf::array<std::int32_t> r1 = 7 - ai;
  const jf::array<std::int32_t> r2 = ai * 3;
  const jf::array<float> r3 = 1.5 / af;
  const jf::array<float> r4 = af - 2;
  const jf::array<double> r5 = ai + 0.25;
  const jf::array<std::int64_t> r6 = ab + 1;
  const jf::array<bool> r7 = ab * true;
  const jf::array<std::int32_t> r8 = jf::floor_divide(-7, ai);
  const jf::array<bool> r9 = 2 < ai;
  const auto g1 = r1.to_vector(), g2 = r2.to_vector(), g8 = r8.to_vector();
  const auto g3 = r3.to_vector(), g4 = r4.to_vector();
  const auto g5 = r5.to_vector();
  const auto g6 = r6.to_vector();
  const auto g7 = r7.to_vector(), g9 = r9.to_vector();
  for (std::size_t i = 0; i < xi.size(); ++i) {
    ASSERT_EQ(g1[i], wrap_sub(7, xi[i]));
    ASSERT_EQ(g2[i], wrap_mul(xi[i], 3));
    ASSERT_TRUE(same_value(g3[i], 1.5f / xf[i]));
    ASSERT_TRUE(same_value(g4[i], xf[i] - 2.0f));
    ASSERT_EQ(g5[i], static_cast<double>(xi[i]) + 0.25);
    ASSERT_EQ(g6[i], std::int64_t{xb[i]} + 1);
    ASSERT_EQ(g7[i], bool(xb[i]));
    ASSERT_EQ(g8[i], ref2<op::floor_divide>(std::int32_t{-7}, xi[i]));
    ASSERT_EQ(g9[i], 2 < xi[i]);
  }
}

TEST(CpuOpsBinary, NumpyValueTables) {
  using I = std::vector<std::int32_t>;
  using V = std::vector<double>;
  const jf::array<std::int32_t> a({-7, 7, -7, 7}), b({2, -2, -2, 2});
  EXPECT_EQ(jf::eval(jf::floor_divide(a, b)).to_vector(), (I{-4, -4, 3, 3}));
  EXPECT_EQ(jf::eval(a % b).to_vector(), (I{1, -1, -1, 1}));
  EXPECT_TRUE(same_values(jf::eval(jf::array<double>({-7.5, 7.5, -0.0, 5.0}) % jf::array<double>({2.0, -2.0, 3.0, -5.0})).to_vector(),
                          V{0.5, -0.5, 0.0, -0.0}, 0, true));
  const jf::array<std::int32_t> n({5, -5, 0, INT32_MIN}), d({0, 0, 0, -1});
  EXPECT_EQ(jf::eval(jf::floor_divide(n, d)).to_vector(), (I{0, 0, 0, INT32_MIN}));
  EXPECT_EQ(jf::eval(n % d).to_vector(), (I{0, 0, 0, 0}));
  EXPECT_TRUE(same_values(jf::eval(jf::floor_divide(jf::array<double>({1.0, -1.0, 0.0, 1.0}), jf::array<double>({0.0, 0.0, 0.0, 0.1}))).to_vector(),
                          V{INFINITY, -INFINITY, NAN, 9.0}));
  EXPECT_TRUE(same_values(jf::eval(jf::array<double>({1.0, INFINITY, 1.0, -1.0}) % jf::array<double>({0.0, 2.0, INFINITY, INFINITY})).to_vector(),
                          V{NAN, NAN, 1.0, INFINITY}));
  EXPECT_EQ(jf::eval(jf::array<std::int32_t>({1, 1, 1, -1, 5}) << jf::array<std::int32_t>({31, 32, -1, 3, 40})).to_vector(),
            (I{INT32_MIN, 0, 0, -8, 0}));
  EXPECT_EQ(jf::eval(jf::array<std::int32_t>({-8, 8, -8, -1}) >> jf::array<std::int32_t>({1, 40, 40, -3})).to_vector(), (I{-4, 0, -1, -1}));
  EXPECT_EQ(jf::eval(jf::power(jf::array<std::int64_t>({2, -2, 3, 0}), jf::array<std::int64_t>({62, 63, 40, 0}))).to_vector(),
            (std::vector<std::int64_t>{4611686018427387904LL, INT64_MIN, -6289078614652622815LL, 1}));
  EXPECT_EQ(jf::eval(jf::array<std::int32_t>({INT32_MAX, INT32_MIN}) + 1).to_vector(), (I{INT32_MIN, INT32_MIN + 1}));
  EXPECT_TRUE(same_values(jf::eval(jf::array<std::int32_t>({1, 0, -3}) / jf::array<std::int32_t>({0, 0, 2})).to_vector(), V{INFINITY, NAN, -1.5}));
}

}  // namespace

// The form of hypot the generated kernels fall back to when CUDA's hypot overflowed (scalar_ops.hpp):
// finite where numpy is, inf where the result is past the range, within an ulp of glibc elsewhere.
template <class T>
void check_hypot_scaled() {
  constexpr T max = std::numeric_limits<T>::max(), inf = std::numeric_limits<T>::infinity();
  EXPECT_EQ(jf::ops::hypot_scaled(max, T(1)), max);
  EXPECT_EQ(jf::ops::hypot_scaled(T(-9.2e18), -max), max);
  EXPECT_EQ(jf::ops::hypot_scaled(max, max), inf);
  EXPECT_EQ(jf::ops::hypot_scaled(max, max / 4), inf);
  EXPECT_EQ(jf::ops::hypot_scaled(T(0), T(0)), T(0));
  EXPECT_EQ(jf::ops::hypot_scaled(T(3), T(-4)), T(5));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto& r = rng();
  for (int i = 0; i < 10000; ++i) {
    const T a = static_cast<T>(u(r) * max), b = static_cast<T>(std::ldexp(u(r), -static_cast<int>(u(r) * 60)) * max);
    const T got = jf::ops::hypot_scaled(a, b), want = std::hypot(a, b);
    ASSERT_TRUE(std::isfinite(want) ? std::abs(got - want) <= 2 * std::numeric_limits<T>::epsilon() * want
                                    : got == want)
        << "hypot(" << a << ", " << b << "): " << got << " vs " << want << ", seed " << test_support::seed();
  }
}

// jf::hypot on the CPU backend at the top of the range: numpy's values (hypot_edge_values.hpp).
template <class T>
void check_hypot_edges() {
  const hypot_edges::cases<T> c;
  const std::int64_t n = static_cast<std::int64_t>(c.a.size());
  const std::vector<T> got = jf::array<T>(jf::hypot(jf::array<T>(c.a, {n}), jf::array<T>(c.b, {n}))).to_vector();
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (c.want[k] != T(-1)) {
      EXPECT_EQ(got[k], c.want[k]) << "hypot(" << c.a[k] << ", " << c.b[k] << ")";
    }
  }
}

TEST(CpuOpsBinary, HypotScaledAtTheTopOfTheRange) {
  check_hypot_scaled<float>();
  check_hypot_scaled<double>();
  check_hypot_edges<float>();
  check_hypot_edges<double>();
}
