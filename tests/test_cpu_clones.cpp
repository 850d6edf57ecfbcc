// The CPU executor's element-wise loops and casts as the library runs them (compiled for AVX2 and
// the baseline, the loader picking one: src/cpu/target_clones.hpp) give the same bits as the same
// loops compiled here once, without clones and without optimisation: every loop and cast of every
// dtype, on inputs with NaN, infinities, -0, subnormals and the integers' extremes, at a length
// that has vector bodies and a tail. The casts between floats and int64 and where also against
// jf_cast and jf_where themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <type_traits>
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

// Values for the casts between floats and int64, whose loops convert a chunk of 256 values lying
// within 2^51 through 1.5 * 2^52 and the others through jf_cast: the first chunk within (halves,
// -0, tiny, just below 2^51), the second with one value exactly at 2^51, the third with a NaN, then
// a tail of anything; for the other direction the int64 counterparts.
template <class T>
std::vector<T> chunked_inputs(std::uint64_t seed) {
  std::mt19937_64 r(seed);
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t u = r();
    if constexpr (std::is_floating_point_v<T>) {
      const double w = std::ldexp(static_cast<double>(u % 4000001) - 2e6, static_cast<int>(u >> 40) % 56 - 22);
      const double special[] = {0.5, -0.5, 1.5, -2.5, -0.0, 1e-300, 0x1p51 - 0.5, -0x1p51 + 0.5, 0x1p51 - 1};
      v[i] = static_cast<T>(i % 37 < 9 ? special[i % 37] : std::fmod(w, 0x1p51));
    } else {
      const std::int64_t special[] = {
          0, -1, 1, (std::int64_t(1) << 51) - 1, -(std::int64_t(1) << 51) + 1, std::int64_t(1) << 40};
      v[i] = i % 29 < 6 ? special[i % 29]
                        : static_cast<std::int64_t>(u % (std::uint64_t(1) << 52)) - (std::int64_t(1) << 51);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    v[256 + 100] = static_cast<T>(0x1p51);
    v[512 + 7] = static_cast<T>(NAN);
    const T tail[] = {static_cast<T>(INFINITY), static_cast<T>(-0x1p63), static_cast<T>(0x1p63), static_cast<T>(1e30),
                      -static_cast<T>(0x1p52) - 1};
    for (int k = 0; k < 5; ++k) v[800 + k] = tail[k];
  } else {
    v[256 + 100] = std::int64_t(1) << 51;
    v[512 + 7] = INT64_MIN;
    const std::int64_t tail[] = {INT64_MAX, (std::int64_t(1) << 53) + 1, -(std::int64_t(1) << 60) - 3};
    for (int k = 0; k < 3; ++k) v[800 + k] = tail[k];
  }
  return v;
}

template <class To, class From>
void expect_cast_as_jf_cast(dtype to, dtype from) {
  const std::vector<From> x = chunked_inputs<From>(7);
  const void* args[1] = {x.data()};
  for (auto* fn : {jf::cpu_exec::find_cast(to, from), jf::cpu_exec_baseline::find_cast(to, from)}) {
    std::vector<To> got(n, To(99));
    fn(args, got.data(), n);
    for (int i = 0; i < n; ++i) {
      const To want = jf::ops::jf_cast<To>(x[i]);
      ASSERT_EQ(std::memcmp(&got[i], &want, sizeof(To)), 0)
          << "cast to " << jf::name(to) << " from " << jf::name(from) << " at " << i << " of " << double(x[i]);
    }
  }
}

// The casts with a fast path, against jf_cast itself (the baseline above shares their source), on
// chunks that take it and chunks that do not; and where against jf_where.
TEST(CpuClones, Int64CastsAndWhereAgreeWithTheScalarFunctions) {
  expect_cast_as_jf_cast<std::int64_t, double>(dtype::int64, dtype::float64);
  expect_cast_as_jf_cast<std::int64_t, float>(dtype::int64, dtype::float32);
  expect_cast_as_jf_cast<double, std::int64_t>(dtype::float64, dtype::int64);
  expect_cast_as_jf_cast<float, std::int64_t>(dtype::float32, dtype::int64);
  const auto x = inputs(dtype::float64, 5), y = inputs(dtype::float64, 6), c = inputs(dtype::bool_, 7);
  const void* args[3] = {c.data(), x.data(), y.data()};
  std::vector<double> got(n, 7.0);
  jf::cpu_exec::find_elementwise(op::where, dtype::float64)(args, got.data(), n);
  for (int i = 0; i < n; ++i) {
    bool ci;
    double xi, yi;
    std::memcpy(&ci, c.data() + i, 1);
    std::memcpy(&xi, x.data() + 8 * i, 8);
    std::memcpy(&yi, y.data() + 8 * i, 8);
    const double want = jf::ops::jf_where(ci, xi, yi);
    ASSERT_EQ(std::memcmp(&got[static_cast<std::size_t>(i)], &want, 8), 0) << "where at " << i;
  }
}

}  // namespace
