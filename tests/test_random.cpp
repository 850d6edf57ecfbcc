// jf::random's leaves against numpy's Generator(Philox(key)) draws (tests/data/philox_table.txt,
// written by tests/data/gen_philox_table.py), bit for bit, on jf::cpu and jf::cuda, evaluated
// alone, fused into expressions and unfused; leaves in reductions (Monte Carlo: nothing stored),
// broadcast leaves, independence of two leaves, backends not mixed. jf::random::philox4x32 the
// same way against a pure-Python reference of its stream (tests/data/philox4x32_table.txt, written
// by tests/data/gen_philox4x32_table.py) and Random123's known answers. GPU tests skip without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

struct draw {
  std::string kind, dtype;  // random f64 / random f32 / uniform / normal (f64) / integers (int64)
  double low = 0, high = 0;
  std::int64_t ilow = 0, ihigh = 0;  // integers
  std::int64_t n = 0;
  std::vector<double> values;
  std::vector<std::int64_t> ints;
};
struct table_case {
  std::uint64_t k0 = 0, k1 = 0;
  std::vector<draw> draws;
  int line = 0;
};

// A table of tests/data: "case k0 [k1]" lines, each followed by its draws.
std::vector<table_case> load(const std::string& file = "philox_table.txt") {
  std::ifstream f(JF_TEST_DATA_DIR "/" + file);
  std::vector<table_case> cases;
  std::string line;
  int no = 0;
  while (std::getline(f, line)) {
    ++no;
    std::stringstream ss(line);
    std::string tag;
    ss >> tag;
    if (tag == "case") {
      table_case c;
      ss >> c.k0;
      if (!(ss >> c.k1)) c.k1 = 0;  // philox4x32 tables: a 64-bit seed alone
      c.line = no;
      cases.push_back(c);
      continue;
    }
    if (tag != "random" && tag != "uniform" && tag != "normal" && tag != "integers") continue;
    draw d;
    d.kind = tag;
    if (tag == "random") {
      ss >> d.dtype >> d.n;
    } else if (tag == "normal") {
      ss >> d.n;
      d.dtype = "f64";
    } else if (tag == "integers") {
      ss >> d.ilow >> d.ihigh >> d.n;
      for (std::int64_t v; ss >> v;) d.ints.push_back(v);
    } else {
      std::string lo, hi;
      ss >> lo >> hi >> d.n;
      d.dtype = "f64";
      d.low = std::strtod(lo.c_str(), nullptr);
      d.high = std::strtod(hi.c_str(), nullptr);
    }
    for (std::string v; ss >> v;) d.values.push_back(std::strtod(v.c_str(), nullptr));
    cases.back().draws.push_back(d);
  }
  return cases;
}

template <class T> std::vector<T> host(const jf::array<T>& a) { return jf::to_backend(a, jf::cpu).to_vector(); }

template <class T> bool bits_equal(const std::vector<T>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T w = static_cast<T>(want[i]);
    if (std::memcmp(&got[i], &w, sizeof(T)) != 0) return false;
  }
  return true;
}

