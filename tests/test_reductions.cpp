// Reductions on the CPU backend: numpy's table (every reducer x dtype x axis x keepdims, empty
// inputs and NaN positions), expressions around reductions, errors, views and large sizes against
// independent references.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numeric>
#include <random>

#include "reduction_table.hpp"

namespace {

std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const std::uint64_t v = std::random_device{}();
    std::printf("test_reductions: random seed %llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

template <class T> std::vector<T> random_vector(std::size_t n, std::mt19937_64& r, double lo = -3, double hi = 3) {
  std::vector<T> v(n);
  std::uniform_real_distribution<double> u(lo, hi);
  for (auto& x : v) x = static_cast<T>(u(r));
  return v;
}

TEST(Reductions, NumpyTableOnCpu) { reduction_table::run_table(jf::cpu); }

TEST(Reductions, ResultDtypesAreNumpys) {
  jf::array<std::int32_t> i({1, 2, 3});
  jf::array<bool> b({true, false, true});
  jf::array<float> f({1.f, 2.f});
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::sum(i))>, std::int64_t>);
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::sum(b))>, std::int64_t>);
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::mean(i))>, double>);
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::mean(f))>, float>);
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::max(i))>, std::int32_t>);
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::argmax(f))>, std::int64_t>);
  static_assert(std::is_same_v<jf::value_type_t<decltype(jf::any(f))>, bool>);
  EXPECT_EQ(jf::sum(i).item(), 6);
  EXPECT_EQ(jf::sum(b).item(), 2);
  EXPECT_DOUBLE_EQ(jf::mean(i).item(), 2.0);
}

TEST(Reductions, ItemOfTheExampleInTheIssue) {
  jf::array<double> a({1.0, 2.0, 3.0}), b({4.0, -5.0, 6.0});
  const double s = jf::sum(a * b).item();
  EXPECT_EQ(s, 4.0 - 10.0 + 18.0);
  EXPECT_DOUBLE_EQ(jf::sqrt(jf::sum(a * a)).item(), std::sqrt(14.0));
  jf::array<double> two = jf::sum(a, 0, jf::keepdims);  // shape (1,)
  EXPECT_THROW((void)jf::array<double>(a + b).item(), jf::value_error);  // size 3
  EXPECT_EQ(two.item(), 6.0);
}

TEST(Reductions, RowCenteringIsOneExpression) {
  std::mt19937_64 r(seed());
  const std::int64_t m = 37, n = 1001;
  const auto xv = random_vector<float>(static_cast<std::size_t>(m * n), r);
  jf::array<float> x(xv, {m, n});
  jf::array<float> y = x - jf::mean(x, 1, jf::keepdims);
  ASSERT_EQ(jf::to_string(y.shape()), "(37, 1001)");
  const auto got = y.to_vector();
  for (std::int64_t i = 0; i < m; ++i) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += xv[static_cast<std::size_t>(i * n + j)];
    const float mean = static_cast<float>(s / n);
    for (std::int64_t j = 0; j < n; ++j)
      ASSERT_NEAR(got[static_cast<std::size_t>(i * n + j)], xv[static_cast<std::size_t>(i * n + j)] - mean, 1e-5)
          << "row " << i << " column " << j;
  }
  // In place: every row's mean is read before the row is written.
  jf::array<float> z = x.copy();
  z = z - jf::mean(z, 1, jf::keepdims);
  const auto zv = z.to_vector();
  for (std::size_t k = 0; k < zv.size(); ++k) ASSERT_EQ(zv[k], got[k]) << k;
}

TEST(Reductions, ColumnMeansUsedByEveryRow) {
  std::mt19937_64 r(seed() + 1);
  const std::int64_t m = 19, n = 23;
  const auto xv = random_vector<double>(static_cast<std::size_t>(m * n), r);
  jf::array<double> x(xv, {m, n});
  jf::array<double> y = x - jf::mean(x, 0);  // (m, n) - (n,)
  const auto got = y.to_vector();
  for (std::int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (std::int64_t i = 0; i < m; ++i) s += xv[static_cast<std::size_t>(i * n + j)];
    for (std::int64_t i = 0; i < m; ++i)
      ASSERT_NEAR(got[static_cast<std::size_t>(i * n + j)], xv[static_cast<std::size_t>(i * n + j)] - s / m, 1e-12);
  }
}

