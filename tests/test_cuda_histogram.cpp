// jf::histogram and jf::bincount on jf::cuda against the CPU executor (which test_histogram checks
// against numpy's table): large random inputs of every dtype, values on the bin edges, ranges given
// and from the data, one bin, many bins (counts in global memory instead of shared), views,
// expressions fused and unfused, repeated runs bit-equal, inputs untouched. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "gpu_test_util.hpp"

namespace {

std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const std::uint64_t v = std::random_device{}();
    std::printf("test_cuda_histogram: random seed %llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

// Normal values around the middle of [lo, hi], some outside, a few NaN/inf, and a share exactly on
// numpy's bin edges (the hardest values to bin).
template <class T> std::vector<T> values(std::size_t n, std::mt19937_64& r, double lo, double hi, std::int64_t bins) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, bool>) {
    for (auto&& x : v) x = (r() & 3) == 0;
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> u(static_cast<long long>(lo) - 3, static_cast<long long>(hi) + 3);
    for (auto& x : v) x = static_cast<T>(u(r));
  } else {
    std::normal_distribution<double> g((lo + hi) / 2, (hi - lo) / 3);
    const double w = (hi - lo) / static_cast<double>(bins);
    for (auto& x : v) {
      const auto k = r() % 16;
      if (k == 0) x = static_cast<T>(lo + w * static_cast<double>(r() % static_cast<std::uint64_t>(bins + 1)));
      else if (k == 1 && r() % 8 == 0) x = (r() & 1) ? std::numeric_limits<T>::quiet_NaN() : std::numeric_limits<T>::infinity();
      else x = static_cast<T>(g(r));
    }
  }
  return v;
}

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

template <class T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if constexpr (std::is_same_v<T, bool>) return a == b;
  else return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T> void check_given_range(std::size_t n, std::int64_t bins, double lo, double hi, std::mt19937_64& r) {
  SCOPED_TRACE(std::string("dtype ") + std::string(jf::name(jf::dtype_v<T>)) + ", n " + std::to_string(n) + ", bins " +
               std::to_string(bins) + ", range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  const std::vector<T> v = values<T>(n, r, lo, hi, bins);
  const jf::array<T> xc(v, {static_cast<std::int64_t>(n)}, jf::cpu);
  const jf::array<T> xg = jf::to_backend(xc, jf::cuda);
  const auto [hc, ec] = jf::histogram(xc, bins, {lo, hi});
  const auto [hg, eg] = jf::histogram(xg, bins, {lo, hi});
  EXPECT_EQ(jf::backend(hg), jf::cuda);
  EXPECT_EQ(host(hg), host(hc));
  EXPECT_EQ(host(eg), host(ec));
  std::int64_t total = 0;
  for (auto c : host(hc)) total += c;
  if (n >= 1000) {
    EXPECT_GT(total, 0);  // something was counted
  }
  // Fused with an expression, and unfused (one kernel per operation): the same counts.
  const auto [hf, ef] = jf::histogram(xg + 0, bins, {lo, hi});
  const auto [hu, eu] = jf::histogram(jf::unfused, xg + 0, bins, {lo, hi});
  EXPECT_EQ(host(hf), host(hc));
  EXPECT_EQ(host(hu), host(hc));
  EXPECT_TRUE(same_bits(host(xg), v));  // the input is untouched
}

TEST(CudaHistogram, GivenRangeMatchesTheCpuExecutor) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed());
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(1) << 20, (std::size_t(1) << 22) + 3}) {
    check_given_range<double>(n, 100, 0.0, 1.0, r);
    check_given_range<float>(n, 7, 0.1, 0.7, r);
  }
  check_given_range<double>(1 << 20, 1, -1.0, 1.0, r);           // one bin: a guarded count
  check_given_range<float>(1 << 20, 3, -3.0, 3.0, r);
  check_given_range<double>(1 << 20, 20000, -2.5, 2.5, r);        // counts in global memory
  check_given_range<std::int32_t>(1 << 20, 13, -100.0, 100.0, r);
  check_given_range<std::int64_t>(1 << 20, 10, 0.0, 10.0, r);
  check_given_range<bool>(1000, 2, 0.0, 1.0, r);
}

