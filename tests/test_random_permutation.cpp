// jf::random's permutation and shuffle: every result is a permutation; the distribution is uniform
// (chi-square over the 24 orders of 4 elements, and over the position an element lands at); a
// key gives the same permutation on every backend; slices along an axis move whole; numpy's
// axis errors. Fixed keys, chosen before the first run, pass at a 0.1 % significance level, so the
// statistical tests cannot flake. GPU tests skip without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

#define REQUIRE_GPU() \
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped"

bool is_permutation_of_iota(std::vector<std::int64_t> p) {
  std::sort(p.begin(), p.end());
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<std::int64_t>(i)) return false;
  return true;
}

TEST(RandomPermutation, IsAPermutationOfEverySize) {
  jf::random::philox g(42);
  for (std::int64_t n : {0, 1, 2, 7, 1000, 100003}) {
    const auto p = host(g.permutation(n));
    ASSERT_EQ(static_cast<std::int64_t>(p.size()), n);
    EXPECT_TRUE(is_permutation_of_iota(p)) << "n = " << n;
  }
  EXPECT_EQ(g.permutation(-3).size(), 0);  // numpy 2.4: permutation(-3) is arange(-3), empty
}

TEST(RandomPermutation, ConsumesOneOutputPerElement) {
  jf::random::philox g(3), h(3);
  (void)g.permutation(10);
  EXPECT_EQ(g.position(), 10u);
  (void)h.integers({10}, 0, 2);
  EXPECT_EQ(g.position(), h.position());
  EXPECT_NE(host(g.permutation(1000)), host(g.permutation(1000)));  // later draws differ
}

TEST(RandomPermutation, TheOrdersOfFourAreUniform) {
  jf::random::philox g(20261124);
  const int draws = 24000;  // 1000 expected per order
  std::map<std::vector<std::int64_t>, int> counts;
  for (int k = 0; k < draws; ++k) ++counts[host(g.permutation(4))];
  ASSERT_EQ(counts.size(), 24u);
  double chi2 = 0;
  for (const auto& [order, c] : counts) chi2 += (c - 1000.0) * (c - 1000.0) / 1000.0;
  EXPECT_LT(chi2, 49.73);  // chi-square with 23 degrees of freedom at 0.1 %
}

TEST(RandomPermutation, WhereAnElementLandsIsUniform) {
  jf::random::philox g(99);
  const int n = 50, draws = 5000;  // 100 expected per position
  std::vector<int> at(n, 0);
  for (int k = 0; k < draws; ++k) {
    const auto p = host(g.permutation(n));
    ++at[static_cast<std::size_t>(std::find(p.begin(), p.end(), 0) - p.begin())];
  }
  double chi2 = 0;
  for (int c : at) chi2 += (c - 100.0) * (c - 100.0) / 100.0;
  EXPECT_LT(chi2, 85.35);  // chi-square with 49 degrees of freedom at 0.1 %
}

TEST(RandomPermutation, PermutesAndShufflesSlicesAlongAnAxis) {
  jf::random::philox g(11), h(11);
  const std::vector<double> v = [] {
    std::vector<double> r(3 * 4);
    std::iota(r.begin(), r.end(), 0.0);
    return r;
  }();
  const jf::array<double> x(v, {3, 4});
  const auto p = host(h.permutation(4));
  const auto y = host(g.permutation(x, 1));  // columns reordered: y[i][j] = x[i][p[j]]
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(y[static_cast<std::size_t>(i * 4 + j)], v[static_cast<std::size_t>(i * 4 + p[static_cast<std::size_t>(j)])]);
  EXPECT_EQ(host(x), v);  // permutation copies

  jf::random::philox s(11);
  jf::array<double> z(v, {3, 4});
  const jf::array<double> alias = z;  // a handle of the same buffer sees the shuffle
  s.shuffle(z, -1);
  EXPECT_EQ(host(alias), y);
  EXPECT_EQ(s.position(), g.position());

  // numpy's AxisError, a 0-d array included; nothing drawn, nothing changed.
  jf::random::philox e(1);
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { (void)e.permutation(x, 2); }),
            "axis 2 is out of bounds for array of dimension 2");
  jf::array<double> zero_d = jf::full<double>({}, 5.0);
  EXPECT_EQ(test_support::message_of<jf::axis_error>([&] { e.shuffle(zero_d); }),
            "axis 0 is out of bounds for array of dimension 0");
  EXPECT_EQ(e.position(), 0u);
  EXPECT_EQ(host(z), y);
}

TEST(RandomPermutation, TheGpuDrawsTheSamePermutation) {
  REQUIRE_GPU();
  for (std::int64_t n : {1, 33, 1000003}) {
    jf::random::philox c(7), d(7);
    const auto cpu = host(c.permutation(n));
    const auto gpu = host(d.permutation(n, jf::cuda));
    EXPECT_EQ(cpu, gpu) << "n = " << n;
    EXPECT_TRUE(is_permutation_of_iota(gpu));
  }
  jf::random::philox c(8), d(8);
  std::vector<float> v(5000);
  std::iota(v.begin(), v.end(), 0.0f);
  jf::array<float> xc(v, {1000, 5}), xg(v, {1000, 5}, jf::cuda);
  c.shuffle(xc);
  d.shuffle(xg);
  EXPECT_EQ(host(xc), host(xg));
}

}  // namespace