TEST(Reductions, NestedAndSeveralReductions) {
  std::mt19937_64 r(seed() + 2);
  const std::int64_t m = 13, n = 77;
  const auto xv = random_vector<double>(static_cast<std::size_t>(m * n), r);
  jf::array<double> x(xv, {m, n});
  // The sum of squared deviations from each row's mean, and the variance of everything.
  const double ss = jf::sum(jf::square(x - jf::mean(x, 1, jf::keepdims))).item();
  double want = 0, all = 0, all2 = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) s += xv[static_cast<std::size_t>(i * n + j)];
    for (std::int64_t j = 0; j < n; ++j) {
      const double d = xv[static_cast<std::size_t>(i * n + j)] - s / n;
      want += d * d;
    }
  }
  EXPECT_NEAR(ss, want, 1e-10 * want);
  for (double v : xv) all += v;
  for (double v : xv) all2 += (v - all / double(m * n)) * (v - all / double(m * n));
  EXPECT_NEAR(jf::var(x).item(), all2 / double(m * n), 1e-12);
  EXPECT_NEAR(jf::std(x, jf::ddof(1)).item(), std::sqrt(all2 / double(m * n - 1)), 1e-12);
  // Two reductions in one evaluation (one kernel on a GPU).
  auto [lo, hi] = jf::eval(jf::min(x, 1), jf::max(x, 1));
  const auto lov = lo.to_vector(), hiv = hi.to_vector();
  for (std::int64_t i = 0; i < m; ++i) {
    auto b = xv.begin() + i * n;
    EXPECT_EQ(lov[static_cast<std::size_t>(i)], *std::min_element(b, b + n));
    EXPECT_EQ(hiv[static_cast<std::size_t>(i)], *std::max_element(b, b + n));
  }
}

TEST(Reductions, ViewsAndBroadcastOperands) {
  std::mt19937_64 r(seed() + 3);
  const auto xv = random_vector<double>(6 * 8, r);
  jf::array<double> x(xv, {6, 8});
  auto xt = x.transpose();                           // (8, 6), strided
  auto rev = x(jf::range(jf::none, jf::none, -1), jf::range(1, 7, 2));  // (6, 3): reversed rows, step 2
  jf::array<double> s1 = jf::sum(xt, 1);             // = sums over x's axis 0
  jf::array<double> s2 = jf::sum(rev, 0);
  jf::array<double> c({1.0, 2.0, 3.0});
  jf::array<double> s3 = jf::sum(rev * c, 1);        // a broadcast operand inside the reduction
  const auto v1 = s1.to_vector(), v2 = s2.to_vector(), v3 = s3.to_vector();
  for (int j = 0; j < 8; ++j) {
    double s = 0;
    for (int i = 0; i < 6; ++i) s += xv[static_cast<std::size_t>(i * 8 + j)];
    EXPECT_NEAR(v1[static_cast<std::size_t>(j)], s, 1e-12);
  }
  for (int k = 0; k < 3; ++k) {
    double s = 0;
    for (int i = 0; i < 6; ++i) s += xv[static_cast<std::size_t>((5 - i) * 8 + 1 + 2 * k)];
    EXPECT_NEAR(v2[static_cast<std::size_t>(k)], s, 1e-12);
  }
  for (int i = 0; i < 6; ++i) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s += xv[static_cast<std::size_t>((5 - i) * 8 + 1 + 2 * k)] * (k + 1);
    EXPECT_NEAR(v3[static_cast<std::size_t>(i)], s, 1e-12);
  }
  // A reduction broadcast into a larger output: numpy's out[...] = value.
  jf::array<double> out = jf::zeros<double>({4, 3});
  out = jf::sum(rev, 0);
  const auto ov = out.to_vector();
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(ov[static_cast<std::size_t>(i * 3 + k)], v2[static_cast<std::size_t>(k)]);
}

TEST(Reductions, ErrorsAreNumpys) {
  jf::array<double> x = jf::zeros<double>({3, 4});
  EXPECT_THROW((void)jf::eval(jf::sum(x, 2)), jf::axis_error);
  EXPECT_THROW((void)jf::eval(jf::sum(x, -3)), jf::axis_error);
  EXPECT_THROW((void)jf::eval(jf::sum(x, {1, -1})), jf::axis_error);
  jf::array<double> empty = jf::zeros<double>({3, 0});
  EXPECT_THROW((void)jf::eval(jf::max(empty, 1)), jf::value_error);
  EXPECT_THROW((void)jf::eval(jf::argmax(empty)), jf::value_error);
  jf::array<double> rows = jf::max(empty, 0);  // reduces an axis of extent 3: fine, shape (0,)
  EXPECT_EQ(rows.size(), 0);
  EXPECT_EQ(jf::sum(empty).item(), 0.0);
  jf::array<double> s = jf::sum(empty, 1);
  EXPECT_EQ(s.to_vector(), (std::vector<double>{0, 0, 0}));
  try {
    (void)jf::eval(jf::sum(x, 5));
    ADD_FAILURE() << "no axis_error";
  } catch (const jf::axis_error& e) {
    EXPECT_STREQ(e.what(), "axis 5 is out of bounds for array of dimension 2");
  }
  // The output is untouched when the call fails.
  jf::array<double> out = jf::full<double>({3}, 7.0);
  EXPECT_THROW(out = jf::min(empty, 1), jf::value_error);
  EXPECT_EQ(out.to_vector(), (std::vector<double>{7, 7, 7}));
  // Shapes that do not broadcast inside a reduction.
  jf::array<double> a = jf::zeros<double>({3}), b = jf::zeros<double>({4});
  EXPECT_THROW((void)jf::eval(jf::sum(a + b)), jf::shape_error);
}

