// The reuse of an element-wise call's analysis (src/engine/evaluate_map.cpp, analysed()): a call
// whose arrays, views and options are those of the same expression's last call on the thread takes
// that call's analysis of strides, overlaps and layouts. Checked on every backend against host
// loops: repeated calls on new contents, views of the same memory with other strides, outputs that
// alias their inputs differently, scalars that change the kernel, and threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::rng;
using test_support::seed;

std::vector<double> random_doubles(std::size_t n) {
  std::vector<double> v(n);
  for (auto& x : v) x = std::uniform_real_distribution<double>(-4, 4)(rng());
  return v;
}

void expect_equal(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_EQ(got[k], want[k]) << what << ", element " << k << ", seed " << seed();
}

std::uint64_t reused() { return jf::stats().analyses_reused; }

class AnalysisReuse : public test_support::on_backends {};

// The same expression on the same arrays, their contents rewritten between calls: the analysis is
// reused from the second call on, and every result is that of the contents at the call.
TEST_P(AnalysisReuse, RepeatedCallsSeeNewContents) {
  const i64 n = 1037;
  jf::array<double> x(random_doubles(n), dev()), y(random_doubles(n), dev());
  jf::array<double> out = jf::full<double>({n}, std::nan(""), dev());
  const std::uint64_t before = reused();
  for (int call = 0; call < 5; ++call) {
    const std::vector<double> xv = random_doubles(n), yv = y.to_vector();
    x = jf::array<double>(xv, dev()) + 0.0;                  // written into x's memory: the same descriptor
    out = jf::full<double>({n}, std::nan(""), dev()) * 1.0;  // poisoned, in place
    out = x * 2.0 + y;
    std::vector<double> want(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < want.size(); ++k) want[k] = xv[k] * 2.0 + yv[k];
    expect_equal(out.to_vector(), want, "x * 2 + y");
  }
  // Calls 2-5 of x * 2 + y (the copies into x and out read a new array each call).
  EXPECT_GE(reused() - before, 4u);
}

// A square matrix and its transpose, every other row and the first half of the rows: the same
// first element and shape, other strides, into the same output. Each is analysed as itself.
TEST_P(AnalysisReuse, ViewsOfTheSameMemoryWithOtherStrides) {
  const i64 m = 6;
  const std::vector<double> mv = random_doubles(static_cast<std::size_t>(m * m));
  const jf::array<double> a(mv, {m, m}, dev());
  auto host = [&](i64 i, i64 j) { return mv[static_cast<std::size_t>(i * m + j)]; };
  jf::array<double> square = jf::empty<double>({m, m}, dev()), rows = jf::empty<double>({3, m}, dev());
  for (int round = 0; round < 2; ++round) {  // the second round meets each view as the last call's
    for (const bool transposed : {false, true, true, false}) {
      const jf::array<double> v = transposed ? a.transpose() : a;
      square = v * 3.0 - 1.0;
      std::vector<double> want;
      for (i64 i = 0; i < m; ++i)
        for (i64 j = 0; j < m; ++j) want.push_back((transposed ? host(j, i) : host(i, j)) * 3.0 - 1.0);
      expect_equal(square.to_vector(), want, transposed ? "a.T * 3 - 1" : "a * 3 - 1");
    }
    for (const i64 step : {i64(2), i64(1), i64(1), i64(2)}) {
      const jf::array<double> v = a(jf::range(0, step * 3, step), jf::all);  // rows 0, 2, 4 or 0, 1, 2
      rows = v * 3.0 - 1.0;
      std::vector<double> want;
      for (i64 i = 0; i < 3; ++i)
        for (i64 j = 0; j < m; ++j) want.push_back(host(i * step, j) * 3.0 - 1.0);
      expect_equal(rows.to_vector(), want, "rows * 3 - 1");
    }
  }
}

