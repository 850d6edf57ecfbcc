// What randomised test files share: one seed per test executable, printed so that a failure
// replays (JF_TEST_SEED=<seed> ./build/dev/tests/<name>), a generator drawn from it, and the
// message of an expected exception.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace test_support {

inline std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* env = std::getenv("JF_TEST_SEED");
    const std::uint64_t v = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("random seed %llu (JF_TEST_SEED replays it)\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}
inline std::mt19937_64& rng() {
  static std::mt19937_64 r(seed());
  return r;
}
inline std::int64_t rand_int(std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng());
}

// The what() of the E that f throws (a test failure, and "", when it throws none).
template <class E, class F> std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "the expected exception was not thrown";
  return {};
}

}  // namespace test_support