// Every draw of the table; `how`: 0 the leaf alone, 1 fused into an expression that keeps the
// value (x * 1), 2 the same unfused. Normals (philox4x32 table) within a few ulp: Python's libm and
// the GPU's sin, cos and log may differ in the last bit.
template <class Gen> void run_table(const std::string& file, jf::device dev, int how) {
  const auto cases = load(file);
  ASSERT_GE(cases.size(), 20u) << file << " missing or truncated";
  for (const table_case& c : cases) {
    SCOPED_TRACE(file + " line " + std::to_string(c.line) + ", mode " + std::to_string(how));
    Gen gen = [&] {
      if constexpr (std::is_same_v<Gen, jf::random::philox>) return Gen(c.k0, c.k1);
      else return Gen(c.k0);
    }();
    for (const draw& d : c.draws) {
      const jf::shape_t s{d.n};
      if (d.dtype == "f32") {
        auto leaf = gen.template random<float>(s, dev);
        const jf::array<float> a = how == 0 ? jf::eval(leaf) : how == 1 ? jf::eval(leaf * 1) : jf::eval(jf::unfused, leaf * 1);
        EXPECT_EQ(jf::backend(a), dev);
        EXPECT_TRUE(bits_equal(host(a), d.values)) << d.kind << " f32 " << d.n << ": " << a;
      } else if (d.kind == "normal") {
        auto e = gen.normal(s, 0.0, 1.0, dev);
        const std::vector<double> got = host(jf::array<double>(how == 2 ? jf::eval(jf::unfused, e * 1) : jf::eval(e * 1)));
        ASSERT_EQ(got.size(), d.values.size());
        for (std::size_t i = 0; i < got.size(); ++i)
          EXPECT_NEAR(got[i], d.values[i], 1e-14 * std::max(1.0, std::abs(d.values[i]))) << "normal " << d.n << " #" << i;
      } else if (d.kind == "integers") {
        auto e = gen.integers(s, d.ilow, d.ihigh, dev);
        EXPECT_EQ(host(jf::array<std::int64_t>(how == 2 ? jf::eval(jf::unfused, e * 1) : jf::eval(e * 1))), d.ints)
            << "integers " << d.n;
      } else if (d.kind == "random") {
        auto leaf = gen.template random<double>(s, dev);
        const jf::array<double> a = how == 0 ? jf::eval(leaf) : how == 1 ? jf::eval(leaf * 1) : jf::eval(jf::unfused, leaf * 1);
        EXPECT_TRUE(bits_equal(host(a), d.values)) << d.kind << " f64 " << d.n << ": " << a;
      } else {
        auto e = gen.uniform(s, d.low, d.high, dev);
        const jf::array<double> a = how == 2 ? jf::eval(jf::unfused, e) : jf::eval(e);
        EXPECT_TRUE(bits_equal(host(a), d.values)) << "uniform " << d.n << ": " << a;
      }
    }
  }
}

bool gpu() { return jf::cuda_available(); }
#define REQUIRE_GPU() \
  if (!gpu()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped"

TEST(Random, NumpyPhiloxOnTheCpu) {
  for (int how = 0; how < 3; ++how) run_table<jf::random::philox>("philox_table.txt", jf::cpu, how);
}
TEST(Random, NumpyPhiloxOnTheGpu) {
  REQUIRE_GPU();
  for (int how = 0; how < 3; ++how) run_table<jf::random::philox>("philox_table.txt", jf::cuda, how);
}
TEST(Random, Philox4x32ReferenceOnTheCpu) {
  for (int how = 0; how < 3; ++how) run_table<jf::random::philox4x32>("philox4x32_table.txt", jf::cpu, how);
}
TEST(Random, Philox4x32ReferenceOnTheGpu) {
  REQUIRE_GPU();
  for (int how = 0; how < 3; ++how) run_table<jf::random::philox4x32>("philox4x32_table.txt", jf::cuda, how);
}

// Random123's known-answer vectors for philox4x32_10 (kat_vectors), and the block functions the
// backends use (two blocks per call, round keys from the launcher) against it.
TEST(Random, Philox4x32KnownAnswers) {
  struct kat {
    unsigned ctr[4], key[2], want[4];
  };
  const kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const kat& k : kats) {
    unsigned out[4];
    jf::ops::jf_philox4x32_10(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], k.want[i]) << "word " << i;
  }
  // Outputs 4b .. 4b + 3 are blocks 2b and 2b + 1 of counter (c mod 2^32, c / 2^32, 0, 0).
  std::mt19937_64 r(test_support::seed());
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t k0 = r(), k1 = r(), b = i < 4 ? static_cast<std::uint64_t>(i) : i < 8 ? (std::uint64_t(1) << 31) - 2 + static_cast<std::uint64_t>(i - 4) : r() >> 1;
    unsigned long long got[4], from_rk[4], rk[20];
    jf::ops::jf_philox4x32_block(k0, k1, b, got);
    jf::ops::jf_philox4x32_round_keys(k0, k1, rk);
    jf::ops::jf_philox4x32_block_rk(rk, b, from_rk);
    const unsigned key[2] = {static_cast<unsigned>(k0), static_cast<unsigned>(k1)};
    for (int h = 0; h < 2; ++h) {
      const std::uint64_t c = 2 * b + static_cast<std::uint64_t>(h);
      const unsigned ctr[4] = {static_cast<unsigned>(c), static_cast<unsigned>(c >> 32), 0, 0};
      unsigned w[4];
      jf::ops::jf_philox4x32_10(ctr, key, w);
      for (int j = 0; j < 2; ++j) {
        const std::uint64_t want = w[2 * j] | static_cast<std::uint64_t>(w[2 * j + 1]) << 32;
        EXPECT_EQ(got[2 * h + j], want) << "key " << k0 << ", " << k1 << ", block " << b;
        EXPECT_EQ(from_rk[2 * h + j], want);
      }
    }
    // The split runs' function (philox_chunks.cpp): blocks c and c + 32, also across 2^32.
    const std::uint64_t c = i == 0 ? (std::uint64_t(1) << 32) - 16 : b;
    unsigned long long split[4];
    jf::ops::jf_philox4x32_split_rk(rk, c, split);
    for (int h = 0; h < 2; ++h) {
      const std::uint64_t at = c + 32 * static_cast<std::uint64_t>(h);
      const unsigned ctr[4] = {static_cast<unsigned>(at), static_cast<unsigned>(at >> 32), 0, 0};
      unsigned w[4];
      jf::ops::jf_philox4x32_10(ctr, key, w);
      for (int j = 0; j < 2; ++j)
        EXPECT_EQ(split[2 * h + j], w[2 * j] | static_cast<std::uint64_t>(w[2 * j + 1]) << 32) << "counter " << at;
    }
  }
  // The generator's first output is the first known answer's words 0 and 1 (seed 0, counter 0).
  EXPECT_EQ(jf::ops::jf_philox_u64<jf::ops::jf_philox4x32>(0, 0, 0), 0xe169c58d6627e8d5ULL);
}