// The same shapes and strides with other memory: an output that overlaps its input (shifted by
// one: numpy reads the whole input before any write) after one that does not, and back.
TEST_P(AnalysisReuse, OverlapWithTheSameShapes) {
  const i64 n = 300007;  // many blocks of the CPU executor and of a kernel
  std::vector<double> xv = random_doubles(n);
  jf::array<double> x(xv, dev()), y = jf::zeros<double>({n}, dev());
  for (const bool overlapping : {false, true, true, false, true}) {
    jf::array<double> dst = overlapping ? x : y;
    const std::uint64_t temporaries = jf::stats().temporaries;
    dst(jf::range(1, jf::none)) = x(jf::range(0, -1)) * 0.5 + 1.0;
    // The overlapping call is computed into a temporary, then copied (the analysis's choice).
    EXPECT_EQ(jf::stats().temporaries - temporaries, overlapping ? 1u : 0u);
    std::vector<double> want = overlapping ? xv : y.to_vector();
    for (std::size_t k = 1; k < xv.size(); ++k) want[k] = xv[k - 1] * 0.5 + 1.0;
    expect_equal(dst.to_vector(), want, overlapping ? "x[1:] = x[:-1] * 0.5 + 1" : "y[1:] = x[:-1] * 0.5 + 1");
    if (overlapping) xv = want;
  }
}

// One expression whose output is its input (in place), a separate array, and a shifted view of its
// input (numpy's semantics: the whole input read before any write), in turns, twice.
TEST_P(AnalysisReuse, OutputsAliasingTheirInputsDifferently) {
  const i64 n = 3001;
  std::vector<double> xv = random_doubles(n);
  jf::array<double> x(xv, dev());
  jf::array<double> y = jf::zeros<double>({n}, dev());
  auto f = [](const auto& v) { return v * 0.5 + 1.0; };
  for (int round = 0; round < 2; ++round) {
    x = f(x);  // in place
    for (auto& v : xv) v = v * 0.5 + 1.0;
    expect_equal(x.to_vector(), xv, "x = x * 0.5 + 1");
    y = f(x);  // into another array
    std::vector<double> yv(xv.size());
    for (std::size_t k = 0; k < xv.size(); ++k) yv[k] = xv[k] * 0.5 + 1.0;
    expect_equal(y.to_vector(), yv, "y = x * 0.5 + 1");
    x(jf::range(1, jf::none)) = f(x(jf::range(0, -1)));  // overlapping, shifted by one
    const std::vector<double> old = xv;
    for (std::size_t k = 1; k < xv.size(); ++k) xv[k] = old[k - 1] * 0.5 + 1.0;
    expect_equal(x.to_vector(), xv, "x[1:] = x[:-1] * 0.5 + 1");
  }
}

// Scalars are kernel arguments or, for small integral exponents, part of the kernel: the
// same arrays with other exponents give each exponent's result.
TEST_P(AnalysisReuse, ScalarsThatChangeTheKernel) {
  const i64 n = 513;
  const std::vector<double> xv = random_doubles(n);
  const jf::array<double> x(xv, dev());
  jf::array<double> out = jf::empty<double>({n}, dev());
  for (const double p : {2.0, 3.0, 2.0, 0.5, -1.0, 7.0, 2.5}) {
    out = jf::power(x, p) + 0.0;
    std::vector<double> want(xv.size());
    for (std::size_t k = 0; k < xv.size(); ++k) {
      const double v = p == 2.0    ? xv[k] * xv[k]
                       : p == 0.5  ? std::sqrt(xv[k])
                       : p == -1.0 ? 1.0 / xv[k]
                                   : std::pow(xv[k], p);
      want[k] = v + 0.0;
    }
    const std::vector<double> got = out.to_vector();
    for (std::size_t k = 0; k < xv.size(); ++k) {
      if (std::isnan(want[k])) {
        ASSERT_TRUE(std::isnan(got[k])) << "x ** " << p << ", element " << k;
        continue;
      }
      // CUDA's pow and glibc's agree to a few ulp; the specialised exponents are exact products.
      ASSERT_NEAR(got[k], want[k], 4 * std::numeric_limits<double>::epsilon() * std::abs(want[k]))
          << "x ** " << p << ", element " << k << ", seed " << seed();
    }
  }
  // The same exponent again: the kernel of the first call, nothing compiled or loaded.
  if (dev().kind == jf::device_kind::cuda) {
    const jf::stats_t before = jf::stats();
    for (int call = 0; call < 3; ++call) out = jf::power(x, 3.0) + 0.0;
    const jf::stats_t after = jf::stats();
    EXPECT_EQ(after.nvrtc_compiles, before.nvrtc_compiles);
    EXPECT_EQ(after.disk_cache_hits, before.disk_cache_hits);
    EXPECT_EQ(after.memory_cache_hits, before.memory_cache_hits);
  }
  // A comparison with an integer outside int8: a constant answer, then an ordinary compare.
  const std::vector<std::int8_t> bv = {-128, -1, 0, 5, 127};
  const jf::array<std::int8_t> b(bv, dev());
  for (const int c : {300, 5, -300, 5}) {
    const jf::array<bool> lt = b < c;
    const std::vector<bool> got = lt.to_vector();
    for (std::size_t k = 0; k < bv.size(); ++k) ASSERT_EQ(got[k], bv[k] < c) << "b < " << c << ", element " << k;
  }
}

