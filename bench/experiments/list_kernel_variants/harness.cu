// Times jetfuse's generated per-list sum and max kernels against edited variants (make_variants.py)
// and the lock step written by hand, on 10M float32 lists of Poisson(2) lengths with int64 offsets
// (bench_jagged's data: the same generator and seed), each checked against a host loop, and a
// device copy of the same bytes.
// Build and run (from the repository root; dump_list_kernels.cpp's header says how to build it):
//   /tmp/dump_list_kernels /tmp/lkv && python3 bench/experiments/list_kernel_variants/make_variants.py /tmp/lkv /tmp/lkv/variants.cuh
//   nvcc -O3 -arch=sm_90 -std=c++20 -fmad=false -I /tmp/lkv bench/experiments/list_kernel_variants/harness.cu -o /tmp/harness && /tmp/harness
// Measured (H200, 2026-11-28, six calls of that session; every variant "same" as the host
// loop; copy of the same bytes 51.7-52.0 us; times in us):
//   hand-written lock step: sum 57.2, max 63.8-64.4 (31 registers, 8 blocks per SM)
//   generated before 57da183 (64-bit offsets arithmetic, offsets read with their stride):
//     sum every path 72.2 (48 registers), no block path 66.1, no warp or block path 69.0;
//     max 98.6 / 93.7 / 89.8; with the arithmetic in 32 bits (the i32 edit) sum 63.3, max 82.5,
//     and without the block path too 57.1 / 79.4
//   generated at 57da183 + 8e50fd2 (32-bit arithmetic; paths left out for known short lists):
//     sum every path / at most 4096 / at most 16: 65.4 / 58.4 / 51.1; max 83.8 / 77.3 / 71.9
//   not kept: __launch_bounds__(256, 6 or 8) (sum 72-83: spills), #pragma unroll 1 or 2 on the lock
//     step (no gain), two lock steps per trip (sum 71, max 87-92), two lists per lane for the max
//     (81-87), a 32-entry block queue instead of 1024 (no change: shared memory is not the cost).
// Since 796cd56, jf::explain_cuda describes an option result with its validity output
// (the kernel bench_jagged's ListMax runs): the generated max kernels write it here too, and
// hand_max_valid is the hand-written lock step writing it (not yet measured).
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "variants.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

// The lock step written by hand (../list_sum_variants.cu's lockstep4: __restrict__ parameters, no
// medium or heavy paths), for sum and for max with the generated kernel's NaN-propagating select.
struct hand_sum { static __device__ float id() { return 0.0f; } static __device__ float neutral() { return -0.0f; }
                  static __device__ float f(float a, float b) { return a + b; } };
struct hand_max { static __device__ float id() { return -INFINITY; } static __device__ float neutral() { return -INFINITY; }
                  static __device__ float f(float a, float b) { return ((a > b) | (a != a)) ? a : b; } };
template <class Op, bool Valid = false>
__global__ void __launch_bounds__(256) hand_lockstep4(const long long* __restrict__ off, const float* __restrict__ c,
                                                      float* __restrict__ out, long long nl,
                                                      bool* __restrict__ valid = nullptr) {
  constexpr int K = 4;
  const int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;
  const long long tl = 256LL * K, ntiles = (nl + tl - 1) / tl;
  for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const long long iw = tile * tl + wp * 32LL * K;
    long long jb[K], je[K];
#pragma unroll
    for (int k = 0; k < K; ++k) { const long long i = iw + lane + 32 * k; jb[k] = off[i < nl ? i : nl]; }
    const long long wend = off[iw + 32 * K < nl ? iw + 32 * K : nl];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long down = __shfl_down_sync(~0u, jb[k], 1);
      const long long next = k + 1 < K ? __shfl_sync(~0u, jb[(k + 1) % K], 0) : wend;
      je[k] = lane == 31 ? next : down;
    }
    const long long wb = __shfl_sync(~0u, jb[0], 0);
    int jn[K], steps = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) { jn[k] = (int)(je[k] - jb[k]); steps = max(steps, jn[k]); }
    steps = __reduce_max_sync(~0u, steps);
    float acc[K];
#pragma unroll
    for (int k = 0; k < K; ++k) acc[k] = Op::id();
    for (int m = 0; m < steps; ++m) {
      float v[K];
#pragma unroll
      for (int k = 0; k < K; ++k) v[k] = c[m < jn[k] ? jb[k] + m : wb];
#pragma unroll
      for (int k = 0; k < K; ++k) acc[k] = Op::f(acc[k], m < jn[k] ? v[k] : Op::neutral());
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long i = iw + lane + 32 * k;
      if (i < nl) {
        out[i] = acc[k];
        if (Valid) valid[i] = jn[k] > 0;  // (the option result's validity, as jf::max writes it)
      }
    }
  }
}

