// Experiment (written in the twelfth session): x(mask) reads the mask's count back
// before it allocates its result. For a contiguous bool array on jf::cuda that count comes from
// detail::count_true_fast (src/cuda/mask/count_true.cu, 16 bytes a load), a special case kept
// because the fused full reduction once read one-byte operands a byte a lane; the full reduction
// now reads them 16 lanes a trip (design.md, "Kernel shapes"). If the fused jf::count_nonzero is
// as fast, count_true_fast can go. Both are timed here as count_selected uses them (the count read
// back, one synchronisation each call): host clock, batches of 20 calls, median of 9, for 2^20,
// 2^24 and 2^27 bools with 1 % and 50 % true; each count checked against the host.
// First run (H200, thirteenth session, us per call with the read-back): 2^20 bools 21.3 / 22.1
// (fused / count_true_fast), 2^24 29.4 / 22.7, 2^27 88.2 / 49.9 (1 % and 50 % true alike): the fused
// reduction's one-byte lanes made a 32-byte request of every warp load. The full reduction now
// reads one-byte inputs 16 elements a thread per 16-byte load (shape_full_reduction.cpp); this
// experiment says whether count_true_fast is still needed.
// Build (from the repository root, after `cmake --build build/cuda`):
//   g++ -std=c++20 -O2 -Iinclude -Isrc bench/experiments/count_mask_paths.cpp build/cuda/libjetfuse.a \
//     -L/usr/local/cuda/lib64 -lnvrtc -lcudart_static -lrt -ldl -lpthread -o /tmp/cmp && /tmp/cmp
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <jetfuse/expr/count_true.hpp>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <vector>

template <class F>
double median_us(F f) {
  f();
  std::vector<double> t;
  for (int k = 0; k < 9; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / 20 * 1e6);
  }
  std::sort(t.begin(), t.end());
  return t[4];
}

int main() {
  if (!jf::cuda_available()) {
    std::printf("no CUDA GPU: nothing to measure\n");
    return 0;
  }
  std::mt19937_64 g(7);
  for (int e : {20, 24, 27})
    for (double p : {0.01, 0.5}) {
      const std::int64_t n = std::int64_t(1) << e;
      std::vector<bool> v(static_cast<std::size_t>(n));
      std::bernoulli_distribution b(p);
      std::int64_t want = 0;
      for (std::size_t i = 0; i < v.size(); ++i) want += (v[i] = b(g));
      const jf::array<bool> m(v, jf::cuda);
      std::int64_t c1 = -1, c2 = -1;
      const double fused = median_us([&] { c1 = jf::array<std::int64_t>(jf::count_nonzero(m)).item(); });
      const double fast = median_us([&] { c2 = *jf::detail::count_true_fast(m); });
      std::printf("2^%d bools, %4.0f %% true: fused count_nonzero %8.1f us, count_true_fast %8.1f us  (%s)\n", e,
                  100 * p, fused, fast, c1 == want && c2 == want ? "both counts right" : "A COUNT IS WRONG");
    }
  return 0;
}
