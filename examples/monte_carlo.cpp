// Monte Carlo without arrays: pi from random points and a histogram of normal values, the seed's
// lesson project. The random numbers are leaves of the expressions (the uniform ones are numpy's
// Generator(Philox(key=2026)).random, bit for bit), so the sample count is not limited by memory:
// pi is one kernel that stores one number, the histogram one kernel that stores 16 counts.
// Runs on the GPU when there is one, else on the CPU backend (with fewer samples).
// `monte_carlo philox4x32` draws from jf::random::philox4x32 instead (Random123's Philox4x32-10:
// about half the arithmetic per random number, so faster on a GPU; not numpy's numbers).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include <jetfuse/jetfuse.hpp>

template <class Gen> int run(const char* name) {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  const std::int64_t n = dev == jf::cuda ? 10'000'000'000 : 20'000'000;
  Gen gen(2026);

  const auto t0 = std::chrono::steady_clock::now();
  auto x = gen.random({n}, dev);
  auto y = gen.random({n}, dev);
  const double inside = jf::mean(jf::square(x) + jf::square(y) < 1).item();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double pi = 4 * inside;
  const double sigma = 4 * std::sqrt(inside * (1 - inside) / static_cast<double>(n));
  std::printf("jetfuse Monte Carlo on %s, jf::random::%s\n", jf::to_string(dev).c_str(), name);
  std::printf("pi ~ %.8f from %lld points (error %.1e, expected %.1e), %.3f s, %.2f Gpoints/s\n", pi,
              static_cast<long long>(n), pi - std::numbers::pi, sigma, seconds, static_cast<double>(n) / seconds * 1e-9);

  // Standard normal values, binned without storing them.
  const std::int64_t m = n / 10;
  const auto t1 = std::chrono::steady_clock::now();
  const auto [hist, edges] = jf::histogram(gen.normal({m}, 0.0, 1.0, dev), 16, {-4.0, 4.0});
  jf::synchronize();  // kernels run asynchronously: time the work, not the launch
  const double hist_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf("histogram of %lld normal values, %.3f s, %.2f Gvalues/s:\n", static_cast<long long>(m), hist_seconds,
              static_cast<double>(m) / hist_seconds * 1e-9);
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

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "philox4x32") return run<jf::random::philox4x32>("philox4x32");
  return run<jf::random::philox>("philox");
}
