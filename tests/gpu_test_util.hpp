// Helpers of the GPU tests: random inputs with special values, comparison with the Eigen result.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

namespace jf_test {

#define JF_REQUIRE_GPU() \
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU tests skipped"

inline std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}

// Random values with NaN, +-inf, +-0 (floats) or integer edge cases mixed in.
template <class T> std::vector<T> random_values(std::size_t n, bool specials = true, double lo = -10, double hi = 10) {
  std::vector<T> v(n);
  auto& r = rng();
  if constexpr (std::is_same_v<T, bool>) {
    for (auto&& x : v) x = (r() & 1) != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> u(lo, hi);
    const T sp[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                    -std::numeric_limits<T>::infinity(), T(0), T(-0.0), T(1), T(-1), T(2)};
    for (auto& x : v) x = (specials && r() % 16 == 0) ? sp[r() % 8] : static_cast<T>(u(r));
  } else {
    std::uniform_int_distribution<long long> u(static_cast<long long>(lo), static_cast<long long>(hi));
    const T sp[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0), T(-1), T(1)};
    for (auto& x : v) x = (specials && r() % 16 == 0) ? sp[r() % 5] : static_cast<T>(u(r));
  }
  return v;
}

template <class T>
jf::array<T> random_array(const jf::shape_t& s, bool specials = true, double lo = -10, double hi = 10) {
  return jf::array<T>(random_values<T>(static_cast<std::size_t>(s.product()), specials, lo, hi), s, jf::cpu);
}

// Elementwise comparison: bit-for-bit kind (NaN where NaN), exact for integers and bool, relative
// tolerance for floats (1e-12 for double, 2e-6 for float; CUDA and glibc math differ by ulps).
template <class T>
::testing::AssertionResult same_values(const std::vector<T>& got, const std::vector<T>& want, double rel = -1) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  if (rel < 0) rel = std::is_same_v<T, float> ? 2e-6 : 1e-12;
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      const double g = got[i], w = want[i];
      if (std::isnan(w) || std::isnan(g)) ok = std::isnan(w) && std::isnan(g);
      else if (std::isinf(w) || std::isinf(g)) ok = g == w;
      else ok = std::abs(g - w) <= rel * std::max(std::abs(g), std::abs(w)) + std::numeric_limits<T>::denorm_min();
    } else {
      ok = got[i] == want[i];
    }
    if (!ok) {
      return ::testing::AssertionFailure() << "element " << i << " of " << got.size() << ": got "
                                           << +got[i] << ", want " << +want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace jf_test
