// The CPU executor's element-wise loops and casts as the library runs them (compiled for AVX2 and
// the baseline, the loader picking one: src/cpu/target_clones.hpp) give the same bits as the same
// loops compiled here once, without clones and without optimisation: every loop and cast of every
// dtype, on inputs with NaN, infinities, -0, subnormals and the integers' extremes, at a length
// that has vector bodies and a tail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/executor_kernels.hpp"  // the library's loops: jf::cpu_exec

// The same source again, in namespace jf::cpu_exec_baseline, without clones.
namespace jf::cpu_exec_baseline {
using cpu_exec::elementwise_fn;
}
#define JF_CPU_CLONES
#define cpu_exec cpu_exec_baseline
#include "cpu/elementwise_kernels.cpp"
#undef cpu_exec

namespace {

using jf::dtype;
using jf::op;

constexpr dtype all_dtypes[] = {dtype::bool_,  dtype::int8,    dtype::int16,  dtype::int32,
                                dtype::int64,  dtype::uint8,   dtype::uint16, dtype::uint32,
                                dtype::uint64, dtype::float32, dtype::float64};
constexpr int n = 1003;

std::vector<unsigned char> inputs(dtype t, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  const std::size_t e = jf::size_of(t);
  std::vector<unsigned char> b(n * e);
  for (int i = 0; i < n; ++i) {
    unsigned char* p = b.data() + i * e;
    std::uint64_t u = r();
    const int k = i % 17;
    if (t == dtype::float64) {
      const double special[] = {NAN, INFINITY, -INFINITY, -0.0, 1e308, 5e-324, -2.5e-310};
      const double v =
          k < 7 ? special[k] : std::ldexp(static_cast<double>(u % 2000001) - 1e6, static_cast<int>(u >> 40) % 80 - 40);
      std::memcpy(p, &v, e);
    } else if (t == dtype::float32) {
      const float special[] = {NAN, INFINITY, -INFINITY, -0.0f, 3e38f, 1e-45f, -2e-39f};
      const float v = k < 7 ? special[k]
                            : std::ldexp(static_cast<float>(static_cast<int>(u % 20001) - 10000),
                                         static_cast<int>(u >> 40) % 40 - 20);
      std::memcpy(p, &v, e);
    } else if (t == dtype::bool_) {
      const bool v = u & 1;
      std::memcpy(p, &v, e);
    } else {
      if (k < 3)
        u = k == 0 ? 0 : k == 1 ? ~0ull : (1ull << (e * 8 - 1));  // 0, -1 / max, min / 2^(bits-1)
      else if (k < 8)
        u %= 7;  // small values: shifts, powers
      std::memcpy(p, &u, e);
    }
  }
  return b;
}

// Runs both versions of a loop on the same arguments (into outputs poisoned differently) and
// expects the same bytes.
template <class Fn>
void expect_same_bits(Fn library, Fn baseline, const void* const* args, std::size_t out_bytes,
                      const std::string& what) {
  ASSERT_NE(library, nullptr) << what;
  ASSERT_NE(baseline, nullptr) << what;
  std::vector<unsigned char> a(out_bytes, 0xAB), b(out_bytes, 0xCD);  // poisoned differently
  library(args, a.data(), n);
  baseline(args, b.data(), n);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), out_bytes), 0) << what;
}

TEST(CpuClones, EveryLoopGivesTheSameBitsAsTheBaseline) {
  int loops = 0;
  for (op o : jf::elementwise_ops)
    for (dtype t : all_dtypes) {
      const auto lib = jf::cpu_exec::find_elementwise(o, t);
      const auto base = jf::cpu_exec_baseline::find_elementwise(o, t);
      ASSERT_EQ(lib == nullptr, base == nullptr);
      if (!lib) continue;
      const auto x = inputs(t, 1), y = inputs(t, 2), c = inputs(dtype::bool_, 3);
      const void* args[3] = {x.data(), y.data(), nullptr};
      if (o == op::where) {
        args[0] = c.data();
        args[1] = x.data();
        args[2] = y.data();
      }
      const dtype result = o == op::where ? t : jf::result_dtype(jf::info(o).rule, t);
      expect_same_bits(lib, base, args, n * jf::size_of(result),
                       std::string(jf::info(o).name) + " of " + std::string(jf::name(t)));
      ++loops;
    }
  for (dtype to : all_dtypes)
    for (dtype from : all_dtypes) {
      const auto x = inputs(from, 4);
      const void* args[1] = {x.data()};
      expect_same_bits(jf::cpu_exec::find_cast(to, from), jf::cpu_exec_baseline::find_cast(to, from), args,
                       n * jf::size_of(to),
                       "cast to " + std::string(jf::name(to)) + " from " + std::string(jf::name(from)));
      ++loops;
    }
  std::printf("test_cpu_clones: %d loops compared\n", loops);
  EXPECT_GT(loops, 400);
}

}  // namespace
