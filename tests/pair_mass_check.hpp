// The dielectron mass expression and GPU-vs-CPU checks of per-event dielectron-style masses (tests/test_combinations.cpp,
// tests/test_cartesian.cpp): how far two float32 evaluations of a pair's mass may be apart, and the
// comparison of two per-event option results within it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "jetfuse/jetfuse.hpp"

namespace test_support {

// The seeds' dielectron mass of two particles (records with pt, eta, phi): an expression of two
// combination or product slots.
template <class A, class B>
auto mass(const A& a, const B& b) {
  const auto pt1 = a.template field<float>("pt");
  const auto pt2 = b.template field<float>("pt");
  const auto eta1 = a.template field<float>("eta");
  const auto eta2 = b.template field<float>("eta");
  const auto phi1 = a.template field<float>("phi");
  const auto phi2 = b.template field<float>("phi");
  return jf::sqrt(2 * pt1 * pt2 * (jf::cosh(eta1 - eta2) - jf::cos(phi1 - phi2)));
}

// The two math libraries' cosh and cos differ by an ulp or two, and cosh(deta) - cos(dphi) cancels
// for nearby particles, so a pair's mass may move by pt1 pt2 d / m with d = 1e-6 (cosh + |cos|)
// (computed in double here).
inline double pair_mass_band(double pt1, double eta1, double phi1, double pt2, double eta2, double phi2) {
  const double ch = std::cosh(eta1 - eta2), co = std::cos(phi1 - phi2);
  const double p2 = pt1 * pt2, m = std::sqrt(std::max(2 * p2 * (ch - co), 0.0));
  return p2 * 1e-6 * (ch + std::abs(co)) / std::max(m, 1e-3);
}

// Equal validity; values within the event's band plus 1e-5 of the value.
inline void expect_masses_close(const std::vector<std::optional<float>>& a, const std::vector<std::optional<float>>& b,
                                const std::vector<double>& band) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), band.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].has_value(), b[k].has_value()) << "at " << k;
    if (a[k]) {
      EXPECT_NEAR(*a[k], *b[k], band[k] + 1e-5 * std::max(1.f, std::abs(*a[k]))) << "at " << k;
    }
  }
}

// argmax of masses: the same pair, unless two masses are within the math libraries' difference
// (at most one event in 10^4 differs).
template <class V> void expect_argmax_mostly_equal(const V& cpu, const V& gpu) {
  ASSERT_EQ(cpu.size(), gpu.size());
  std::size_t differ = 0;
  for (std::size_t k = 0; k < cpu.size(); ++k) differ += cpu[k] != gpu[k];
  EXPECT_LE(differ, cpu.size() / 10000) << "argmax differs in " << differ << " events";
}

}  // namespace test_support