int main() {
  const long long nl = 10000000;
  std::mt19937_64 rng(1);
  std::poisson_distribution<int> len(2.0);
  std::vector<long long> off(nl + 1, 0);
  for (long long i = 0; i < nl; ++i) off[i + 1] = off[i] + len(rng);
  const long long ne = off[nl];
  std::vector<float> c(ne), sum(nl), mx(nl);
  std::uniform_real_distribution<float> u(0, 100);
  for (auto& x : c) x = u(rng);
  for (long long i = 0; i < nl; ++i) {
    float s = 0, m = -INFINITY;
    for (long long j = off[i]; j < off[i + 1]; ++j) { s += c[j]; m = std::max(m, c[j]); }
    sum[i] = s;
    mx[i] = m;
  }
  long long* d_off; float *d_c, *d_out; char *d_a, *d_b;
  const double bytes = 8.0 * (nl + 1) + 4.0 * ne + 4.0 * nl;
  CK(cudaMalloc(&d_off, 8 * (nl + 1))); CK(cudaMalloc(&d_c, 4 * ne)); CK(cudaMalloc(&d_out, 4 * nl));
  bool* d_valid;  // an option result's validity (the generated max kernels write it since explain_cuda describes it)
  CK(cudaMalloc(&d_valid, nl));
  CK(cudaMalloc(&d_a, (size_t)bytes / 2)); CK(cudaMalloc(&d_b, (size_t)bytes / 2));
  CK(cudaMemcpy(d_off, off.data(), 8 * (nl + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_c, c.data(), 4 * ne, cudaMemcpyHostToDevice));
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto best_of = [&](auto launch) {
    float best = 1e30f;
    for (int r = 0; r < 7; ++r) {
      cudaEventRecord(e0);
      for (int k = 0; k < 20; ++k) launch();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      best = std::min(best, ms / 20);
    }
    return best * 1e3f;
  };
  const float tc = best_of([&] { cudaMemcpyAsync(d_b, d_a, (size_t)bytes / 2, cudaMemcpyDeviceToDevice); });
  printf("copy of the same bytes: %.1f us (%.0f GB/s)\n", tc, bytes / tc * 1e-3);
  // One kernel: its occupancy, a launch over 4 waves of resident blocks, the check against the host
  // loop (output poisoned first), the best time.
  auto measure = [&](const char* name, const void* fn, auto launch_on_grid, const std::vector<float>& ref) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0);
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, fn);
    const long long tiles = (nl + 1023) / 1024, grid = std::min<long long>(tiles, 4LL * per_sm * sms);
    auto launch = [&] { launch_on_grid((unsigned)grid); };
    cudaMemset(d_out, 0xFF, 4 * nl);
    launch();
    if (cudaDeviceSynchronize() != cudaSuccess) { printf("%s: launch failed\n", name); return; }
    std::vector<float> h(nl);
    cudaMemcpy(h.data(), d_out, 4 * nl, cudaMemcpyDeviceToHost);
    long long bad = 0;
    for (long long i = 0; i < nl; ++i) bad += h[i] != ref[i];
    const float t = best_of(launch);
    printf("%-20s %7.1f us  %5.1f %% of copy  %3d registers  %d blocks/SM  %5zu B shared  grid %lld  %s\n", name, t, 100.0 * tc / t,
           attr.numRegs, per_sm, attr.sharedSizeBytes, grid, bad ? "MISMATCH" : "same");
  };
  auto run = [&]<class Args>(const char* name, void (*kernel)(Args), const std::vector<float>& ref) {
    Args a{};  // (every variant's arguments have the same layout: out0, in0 content, in1 offsets)
    a.out0 = d_out; a.in0 = d_c; a.in1 = d_off;
    a.extents[0] = nl; a.extents[1] = ne;
    a.st_out0[0] = 1; a.st_in0[1] = 1; a.st_in1[0] = 1;
    if constexpr (requires { a.out1; }) {
      a.out1 = d_valid;
      a.st_out1[0] = 1;
    }
    measure(name, (const void*)kernel, [&](unsigned grid) { kernel<<<grid, 256>>>(a); }, ref);
  };
  auto run_hand = [&](const char* name, void (*kernel)(const long long*, const float*, float*, long long, bool*),
                      const std::vector<float>& ref) {
    measure(name, (const void*)kernel, [&](unsigned grid) { kernel<<<grid, 256>>>(d_off, d_c, d_out, nl, d_valid); }, ref);
  };
  run_hand("hand_sum", hand_lockstep4<hand_sum>, sum);
  run_hand("hand_max", hand_lockstep4<hand_max>, mx);
  run_hand("hand_max_valid", hand_lockstep4<hand_max, true>, mx);
#define JF_RUN(k, ref) run(#k, k, ref);
  JF_VARIANTS(JF_RUN)
  return 0;
}
