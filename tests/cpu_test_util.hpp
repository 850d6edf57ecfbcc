// Helpers of the CPU evaluator tests: random inputs with numpy's edge cases, reference casts and
// element comparison. The references here never call jf::ops (they check it).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "test_support.hpp"

namespace cpu_test {

// The executable's one generator, its seed printed (JF_TEST_SEED replays a failure).
inline std::mt19937_64& rng() { return test_support::rng(); }

// Random values with specials: NaN, +-inf, +-0, +-1 for floats; INT_MIN, INT_MAX, 0, -1, 1 for
// integers (one in 8 elements). Integers otherwise in [lo, hi].
template <class T> std::vector<T> random_values(std::size_t n, double lo = -1000, double hi = 1000) {
  std::vector<T> v(n);
  auto& r = rng();
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < n; ++i) v[i] = (r() & 1) != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> u(lo / 100, hi / 100);
    const T sp[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                    -std::numeric_limits<T>::infinity(), T(0), T(-0.0), T(1), T(-1), T(0.5), T(-2.5), T(2)};
    for (auto& x : v) x = r() % 8 == 0 ? sp[r() % 10] : static_cast<T>(u(r));
  } else {
    std::uniform_int_distribution<long long> u(static_cast<long long>(lo), static_cast<long long>(hi));
    const T sp[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0), T(-1), T(1)};
    for (auto& x : v) x = r() % 8 == 0 ? sp[r() % 5] : static_cast<T>(u(r));
  }
  return v;
}

template <class T> jf::array<T> make(const std::vector<T>& v) { return jf::array<T>(v); }

// numpy's astype, written from its documentation (float -> int: NaN and out-of-range values give
// the minimum integer on x86-64; anything -> bool: != 0, NaN is true).
template <class To, class From>
  requires jf::is_element_v<From>
To ref_cast(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return !(v == From(0));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    const long double x = v;
    const long double lim = std::ldexp(1.0L, std::numeric_limits<To>::digits);
    if (std::isnan(x) || x >= lim || x < -lim) return std::numeric_limits<To>::min();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

template <class To> To ref_cast(std::vector<bool>::const_reference v) { return ref_cast<To, bool>(static_cast<bool>(v)); }
template <class To> To ref_cast(std::vector<bool>::reference v) { return ref_cast<To, bool>(static_cast<bool>(v)); }

// Equal values: exact for integers and bool; floats equal, both NaN, or within `ulps` units in
// the last place (0: exact; +0 == -0 unless sign_of_zero).
template <class T> bool same_value(T got, T want, int ulps = 0, bool sign_of_zero = false) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
    if (got == want) return !sign_of_zero || want != 0 || std::signbit(got) == std::signbit(want);
    if (ulps == 0 || std::isinf(got) || std::isinf(want)) return false;
    T x = want;
    for (int i = 0; i < ulps; ++i) x = std::nextafter(x, got);
    return got > want ? got <= x : got >= x;
  } else {
    return got == want;
  }
}

template <class T>
::testing::AssertionResult same_values(const std::vector<T>& got, const std::vector<T>& want, int ulps = 0,
                                       bool sign_of_zero = false) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same_value(got[i], want[i], ulps, sign_of_zero))
      return ::testing::AssertionFailure() << "element " << i << " of " << got.size() << ": got " << +got[i]
                                           << ", want " << +want[i];
  return ::testing::AssertionSuccess();
}

// A sentinel that no test result has by chance (for poisoning outputs before evaluation).
template <class T> T sentinel() {
  if constexpr (std::is_same_v<T, bool>) return true;
  else if constexpr (std::is_floating_point_v<T>) return T(-12345.25);
  else return T(-12345);
}

}  // namespace cpu_test