// One expression type evaluated with both generators: the variant caches key on the bit generator
// (the same leaf types, other kernels), and jf::explain names it.
TEST(Random, BothGeneratorsInOneExpressionType) {
  for (jf::device dev : {jf::cpu, jf::cuda}) {
    if (dev == jf::cuda && !gpu()) continue;
    jf::random::philox a(0);
    jf::random::philox4x32 b(0), c(0);
    const std::vector<double> numpy = host(jf::array<double>(jf::eval(a.random({9}, dev) * 1)));
    const std::vector<double> fast = host(jf::array<double>(jf::eval(b.random({9}, dev) * 1)));
    const std::vector<double> alone = host(jf::array<double>(c.random({9}, dev)));
    EXPECT_EQ(fast, alone);
    EXPECT_NE(fast, numpy);
    const auto cases = load("philox4x32_table.txt");
    ASSERT_FALSE(cases.empty());
    EXPECT_TRUE(bits_equal(fast, cases[0].draws[0].values));  // the table's first case: seed 0, random f64 9
  }
  jf::random::philox4x32 g(1);
  EXPECT_NE(jf::explain(g.random({4}) + 1).find("philox4x32 random_f64"), std::string::npos);
}

// A leaf is an array's values: its shape broadcasts, a 2-d leaf is numpy's random((r, c)), and a
// reduction over leaves stores nothing.
template <class Gen> void shapes_and_reductions(jf::device dev) {
  Gen a(99), b(99);
  const jf::array<double> m = a.random({3, 4}, dev);
  const jf::array<double> flat = b.random({12}, dev);
  EXPECT_EQ(host(m), host(flat));  // row-major positions
  Gen c(5), d(5);
  const jf::array<double> row = jf::eval(c.random({1, 4}, dev) + jf::zeros<double>({3, 4}, dev));
  const std::vector<double> r4 = host(jf::array<double>(d.random({4}, dev)));
  const std::vector<double> got = host(row);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(got[static_cast<std::size_t>(i * 4 + j)], r4[static_cast<std::size_t>(j)]);
  // Two leaves of one generator take different positions: independent values.
  Gen e(1);
  auto x = e.random({1000}, dev);
  auto y = e.random({1000}, dev);
  EXPECT_EQ(e.position(), 2000u);
  EXPECT_LT(jf::sum(x == y).item(), 1);
  // One leaf used twice is one input (generated once per element), with the same values.
  Gen s1(11), s2(11);
  auto once = s1.random({1000}, dev);
  const jf::array<double> sq = jf::eval(once * once);
  const std::vector<double> ref = host(jf::array<double>(s2.random({1000}, dev)));
  const std::vector<double> sqv = host(sq);
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(sqv[i], ref[i] * ref[i]);
  EXPECT_EQ(jf::explain(once * once).find("input #1"), std::string::npos);
  // Monte Carlo: pi from 2^22 pairs, fused (one reduction, no arrays); 4 sigma is about 0.0033.
  Gen p(2026);
  const std::int64_t n = std::int64_t(1) << 22;
  auto u = p.random({n}, dev);
  auto v = p.random({n}, dev);
  const double pi = (4 * jf::mean(jf::square(u) + jf::square(v) < 1)).item();
  EXPECT_NEAR(pi, 3.14159265358979, 0.0033);
  // The same draws materialised first: the same estimate, bit for bit.
  Gen q(2026);
  const jf::array<double> uu = q.random({n}, dev), vv = q.random({n}, dev);
  EXPECT_EQ((4 * jf::mean(jf::square(uu) + jf::square(vv) < 1)).item(), pi);
  // Moments of uniform float32 in [-1, 3): mean 1, variance 16/12.
  Gen w(3);
  auto f = w.template uniform<float>({n}, -1.0, 3.0, dev);
  EXPECT_NEAR(jf::mean(jf::astype<double>(f)).item(), 1.0, 0.004);
  EXPECT_NEAR(jf::var(jf::astype<double>(f)).item(), 16.0 / 12.0, 0.004);
  EXPECT_GE(jf::min(f).item(), -1.0f);
  EXPECT_LT(jf::max(f).item(), 3.0f);
}

