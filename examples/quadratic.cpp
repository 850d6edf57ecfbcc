// The quadratic formula on a million random coefficients: one fused kernel on the GPU when there
// is one, else the CPU backend (the CPU executor of the same IR). Checks the roots and prints what ran.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  const std::size_t n = 1 << 20;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  std::vector<double> ha(n), hb(n), hc(n);
  for (std::size_t i = 0; i < n; ++i) {
    ha[i] = u(rng);
    hc[i] = u(rng);
    hb[i] = 3.0 + u(rng);  // b*b > 4ac: real roots
  }
  jf::array<double> a(ha, dev), b(hb, dev), c(hc, dev);

  const auto t0 = std::chrono::steady_clock::now();
  jf::array<double> x = (-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a);  // one kernel (GPU) / one IR execution (CPU)
  const std::vector<double> roots = x.to_vector();
  const auto t1 = std::chrono::steady_clock::now();

  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = roots[i];
    worst = std::max(worst, std::abs(ha[i] * r * r + hb[i] * r + hc[i]) / (std::abs(hb[i] * r) + hc[i]));
  }
  std::printf("jetfuse quadratic formula on %s%s: n = %zu, first roots %.6f %.6f, max relative residual %.2e\n",
              jf::to_string(dev).c_str(), dev == jf::cuda ? " (GPU)" : " (CPU backend; no GPU found)", n,
              roots[0], roots[1], worst);
  const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const jf::stats_t s = jf::stats();
  if (dev == jf::cuda) {
    std::printf("first call (including kernel generation/compilation or cache load): %.1f ms\n", ms);
    std::printf("kernels launched: %llu, NVRTC compiles: %llu, disk-cache hits: %llu, temporaries: %llu\n",
                static_cast<unsigned long long>(s.launches), static_cast<unsigned long long>(s.nvrtc_compiles),
                static_cast<unsigned long long>(s.disk_cache_hits), static_cast<unsigned long long>(s.temporaries));
  } else {
    // On the CPU nothing is generated or compiled: the CPU executor runs the lowered IR.
    std::printf("evaluation on the CPU (CPU executor, no code generation): %.1f ms\n", ms);
    std::printf("CPU evaluations: %llu, elements: %llu, temporaries: %llu\n",
                static_cast<unsigned long long>(s.cpu_evaluations), static_cast<unsigned long long>(s.cpu_elements),
                static_cast<unsigned long long>(s.temporaries));
  }
  return worst < 1e-12 ? 0 : 1;
}