TEST(CudaHistogram, RangeFromTheDataMatchesTheCpuExecutor) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 1);
  std::normal_distribution<double> g(0, 1);
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(999), std::int64_t(1) << 21}) {
    std::vector<float> vf(static_cast<std::size_t>(n));
    for (auto& x : vf) x = static_cast<float>(g(r));
    std::vector<std::int64_t> vi(static_cast<std::size_t>(n));
    for (auto& x : vi) x = static_cast<std::int64_t>(r() % 1000) - 500;
    const jf::array<float> fc(vf, {n}, jf::cpu);
    const jf::array<std::int64_t> ic(vi, {n}, jf::cpu);
    const auto [h1, e1] = jf::histogram(fc, 50);
    const auto [h2, e2] = jf::histogram(jf::to_backend(fc, jf::cuda), 50);
    EXPECT_EQ(host(h2), host(h1)) << n;
    EXPECT_EQ(host(e2), host(e1)) << n;
    const auto [h3, e3] = jf::histogram(ic * 3, 17);
    const auto [h4, e4] = jf::histogram(jf::to_backend(ic, jf::cuda) * 3, 17);
    EXPECT_EQ(host(h4), host(h3)) << n;
    EXPECT_EQ(host(e4), host(e3)) << n;
  }
}

TEST(CudaHistogram, ViewsAndTwoDimensionalOperands) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 2);
  const std::vector<double> v = values<double>(300 * 517, r, -1, 1, 64);
  const jf::array<double> xc(v, {300, 517}, jf::cpu);
  const jf::array<double> xg = jf::to_backend(xc, jf::cuda);
  const auto [hc, ec] = jf::histogram(xc.transpose(), 64, {-1.0, 1.0});
  const auto [hg, eg] = jf::histogram(xg.transpose(), 64, {-1.0, 1.0});
  EXPECT_EQ(host(hg), host(hc));
  const auto [hs, es] = jf::histogram(xg(jf::range(1, 300, 2), jf::range(0, 517, 3)) * 2, 64, {-1.0, 1.0});
  const auto [hsc, esc] = jf::histogram(xc(jf::range(1, 300, 2), jf::range(0, 517, 3)) * 2, 64, {-1.0, 1.0});
  EXPECT_EQ(host(hs), host(hsc));
  // Values that need a reduction first: two kernels, the same counts.
  const auto [hm, em] = jf::histogram(xg - jf::mean(xg, 1, jf::keepdims), 30, {-0.5, 0.5});
  const auto [hmc, emc] = jf::histogram(xc - jf::mean(xc, 1, jf::keepdims), 30, {-0.5, 0.5});
  EXPECT_EQ(host(hm), host(hmc));
}

TEST(CudaHistogram, RepeatedRunsGiveTheSameCounts) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 3);
  // Most values in one bin: many blocks contend for the same counters.
  std::vector<double> v(std::size_t(1) << 22, 0.25);
  for (std::size_t i = 0; i < v.size(); i += 7) v[i] = static_cast<double>(r() % 1000) / 1000.0;
  const jf::array<double> xg(v, {static_cast<std::int64_t>(v.size())}, jf::cuda);
  const auto first = host(jf::histogram(xg, 10, {0.0, 1.0}).hist);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(host(jf::histogram(xg, 10, {0.0, 1.0}).hist), first);
  EXPECT_EQ(host(jf::histogram(jf::to_backend(xg, jf::cpu), 10, {0.0, 1.0}).hist), first);
}

TEST(CudaHistogram, BincountMatchesTheCpuExecutor) {
  JF_REQUIRE_GPU();
  std::mt19937_64 r(seed() + 4);
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(1) << 21}) {
    for (std::int64_t top : {std::int64_t(5), std::int64_t(3000), std::int64_t(100000)}) {
      std::vector<std::int32_t> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = static_cast<std::int32_t>(r() % static_cast<std::uint64_t>(top));
      const jf::array<std::int32_t> c(v, {n}, jf::cpu);
      const jf::array<std::int32_t> g = jf::to_backend(c, jf::cuda);
      EXPECT_EQ(host(jf::bincount(g)), host(jf::bincount(c))) << n << " " << top;
      EXPECT_EQ(host(jf::bincount(g * 2 + 1, 10)), host(jf::bincount(c * 2 + 1, 10))) << n << " " << top;
      EXPECT_EQ(host(jf::bincount(jf::unfused, g + 1)), host(jf::bincount(c + 1))) << n << " " << top;
    }
  }
  const jf::array<std::int64_t> neg({3, -1, 2}, jf::cuda);
  EXPECT_THROW(jf::bincount(neg), jf::value_error);
  const jf::array<bool> b({true, false, true, true}, jf::cuda);
  EXPECT_EQ(host(jf::bincount(b)), (std::vector<std::int64_t>{1, 3}));
}

}  // namespace