TEST(Random, ShapesReductionsAndIndependenceOnTheCpu) { shapes_and_reductions<jf::random::philox>(jf::cpu); }
TEST(Random, ShapesReductionsAndIndependenceOnTheGpu) {
  REQUIRE_GPU();
  shapes_and_reductions<jf::random::philox>(jf::cuda);
}
TEST(Random, Philox4x32ShapesReductionsAndIndependenceOnTheCpu) { shapes_and_reductions<jf::random::philox4x32>(jf::cpu); }
TEST(Random, Philox4x32ShapesReductionsAndIndependenceOnTheGpu) {
  REQUIRE_GPU();
  shapes_and_reductions<jf::random::philox4x32>(jf::cuda);
}

// GPU kernels share a Philox block between the iterations it feeds (philox_chunks.cpp): chunks
// aligned on one leaf's blocks, other leaves aligned or not, numpy's kept float32 half, guarded
// first and last chunks, several chunks per warp. Every value must be the CPU's, bit for bit;
// max/argmax and histogram counts are exact whatever the order, so reductions are checked too.
using test_support::seed;

struct chunk_case {
  std::uint64_t key;
  std::int64_t n, skip_f32, skip_f64;  // draws taken before the leaves: first positions, kept halves
};

// The same leaves on both backends: generators started alike, the same draws skipped.
template <class Gen, class F> void on_both(const chunk_case& c, F f) {
  for (jf::device dev : {jf::cpu, jf::cuda}) {
    Gen g(c.key);
    if (c.skip_f32) (void)g.template random<float>({c.skip_f32}, dev);
    if (c.skip_f64) (void)g.template random<double>({c.skip_f64}, dev);
    f(g, dev);
  }
}