TEST(Reductions, LargeSumsAgainstCompensatedReference) {
  std::mt19937_64 r(seed() + 4);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1023), std::int64_t(1) << 20, (std::int64_t(1) << 24) + 5}) {
    const auto av = random_vector<double>(static_cast<std::size_t>(n), r, -1, 1);
    const auto bv = random_vector<double>(static_cast<std::size_t>(n), r, -1, 1);
    jf::array<double> a(av), b(bv);
    long double ref = 0;
    for (std::size_t i = 0; i < av.size(); ++i) ref += static_cast<long double>(av[i]) * bv[i];
    const double got = jf::sum(a * b).item();
    EXPECT_NEAR(got, static_cast<double>(ref), 1e-13 * std::sqrt(double(n)) + 1e-15) << "n = " << n;
    // Deterministic: the same bits again.
    EXPECT_EQ(jf::sum(a * b).item(), got);
    const std::int64_t am = jf::argmax(a).item();
    EXPECT_EQ(am, std::max_element(av.begin(), av.end()) - av.begin());
  }
}

// Float32 sums are pairwise, as numpy's: within 1e-6 relative of a long double reference for
// 2^22 values in [0, 1), and so are mean and var (sums too) of 10^6 values.
TEST(Reductions, Float32SumsMeanVarArePairwise) {
  std::mt19937_64 r(seed() + 5);
  auto rel = [](double got, long double want) { return std::abs(static_cast<double>((got - want) / want)); };
  const auto xv = random_vector<float>(std::size_t(1) << 22, r, 0, 1);
  long double sx = 0;
  for (float v : xv) sx += v;
  EXPECT_LE(rel(jf::sum(jf::array<float>(xv)).item(), sx), 1e-6);
  const auto yv = random_vector<float>(1000000, r, 0, 1);
  jf::array<float> y(yv);
  long double sy = 0, ss = 0;
  for (float v : yv) sy += v;
  const long double mean = sy / yv.size();
  for (float v : yv) ss += (v - mean) * (v - mean);
  EXPECT_LE(rel(jf::mean(y).item(), mean), 1e-6);
  EXPECT_LE(rel(jf::var(y).item(), ss / yv.size()), 1e-6);
}

