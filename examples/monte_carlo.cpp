// Monte Carlo without arrays: pi from random points and a histogram of normal values made from
// uniform ones (Box-Muller), the seed's lesson project. The random numbers are leaves of the
// expressions (numpy's Philox: the same numbers as numpy's Generator(Philox(key=2026))), so the
// sample count is not limited by memory: each estimate is one kernel that stores one number.
// Runs on the GPU when there is one, else on the CPU backend (with fewer samples).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  const std::int64_t n = dev == jf::cuda ? 10'000'000'000 : 20'000'000;
  jf::random::philox gen(2026);

  const auto t0 = std::chrono::steady_clock::now();
  auto x = gen.random({n}, dev);
  auto y = gen.random({n}, dev);
  const double inside = jf::mean(jf::square(x) + jf::square(y) < 1).item();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double pi = 4 * inside;
  const double sigma = 4 * std::sqrt(inside * (1 - inside) / static_cast<double>(n));
  std::printf("jetfuse Monte Carlo on %s\n", jf::to_string(dev).c_str());
  std::printf("pi ~ %.8f from %lld points (error %.1e, expected %.1e), %.3f s, %.2f Gpoints/s\n", pi,
              static_cast<long long>(n), pi - std::numbers::pi, sigma, seconds, static_cast<double>(n) / seconds * 1e-9);

  // Normal values from pairs of uniform ones (Box-Muller), binned without storing them.
  const std::int64_t m = n / 10;
  auto u1 = gen.random({m}, dev);
  auto u2 = gen.random({m}, dev);
  auto z = jf::sqrt(-2 * jf::log1p(-u1)) * jf::cos(2 * std::numbers::pi * u2);  // 1 - u1 is in (0, 1]
  const auto [hist, edges] = jf::histogram(z, 16, {-4.0, 4.0});
  std::printf("histogram of %lld normal values:\n", static_cast<long long>(m));
  std::int64_t peak = 1;
  for (std::int64_t b = 0; b < 16; ++b) peak = std::max(peak, static_cast<std::int64_t>(hist(b)));
  bool ok = std::abs(pi - std::numbers::pi) < 5 * sigma;
  for (std::int64_t b = 0; b < 16; ++b) {
    const auto c = static_cast<std::int64_t>(hist(b));
    const double lo = static_cast<double>(edges(b)), hi = static_cast<double>(edges(b + 1));
    const double expected = static_cast<double>(m) * 0.5 * (std::erf(hi / std::sqrt(2.0)) - std::erf(lo / std::sqrt(2.0)));
    ok = ok && std::abs(static_cast<double>(c) - expected) < 6 * std::sqrt(expected) + 1;
    std::printf("  [%5.1f, %5.1f%c %12lld %s\n", lo, hi, b == 15 ? ']' : ')', static_cast<long long>(c),
                std::string(static_cast<std::size_t>(60 * c / peak), '#').c_str());
  }
  std::printf("check against the expected counts: %s\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