template <class Gen> void chunked_leaves_are_the_cpus() {
  std::mt19937_64 r(seed());
  std::vector<chunk_case> cases;
  for (std::int64_t n : {0, 1, 3, 31, 32, 127, 128, 129, 255, 256, 257, 1000, 4099})
    for (int k = 0; k < 3; ++k) cases.push_back({r(), n, static_cast<std::int64_t>(r() % 9), static_cast<std::int64_t>(r() % 5)});
  cases.push_back({r(), (std::int64_t(1) << 24) + 13, 3, 1});  // several chunks per warp
  for (const chunk_case& c : cases) {
    SCOPED_TRACE("key " + std::to_string(c.key) + ", n " + std::to_string(c.n) + ", skipped " + std::to_string(c.skip_f32) +
                 " float32 and " + std::to_string(c.skip_f64) + " float64 draws");
    std::vector<float> f32[2];
    std::vector<double> mixed[2], pair[2], grid[2];
    double big[2];
    std::int64_t where[2];
    std::vector<std::int64_t> counts[2];
    int b = 0;
    on_both<Gen>(c, [&](Gen& g, jf::device dev) {
      f32[b] = host(jf::array<float>(g.template random<float>({c.n}, dev)));  // float32 alone (kept half first)
      auto u = g.template random<float>({c.n}, dev);
      auto v = g.template random<double>({c.n}, dev);
      mixed[b] = host(jf::array<double>(u + v));  // a float32 anchor, a float64 leaf (two passes)
      auto x = g.template random<double>({c.n}, dev);
      auto y = g.template random<double>({c.n}, dev);  // aligned with x only when n % 4 == 0
      pair[b] = host(jf::array<double>(x * 2 + y));
      auto m = g.template random<double>({c.n / 3 + 1, 3}, dev);  // two axes
      grid[b] = host(jf::array<double>(m - 1));
      auto z = g.template random<double>({c.n}, dev);
      auto w = g.template random<float>({c.n}, dev);
      if (c.n > 0) {
        big[b] = jf::max(z * w).item();  // exact in any order, positions included
        where[b] = jf::argmax(z * w).item();
      }
      auto [hist, edges] = jf::histogram(g.template random<float>({c.n}, dev), 16, {0.0, 1.0});
      counts[b] = host(jf::array<std::int64_t>(hist));
      ++b;
    });
    EXPECT_TRUE(f32[0] == f32[1]);
    EXPECT_TRUE(mixed[0] == mixed[1]);
    EXPECT_TRUE(pair[0] == pair[1]);
    EXPECT_TRUE(grid[0] == grid[1]);
    if (c.n > 0) {
      EXPECT_EQ(big[0], big[1]);
      EXPECT_EQ(where[0], where[1]);
    }
    EXPECT_EQ(counts[0], counts[1]);
    if (c.n >= 1000) {
      EXPECT_GT(counts[0][5], c.n / 32);  // roughly uniform: not all in one bin
    }
  }
}
TEST(Random, ChunkedGpuLeavesAreTheCpusBitForBit) {
  REQUIRE_GPU();
  chunked_leaves_are_the_cpus<jf::random::philox>();
}
TEST(Random, Philox4x32ChunkedGpuLeavesAreTheCpusBitForBit) {
  REQUIRE_GPU();
  chunked_leaves_are_the_cpus<jf::random::philox4x32>();
}