TEST(Reductions, DotAndVdotAreNumpys) {
  jf::array<std::int32_t> i({2000000000, 2000000000, 3});
  jf::array<std::int32_t> one({1, 1, 1});
  const auto di = jf::dot(i, one).item();  // numpy accumulates in int32: wraps
  static_assert(std::is_same_v<decltype(di), const std::int32_t>);
  EXPECT_EQ(di, static_cast<std::int32_t>(static_cast<std::uint32_t>(4000000003LL)));
  jf::array<bool> b({true, false}), c({true, true});
  EXPECT_TRUE(jf::dot(b, c).item());
  EXPECT_FALSE(jf::dot(b, jf::array<bool>({false, true})).item());
  jf::array<float> f({1.5f, 2.0f});
  jf::array<double> d({2.0, 4.0});
  EXPECT_EQ(jf::dot(f, d).item(), 11.0);  // float32 . float64 -> float64
  EXPECT_EQ(jf::dot(jf::zeros<double>({0}), jf::zeros<double>({0})).item(), 0.0);
  jf::array<double> m(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(jf::vdot(m, m).item(), 91.0);
  try {
    (void)jf::dot(jf::zeros<double>({3}), jf::zeros<double>({4}));
    ADD_FAILURE() << "no shape_error";
  } catch (const jf::shape_error& e) {
    EXPECT_STREQ(e.what(), "shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)");
  }
  EXPECT_THROW((void)jf::dot(m, m), jf::shape_error);  // (2,3) . (2,3): not aligned (2-d dot: test_matmul.cpp)
  EXPECT_THROW((void)jf::vdot(m, m.transpose()), jf::shape_error);
}

// Outer-axis reductions (the reduced axes outer in memory: a column sum) are combined row by row
// in increasing reduced index (numpy's order): exact integer data against host loops for odd
// shapes, extents 0 and 1, views, several tiles of results (tiles of several blocks, partial last
// blocks and tiles, and 70001 results past the 256 KiB of accumulators a tile holds); floats bit
// for bit against the sequential loop; min/max/any and a 3-D middle axis.
TEST(Reductions, OuterAxisReductionsAgainstHostLoops) {
  std::mt19937_64 r(seed() + 6);
  std::uniform_int_distribution<std::int64_t> u(-1000000, 1000000);
  const std::vector<std::array<std::int64_t, 2>> shapes = {{1, 64},     {2, 64},    {3, 100},     {0, 100},
                                                           {100, 0},    {5, 1},     {64, 63},     {7, 65},
                                                           {300, 1025}, {33, 3000}, {1000, 2049}, {3, 70001}};
  for (const auto& [m, n] : shapes) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    std::vector<std::int64_t> xv(static_cast<std::size_t>(m * n));
    for (auto& v : xv) v = u(r);
    jf::array<std::int64_t> x(xv, {m, n});
    auto at = [&](std::int64_t i, std::int64_t j) { return xv[static_cast<std::size_t>(i * n + j)]; };
    const auto s = jf::array<std::int64_t>(jf::sum(x * 3 + 1, 0)).to_vector();
    const auto rs = jf::array<std::int64_t>(jf::sum(x(jf::range(jf::none, jf::none, -1), jf::all), 0)).to_vector();
    ASSERT_EQ(static_cast<std::int64_t>(s.size()), n);
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t want = 0;
      for (std::int64_t i = 0; i < m; ++i) want += at(i, j) * 3 + 1;
      EXPECT_EQ(s[static_cast<std::size_t>(j)], want) << j;
      want = 0;
      for (std::int64_t i = 0; i < m; ++i) want += at(i, j);
      EXPECT_EQ(rs[static_cast<std::size_t>(j)], want) << j;
    }
    if (m == 0) continue;  // max of an empty axis raises
    const auto mx = jf::array<std::int64_t>(jf::max(x, 0)).to_vector();
    const auto any = jf::array<bool>(jf::any(x > 990000, 0)).to_vector();
    std::vector<double> fv(xv.begin(), xv.end());
    for (auto& v : fv) v = v / 7.0 + 0.1;
    jf::array<double> f(fv, {m, n});
    const auto fs = jf::array<double>(jf::sum(f, 0)).to_vector();
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t want = at(0, j);
      bool some = false;
      double fsum = 0;
      for (std::int64_t i = 0; i < m; ++i) {
        want = std::max(want, at(i, j));
        some = some || at(i, j) > 990000;
        fsum += fv[static_cast<std::size_t>(i * n + j)];
      }
      EXPECT_EQ(mx[static_cast<std::size_t>(j)], want) << j;
      EXPECT_EQ(any[static_cast<std::size_t>(j)], some) << j;
      if (n >= 64) EXPECT_EQ(fs[static_cast<std::size_t>(j)], fsum) << j;  // the documented order, bit for bit
      else EXPECT_NEAR(fs[static_cast<std::size_t>(j)], fsum, 1e-9 * m * 1e6);
    }
  }
  // The middle axis of a 3-D array: results over axes 0 and 2, rows along axis 1.
  const std::int64_t a = 3, b = 50, c = 130;
  std::vector<std::int32_t> yv(static_cast<std::size_t>(a * b * c));
  for (auto& v : yv) v = static_cast<std::int32_t>(u(r) % 1000);
  jf::array<std::int32_t> y(yv, {a, b, c});
  const auto ys = jf::array<std::int64_t>(jf::sum(y, 1)).to_vector();
  for (std::int64_t i = 0; i < a; ++i)
    for (std::int64_t k = 0; k < c; ++k) {
      std::int64_t want = 0;
      for (std::int64_t j = 0; j < b; ++j) want += yv[static_cast<std::size_t>((i * b + j) * c + k)];
      EXPECT_EQ(ys[static_cast<std::size_t>(i * c + k)], want);
    }
}

TEST(Reductions, ExplainSaysHowItRuns) {
  jf::array<double> a = jf::zeros<double>({100}), b = jf::zeros<double>({100});
  const std::string e = jf::explain(jf::sum(a * b));
  EXPECT_NE(e.find("reduce sum f64"), std::string::npos) << e;
  EXPECT_NE(e.find("CPU executor"), std::string::npos) << e;
}

}  // namespace
