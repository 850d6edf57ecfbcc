// jf::random's normal and integers leaves: their distributions (Kolmogorov-Smirnov against the
// standard normal CDF, moments and tails; chi-square of integer counts), their positions in the
// generator's sequence, numpy's argument errors, and the GPU against the CPU (integers bit for bit,
// normals within a few ulp: the two backends' log/sin/cos differ), fused and unfused alike. The same
// for jf::random::philox4x32 (other bits, the same conversions), and its uniform draws'
// Kolmogorov-Smirnov statistic.
//
// The statistical tests use fixed keys, so they cannot flake: each was chosen before its first run
// and passes at a significance level of 0.1 % (a generator that failed it would fail it for 999
// keys in 1000). GPU tests skip without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <jetfuse/jetfuse.hpp>

namespace {

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

bool gpu() { return jf::cuda_available(); }
#define REQUIRE_GPU() \
  if (!gpu()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped"

// The largest distance between the sample's empirical CDF and the standard normal's (or, uniform,
// U(0, 1)'s).
double ks_statistic(std::vector<double> x, bool uniform = false) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = uniform ? x[i] : 0.5 * std::erfc(-x[i] / std::sqrt(2.0));
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

template <class T> std::vector<double> as_double(const std::vector<T>& v) { return {v.begin(), v.end()}; }

void check_standard_normal(const std::vector<double>& z) {
  const double n = static_cast<double>(z.size());
  // Kolmogorov-Smirnov at 0.1 %: D < 1.949 / sqrt(n).
  EXPECT_LT(ks_statistic(z), 1.949 / std::sqrt(n));
  double m = 0, v = 0;
  for (double x : z) m += x;
  m /= n;
  for (double x : z) v += (x - m) * (x - m);
  v /= n - 1;
  EXPECT_NEAR(m, 0.0, 3.3 * std::sqrt(1 / n));           // the mean's standard error is 1 / sqrt(n)
  EXPECT_NEAR(v, 1.0, 3.3 * std::sqrt(2 / (n - 1)));     // the variance's is sqrt(2 / (n - 1))
  const double beyond3 = static_cast<double>(std::count_if(z.begin(), z.end(), [](double x) { return std::abs(x) > 3; }));
  const double p3 = 0.0026997960632601866;  // P(|z| > 3)
  EXPECT_NEAR(beyond3 / n, p3, 3.3 * std::sqrt(p3 * (1 - p3) / n));
}

TEST(RandomNormal, Float64IsStandardNormal) {
  jf::random::philox g(20261124);
  check_standard_normal(host(jf::array<double>(g.normal({200001}))));  // odd: half a pair unused
}

TEST(RandomNormal, Float32IsStandardNormal) {
  jf::random::philox g(777);
  check_standard_normal(as_double(host(jf::array<float>(g.normal<float>({200000})))));
}
TEST(RandomNormal, Philox4x32IsStandardNormal) {
  jf::random::philox4x32 g(20270101);
  check_standard_normal(host(jf::array<double>(g.normal({200001}))));
  check_standard_normal(as_double(host(jf::array<float>(g.normal<float>({200000})))));
}

// Uniform draws of philox4x32 in [0, 1): Kolmogorov-Smirnov at 0.1 %, mean 1/2 and variance 1/12
// within 3.3 standard errors (numpy's philox is numpy's bits: tests/test_random.cpp).
void check_standard_uniform(const std::vector<double>& u) {
  const double n = static_cast<double>(u.size());
  EXPECT_LT(ks_statistic(u, true), 1.949 / std::sqrt(n));
  double m = 0, v = 0;
  for (double x : u) m += x;
  m /= n;
  for (double x : u) v += (x - m) * (x - m);
  v /= n - 1;
  EXPECT_NEAR(m, 0.5, 3.3 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(v, 1.0 / 12, 3.3 * std::sqrt(1.0 / 180 / n));  // the variance of (x - 1/2)^2 is 1/180
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0);
}
TEST(RandomUniform, Philox4x32IsUniform) {
  jf::random::philox4x32 g(4321);
  check_standard_uniform(host(jf::array<double>(g.random({200000}))));
  check_standard_uniform(as_double(host(jf::array<float>(g.random<float>({200001})))));
}

TEST(RandomNormal, LocScaleAndPositions) {
  jf::random::philox g(5), h(5);
  (void)g.random({3});                                 // next output 3: a float64 normal starts at 4
  const auto a = host(jf::array<double>(g.normal({5}, 10.0, 2.0)));
  EXPECT_EQ(g.position(), 4u + 6u);                    // 5 values take 3 pairs
  (void)h.random({4});
  const auto z = host(jf::array<double>(h.normal({5})));
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(a[i], 10.0 + 2.0 * z[i]);
  // The two halves of a pair are r cos t and r sin t: their squares sum to r^2 = -2 log u1.
  EXPECT_GT(z[0] * z[0] + z[1] * z[1], 0.0);
  EXPECT_NE(z[0], z[1]);
  jf::random::philox f(5);
  (void)f.random<float>({1});  // a kept float32 half: a float32 normal leaves it for random<float>
  (void)f.normal<float>({3});
  EXPECT_EQ(f.position(), 3u);
  EXPECT_THROW((void)f.normal({2}, 0.0, -1.0), jf::value_error);
}

// Counts of values in [0, k) against k equal probabilities: chi-square below its 0.1 % quantile.
void check_uniform_counts(const std::vector<std::int64_t>& counts, double chi2_999) {
  double n = 0;
  for (auto c : counts) n += static_cast<double>(c);
  const double e = n / static_cast<double>(counts.size());
  double chi2 = 0;
  for (auto c : counts) chi2 += (static_cast<double>(c) - e) * (static_cast<double>(c) - e) / e;
  EXPECT_LT(chi2, chi2_999) << "chi-square over " << counts.size() << " cells";
}

template <class Gen> void counts_are_uniform(std::uint64_t key) {
  Gen g(key);
  const auto seven = host(jf::array<std::int64_t>(g.integers({700000}, -3, 4)));
  std::vector<std::int64_t> c7(7, 0);
  for (auto v : seven) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
    ++c7[static_cast<std::size_t>(v + 3)];
  }
  check_uniform_counts(c7, 22.46);  // chi-square, 6 degrees of freedom, 0.1 %
  const auto ten = host(jf::array<std::int32_t>(g.template integers<std::int32_t>({1000000}, 100, 110)));
  std::vector<std::int64_t> c10(10, 0);
  for (auto v : ten) {
    ASSERT_GE(v, 100);
    ASSERT_LT(v, 110);
    ++c10[static_cast<std::size_t>(v - 100)];
  }
  check_uniform_counts(c10, 27.88);  // 9 degrees of freedom
  // A range wider than 2^32, in 16 equal slices of values (2^36 is a multiple of 16).
  const std::int64_t lo = -(std::int64_t(1) << 35);
  const auto wide = host(jf::array<std::int64_t>(g.integers({500000}, lo, -lo)));
  std::vector<std::int64_t> c16(16, 0);
  for (auto v : wide) {
    ASSERT_GE(v, lo);
    ASSERT_LT(v, -lo);
    ++c16[static_cast<std::size_t>((v - lo) >> 32)];
  }
  check_uniform_counts(c16, 37.70);  // 15 degrees of freedom
  // The whole int32 range, and a range of one value.
  const auto full = host(jf::array<std::int32_t>(g.template integers<std::int32_t>({1000}, INT32_MIN, std::int64_t(INT32_MAX) + 1)));
  EXPECT_LT(*std::min_element(full.begin(), full.end()), -1000000000);
  EXPECT_GT(*std::max_element(full.begin(), full.end()), 1000000000);
  const auto one = host(jf::array<std::int64_t>(g.integers({10}, 42, 43)));
  EXPECT_EQ(one, std::vector<std::int64_t>(10, 42));
}
TEST(RandomIntegers, CountsAreUniform) { counts_are_uniform<jf::random::philox>(31337); }
TEST(RandomIntegers, Philox4x32CountsAreUniform) { counts_are_uniform<jf::random::philox4x32>(27182818); }

TEST(RandomIntegers, ArgumentsAreChecked) {
  jf::random::philox g(1);
  EXPECT_THROW((void)g.integers({3}, 5, 5), jf::value_error);
  EXPECT_THROW((void)g.integers<std::int32_t>({3}, 0, std::int64_t(1) << 40), jf::value_error);
  EXPECT_THROW((void)g.integers<std::int32_t>({3}, -(std::int64_t(1) << 40), 0), jf::value_error);
  EXPECT_EQ(g.position(), 0u);  // nothing drawn by a refused call
  (void)g.integers({3}, 0, 5);
  EXPECT_EQ(g.position(), 3u);
}

// Fused and unfused give the same bits on one backend (the leaves' values do not depend on how the
// expression was cut into kernels).
template <class Gen> void fusion_modes(jf::device dev) {
  Gen a(9), b(9);
  auto za = a.normal({1001}, 1.0, 3.0, dev);
  auto ia = a.integers({1001}, -50, 50, dev);
  const jf::array<double> fused = jf::eval(za * 2 + jf::astype<double>(ia));
  auto zb = b.normal({1001}, 1.0, 3.0, dev);
  auto ib = b.integers({1001}, -50, 50, dev);
  const jf::array<double> unfused = jf::eval(jf::unfused, zb * 2 + jf::astype<double>(ib));
  EXPECT_EQ(host(fused), host(unfused));
}
TEST(RandomDistributions, FusedEqualsUnfusedOnTheCpu) {
  fusion_modes<jf::random::philox>(jf::cpu);
  fusion_modes<jf::random::philox4x32>(jf::cpu);
}
TEST(RandomDistributions, FusedEqualsUnfusedOnTheGpu) {
  REQUIRE_GPU();
  fusion_modes<jf::random::philox>(jf::cuda);
  fusion_modes<jf::random::philox4x32>(jf::cuda);
}

// The GPU's values against the CPU's: integers exactly, normals within a few ulp; at sizes and
// starting positions that exercise the chunked kernels (aligned and not) and the per-element path
// (a broadcast leaf), and reductions over the leaves.
template <class Gen> void gpu_matches_the_cpu() {
  for (std::int64_t n : {1, 2, 7, 128, 255, 1000, 65537}) {
    for (int skip = 0; skip < 3; ++skip) {
      SCOPED_TRACE("n " + std::to_string(n) + ", skip " + std::to_string(skip));
      std::vector<double> z64[2], m[2];
      std::vector<float> z32[2];
      std::vector<std::int64_t> i64[2];
      std::vector<std::int32_t> i32[2];
      std::vector<double> bcast[2];
      std::int64_t isum[2] = {0, 0};
      int b = 0;
      for (jf::device dev : {jf::cpu, jf::cuda}) {
        Gen g(4242 + static_cast<std::uint64_t>(n));
        if (skip) (void)g.template random<float>({skip}, dev);
        z64[b] = host(jf::array<double>(g.normal({n}, 0.0, 1.0, dev)));
        z32[b] = host(jf::array<float>(g.template normal<float>({n}, 0.0, 1.0, dev)));
        auto x = g.integers({n}, -1000, 1000000007, dev);
        auto y = g.template integers<std::int32_t>({n}, 0, 10, dev);
        i64[b] = host(jf::array<std::int64_t>(x));
        i32[b] = host(jf::array<std::int32_t>(y));
        m[b] = host(jf::array<double>(g.normal({n}, 0.0, 1.0, dev) * jf::astype<double>(g.template integers<std::int32_t>({n}, 1, 3, dev))));
        bcast[b] = host(jf::array<double>(g.normal({1, 3}, 0.0, 1.0, dev) + jf::zeros<double>({4, 3}, dev)));
        isum[b] = jf::sum(g.integers({n}, 0, 1000, dev)).item();  // integer sum: exact in any order
        ++b;
      }
      EXPECT_EQ(i64[0], i64[1]);
      EXPECT_EQ(i32[0], i32[1]);
      EXPECT_EQ(isum[0], isum[1]);
      ASSERT_EQ(z64[0].size(), z64[1].size());
      for (std::size_t i = 0; i < z64[0].size(); ++i) {
        EXPECT_NEAR(z64[0][i], z64[1][i], 1e-13 * std::max(1.0, std::abs(z64[0][i]))) << i;
        EXPECT_NEAR(z32[0][i], z32[1][i], 2e-6f * std::max(1.0f, std::abs(z32[0][i]))) << i;
        EXPECT_NEAR(m[0][i], m[1][i], 1e-12 * std::max(1.0, std::abs(m[0][i]))) << i;
      }
      for (std::size_t i = 0; i < 12; ++i) EXPECT_NEAR(bcast[0][i], bcast[1][i], 1e-13 * std::max(1.0, std::abs(bcast[0][i])));
    }
  }
}

TEST(RandomDistributions, GpuMatchesTheCpu) {
  REQUIRE_GPU();
  gpu_matches_the_cpu<jf::random::philox>();
}
TEST(RandomDistributions, Philox4x32GpuMatchesTheCpu) {
  REQUIRE_GPU();
  gpu_matches_the_cpu<jf::random::philox4x32>();
}

}  // namespace