// Bit patterns equal (NaN poison included).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Maps of leaves alone store each lane's run of values as 16-byte vectors when the output is
// contiguous and aligned, else the kernel takes the rows layout (philox_chunks.cpp): both, into
// poisoned outputs of several dtypes and views (offset by one element, strided, transposed), and
// with an array operand (rows only). Every value must be the CPU's, bit for bit.
template <class Gen> void leaf_runs_store_into_any_output() {
  std::mt19937_64 r(seed());
  for (std::int64_t n : {std::int64_t(1), std::int64_t(9), std::int64_t(1000), (std::int64_t(1) << 24) + 5}) {
    const std::uint64_t key = r();
    const std::int64_t skip = static_cast<std::int64_t>(r() % 3);  // 0: aligned blocks, else shifted chunks
    SCOPED_TRACE("key " + std::to_string(key) + ", n " + std::to_string(n) + ", skipped " + std::to_string(skip));
    std::vector<float> offset[2];
    std::vector<double> every2[2], wide[2], noisy[2], cols[2];
    std::vector<bool> below[2];
    int b = 0;
    for (jf::device dev : {jf::cpu, jf::cuda}) {
      Gen g(key);
      if (skip) (void)g.template random<float>({skip}, dev);
      auto o = jf::full<float>({n + 1}, std::nanf(""), dev);
      o(jf::range(1, jf::none)) = g.template random<float>({n}, dev);  // 4 bytes past an aligned start
      offset[b] = o.to_vector();
      auto e = jf::full<double>({2 * n}, std::nan(""), dev);
      e(jf::range(0, jf::none, 2)) = g.template random<double>({n}, dev);  // a strided output
      every2[b] = e.to_vector();
      wide[b] = jf::array<double>(jf::astype<double>(g.template random<float>({n}, dev)) * 2).to_vector();  // 64-byte runs
      below[b] = jf::array<bool>(g.template random<double>({n}, dev) < 0.5).to_vector();                    // 4-byte runs
      const jf::array<double> x = jf::arange<double>(0, static_cast<double>(n), 1, dev);
      noisy[b] = jf::array<double>(x + g.template uniform<double>({n}, -1, 1, dev)).to_vector();  // an array operand
      auto t = jf::full<double>({3, n}, std::nan(""), dev);
      t.transpose() = g.template random<double>({n, 3}, dev);  // a transposed output
      cols[b] = t.to_vector();
      ++b;
    }
    EXPECT_TRUE(same_bits(offset[0], offset[1]));
    EXPECT_TRUE(same_bits(every2[0], every2[1]));
    EXPECT_TRUE(same_bits(wide[0], wide[1]));
    EXPECT_TRUE(below[0] == below[1]);
    EXPECT_TRUE(same_bits(noisy[0], noisy[1]));
    EXPECT_TRUE(same_bits(cols[0], cols[1]));
    EXPECT_TRUE(std::isnan(offset[1][0]));  // the element before the view is untouched
  }
}
TEST(Random, LeafRunsStoreIntoAnyOutput) {
  REQUIRE_GPU();
  leaf_runs_store_into_any_output<jf::random::philox>();
}
TEST(Random, Philox4x32LeafRunsStoreIntoAnyOutput) {
  REQUIRE_GPU();
  leaf_runs_store_into_any_output<jf::random::philox4x32>();
}

TEST(Random, BackendsAreNotMixed) {
  if (!gpu()) GTEST_SKIP() << "needs a GPU to mix backends";
  jf::random::philox g(1);
  const jf::array<double> x = jf::zeros<double>({4}, jf::cpu);
  EXPECT_THROW(jf::eval(x + g.random({4}, jf::cuda)), jf::backend_mismatch);
}

// float32 draws take 32-bit halves; a float64 draw between them leaves the pending half alone;
// normals and integers take their outputs after it (both generators alike).
template <class Gen> void sequences_follow_numpys_buffering() {
  Gen g(12345);
  (void)g.template random<float>({3});
  EXPECT_EQ(g.position(), 2u);  // outputs 0 and 1 used, the high half of 1 pending
  (void)g.template random<double>({2});
  EXPECT_EQ(g.position(), 4u);
  (void)g.template random<float>({1});  // the pending half: no new output
  EXPECT_EQ(g.position(), 4u);
  (void)g.template random<float>({1});
  EXPECT_EQ(g.position(), 5u);
  (void)g.normal({3});  // from output 6 (even), 2 pairs
  EXPECT_EQ(g.position(), 10u);
  (void)g.template normal<float>({3});  // both halves of 2 outputs
  EXPECT_EQ(g.position(), 12u);
  (void)g.integers({5}, 0, 10);
  EXPECT_EQ(g.position(), 17u);
  (void)g.permutation(4);
  EXPECT_EQ(g.position(), 21u);
}
TEST(Random, SequencesFollowNumpysBuffering) { sequences_follow_numpys_buffering<jf::random::philox>(); }
TEST(Random, Philox4x32SequencesFollowNumpysBuffering) { sequences_follow_numpys_buffering<jf::random::philox4x32>(); }

}  // namespace
