// Experiment: the CPU executor's column sums (outer-axis reductions, src/cpu/executor.cpp,
// rows_tile_width) read each row's part of a tile of results as one contiguous run; how wide should
// a tile be? Times jf::sum(x, 0) of float64 matrices of several shapes on jf::cpu, the median of 21
// calls. Build and run (from the repository root, after `cmake --build build/dev`):
//   g++ -std=c++20 -O2 -Iinclude -I/usr/include/eigen3 bench/experiments/cpu_column_sum_tiles.cpp
//     build/dev/libjetfuse.a -L/usr/local/cuda/lib64 -lnvrtc -lcudart_static -lrt -lpthread -ldl
//     -o /tmp/cst && for s in "4096 4096" "1024 16384" "256 65536" "64 262144" "65536 256"; do /tmp/cst $s; done
// (one command on three lines)
// (without CUDA: drop the -L and the two CUDA libraries.)
// Results (2-core CI-sized machine, 2026-11-30, ms; tiles of 1024 results, then of 1024 x k with
// k set by hand, then the rule, a tile a thread up to 256 KiB of accumulators):
//   4096 x 4096   k=1 7.04, k=2 6.11, k=4 7.29 (one tile: one thread); the rule (k=2) 5.69
//   1024 x 16384  k=1 7.15, k=2 6.37, k=4 4.67, k=8 4.06, k=16 7.25 (one thread); the rule (k=8) 4.41
//   256 x 65536   k=1 8.73, k=2 5.83, k=4 4.86, k=8 4.50, k=16 4.22, k=32 3.96; the rule (k=32) 4.11
//   64 x 262144   k=4 5.39, k=8 4.86, k=16 4.59, k=32 4.32; the rule (k=32, 4 tiles) 4.51
//   65536 x 256   4.20 (256 results: one tile whatever k)
// numpy's x.sum(0) of 4096 x 4096 in the same minutes: 5.2 ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s ROWS COLS\n", argv[0]);
    return 2;
  }
  const std::int64_t rows = std::atoll(argv[1]), cols = std::atoll(argv[2]);
  std::vector<double> v(static_cast<std::size_t>(rows * cols));
  std::mt19937_64 r(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : v) x = u(r);
  const jf::array<double> m = jf::array<double>(v).reshape({rows, cols});
  jf::array<double> s = jf::zeros<double>({cols});
  std::vector<double> t;
  for (int i = 0; i < 21; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    s = jf::sum(m, 0);
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  std::printf("%lld x %lld: %.2f ms\n", static_cast<long long>(rows), static_cast<long long>(cols), t[10]);
}