// Scalars that stay kernel arguments, other values at every call, into an existing output and
// into a new one: on jf::cuda a call on the last call's arrays launches that call's packed
// arguments again with its own scalars (evaluate_cuda's remembered launch), and every result is
// that of its scalars.
TEST_P(AnalysisReuse, ScalarArgumentsChangeBetweenCalls) {
  const i64 n = 700;
  const std::vector<double> xv = random_doubles(n), yv = random_doubles(n);
  const jf::array<double> x(xv, dev()), y(yv, dev());
  jf::array<double> out = jf::empty<double>({n}, dev());
  for (const bool into_output : {true, false}) {
    const std::uint64_t before = reused();
    for (int call = 0; call < 6; ++call) {
      const double s = std::uniform_real_distribution<double>(-3, 3)(rng()),
                   t = std::uniform_real_distribution<double>(0.5, 2)(rng());
      const float f = static_cast<float>(call) + 0.25f;
      std::vector<double> want(xv.size());
      for (std::size_t k = 0; k < want.size(); ++k) want[k] = xv[k] * s + yv[k] / t - s * static_cast<double>(f);
      if (into_output) {
        out = x * s + y / t - s * f;  // three scalar arguments, one used twice
        expect_equal(out.to_vector(), want, "x * s + y / t - s * f into an output");
      } else {
        const jf::array<double> fresh = x * s + y / t - s * f;  // (the pool may give the last one's memory)
        expect_equal(fresh.to_vector(), want, "x * s + y / t - s * f into a new array");
      }
    }
    if (into_output) {
      EXPECT_GE(reused() - before, 5u);  // calls 2-6
    }
  }
}

// Threads calling one expression at once, each on its own arrays and in turns on shared ones.
TEST_P(AnalysisReuse, ThreadsKeepTheirOwn) {
  const i64 n = 2049;
  const std::vector<double> sv = random_doubles(n);
  const jf::array<double> shared(sv, dev());
  auto work = [&](int t, std::vector<char>& ok) {
    std::vector<double> mine(static_cast<std::size_t>(n + t));
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = static_cast<double>(k) * (t + 1);
    const jf::array<double> a(mine, dev());
    jf::array<double> out = jf::empty<double>({n + t}, dev());
    bool good = true;
    for (int call = 0; call < 20; ++call) {
      const jf::array<double>& src = call % 2 == 0 ? a : shared;
      jf::array<double> r = src * 2.0 + 1.0;
      const std::vector<double> got = r.to_vector();
      const std::vector<double>& in = call % 2 == 0 ? mine : sv;
      for (std::size_t k = 0; k < in.size(); ++k) good = good && got[k] == in[k] * 2.0 + 1.0;
      out = a * 2.0 + 1.0;
      const std::vector<double> o = out.to_vector();
      for (std::size_t k = 0; k < mine.size(); ++k) good = good && o[k] == mine[k] * 2.0 + 1.0;
    }
    ok[static_cast<std::size_t>(t)] = good;
  };
  std::vector<char> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t, std::ref(ok));
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[static_cast<std::size_t>(t)]) << "thread " << t << ", seed " << seed();
}

INSTANTIATE_TEST_SUITE_P(Backends, AnalysisReuse, ::testing::Values(jf::cpu, jf::cuda), test_support::backend_name);

}  // namespace
