// Stand-alone candidates for the list kernel's design (docs/design.md, "List kernels", "Why this
// design"): per-list sum, and max with its validity, of 10^7 Poisson(2) float32 lists with int64
// offsets (and the long tail: 0.5 % of lists of 64), each checked against a host reference and timed
// with events against a 1 GiB device copy: a thread per list; warp tiles in lock step with K lists
// per lane read from global memory ("direct") or with the warp's content staged through shared
// memory; grids of one tile per warp or 1 and 4 waves of resident blocks. Not built by CMake:
//
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/list_designs.cu -o /tmp/list_designs && /tmp/list_designs
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
constexpr unsigned full = 0xffffffffu;

template <bool MAX> struct op;
template <> struct op<false> {
  static __device__ __forceinline__ float id() { return 0.f; }
  static __device__ __forceinline__ float f(float a, float b) { return a + b; }
};
template <> struct op<true> {
  static __device__ __forceinline__ float id() { return -INFINITY; }
  static __device__ __forceinline__ float f(float a, float b) { return (a != a || a > b) ? a : b; }  // numpy: a NaN wins
};
template <bool MAX> __device__ __forceinline__ float warp_reduce(float v) {
  for (int d = 16; d > 0; d >>= 1) v = op<MAX>::f(v, __shfl_down_sync(full, v, d));
  return __shfl_sync(full, v, 0);
}

// P1: a thread per list, loads straight from global memory.
template <bool MAX> __global__ void __launch_bounds__(256) k_thread(const long long* __restrict__ off, const float* __restrict__ x,
                                                                     float* __restrict__ out, bool* __restrict__ valid, long long n) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += gridDim.x * 256LL) {
    const long long b = off[i], e = off[i + 1];
    float a = op<MAX>::id();
    for (long long j = b; j < e; ++j) a = op<MAX>::f(a, x[j]);
    out[i] = a;
    if (MAX) valid[i] = e > b;
  }
}

// P2: warp tiles of 32K lists, lane l owns lists i0 + l + 32k (k < K): the K offsets loads at once,
// the ends by shuffles, the lists' elements read in lock step (K independent loads per step) straight
// from global memory; lists longer than 32 by the whole warp (lanes strided, tree).
// P3 (STAGE): the same, the warp's content range first copied coalesced into shared memory.
template <bool MAX, int K, bool STAGE, int CAP>
__global__ void __launch_bounds__(256) k_warp(const long long* __restrict__ off, const float* __restrict__ x, float* __restrict__ out,
                                              bool* __restrict__ valid, long long n) {
  __shared__ float s_x[STAGE ? 8 * CAP : 1];
  float* const sx = s_x + (STAGE ? (threadIdx.x >> 5) * CAP : 0);
  const int lane = threadIdx.x & 31;
  const long long ntiles = (n + 32 * K - 1) / (32 * K);
  for (long long tile = (blockIdx.x * 256LL + threadIdx.x) >> 5; tile < ntiles; tile += gridDim.x * 8LL) {
    const long long i0 = tile * 32 * K;
    long long b[K], e[K];
#pragma unroll
    for (int k = 0; k < K; ++k) b[k] = off[min(i0 + lane + 32 * k, n)];
    const long long last = off[min(i0 + 32 * K, n)];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long nx = __shfl_down_sync(full, b[k], 1);
      const long long first_next = k + 1 < K ? __shfl_sync(full, b[k + 1 < K ? k + 1 : k], 0) : last;
      e[k] = lane == 31 ? first_next : nx;
    }
    float acc[K];
    int len[K];
    int mx = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      acc[k] = op<MAX>::id();
      const long long l = e[k] - b[k];
      len[k] = l > 32 ? 0 : static_cast<int>(l);
      mx = max(mx, len[k]);
    }
    mx = __reduce_max_sync(full, mx);
    const long long B = __shfl_sync(full, b[0], 0);
    bool staged = false;
    if (STAGE && last - B <= CAP) {
      staged = true;
      const int cnt = static_cast<int>(last - B);
      int q = lane;
      for (; q + 96 < cnt; q += 128) {
        const float v0 = x[B + q], v1 = x[B + q + 32], v2 = x[B + q + 64], v3 = x[B + q + 96];
        sx[q] = v0; sx[q + 32] = v1; sx[q + 64] = v2; sx[q + 96] = v3;
      }
      for (; q < cnt; q += 32) sx[q] = x[B + q];
      __syncwarp();
    }
    if (staged) {
      for (int m = 0; m < mx; ++m)
#pragma unroll
        for (int k = 0; k < K; ++k)
          if (m < len[k]) acc[k] = op<MAX>::f(acc[k], sx[b[k] - B + m]);
      __syncwarp();
    } else {
      for (int m = 0; m < mx; ++m)
#pragma unroll
        for (int k = 0; k < K; ++k)
          if (m < len[k]) acc[k] = op<MAX>::f(acc[k], x[b[k] + m]);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      unsigned todo = __ballot_sync(full, e[k] - b[k] > 32);
      while (todo) {
        const int src = __ffs(todo) - 1;
        todo &= todo - 1;
        const long long lb = __shfl_sync(full, b[k], src), le = __shfl_sync(full, e[k], src);
        float a = op<MAX>::id();
        for (long long j = lb + lane; j < le; j += 32) a = op<MAX>::f(a, x[j]);
        a = warp_reduce<MAX>(a);
        if (lane == src) acc[k] = a;
      }
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const long long i = i0 + lane + 32 * k;
      if (i < n) {
        out[i] = acc[k];
        if (MAX) valid[i] = e[k] > b[k];
      }
    }
  }
}

struct data {
  std::vector<long long> off;
  std::vector<float> x;
};
data make(bool tail, long long n) {
  std::mt19937_64 r(tail ? 2 : 1);
  std::poisson_distribution<int> len(2.0);
  std::bernoulli_distribution heavy(0.005);
  data d;
  d.off.assign(1, 0);
  for (long long i = 0; i < n; ++i) d.off.push_back(d.off.back() + (tail && heavy(r) ? 64 : len(r)));
  std::uniform_real_distribution<float> u(0, 100);
  d.x.resize(static_cast<size_t>(d.off.back()));
  for (float& v : d.x) v = u(r);
  return d;
}

template <class F> float time_it(F&& f, int reps = 20) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 7; ++r) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < reps; ++i) f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.f / reps);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const long long n = 10'000'000;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  double roof;
  {
    const size_t bytes = size_t(1) << 30;
    void *s, *d;
    CK(cudaMalloc(&s, bytes));
    CK(cudaMalloc(&d, bytes));
    CK(cudaMemset(s, 1, bytes));
    const float us = time_it([&] { CK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice)); }, 10);
    roof = 2.0 * bytes / us * 1e-3;
    std::printf("copy 1 GiB: %.1f us, %.1f GB/s (read + written)\n", us, roof);
    CK(cudaFree(s));
    CK(cudaFree(d));
  }
  for (int tail = 0; tail < 2; ++tail) {
    const data h = make(tail != 0, n);
    long long *off;
    float *x, *out;
    bool* valid;
    CK(cudaMalloc(&off, h.off.size() * 8));
    CK(cudaMalloc(&x, h.x.size() * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMalloc(&valid, n));
    CK(cudaMemcpy(off, h.off.data(), h.off.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(x, h.x.data(), h.x.size() * 4, cudaMemcpyHostToDevice));
    std::vector<float> ref_sum(n), ref_max(n);
    for (long long i = 0; i < n; ++i) {
      float s = 0, m = -INFINITY;
      for (long long j = h.off[i]; j < h.off[i + 1]; ++j) { s += h.x[j]; m = std::max(m, h.x[j]); }
      ref_sum[i] = s;
      ref_max[i] = m;
    }
    const double bytes_sum = 8.0 * (n + 1) + 4.0 * h.x.size() + 4.0 * n, bytes_max = bytes_sum + n;
    std::printf("\n%s: %lld lists, %zu elements; bytes sum %.1f MB, max %.1f MB\n", tail ? "tail" : "poisson", n, h.x.size(),
                bytes_sum * 1e-6, bytes_max * 1e-6);
    auto check = [&](bool mx) {
      std::vector<float> o(n);
      std::vector<char> v(n);
      CK(cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost));
      if (mx) CK(cudaMemcpy(v.data(), valid, n, cudaMemcpyDeviceToHost));
      long long bad = 0;
      for (long long i = 0; i < n; ++i) {
        const float r = mx ? ref_max[i] : ref_sum[i];
        const bool ok = mx ? (o[i] == r && (v[i] != 0) == (h.off[i + 1] > h.off[i])) : std::fabs(o[i] - r) <= 1e-5f * std::fabs(r) + 1e-6f;
        bad += !ok;
      }
      return bad;
    };
    auto row = [&](const char* name, bool mx, auto launch) {
      CK(cudaMemset(out, 0xff, n * 4));
      CK(cudaMemset(valid, 0x7, n));
      launch();
      CK(cudaDeviceSynchronize());
      const long long bad = check(mx);
      const float us = time_it(launch);
      const double b = mx ? bytes_max : bytes_sum;
      std::printf("%-40s %-4s %8.1f us %7.1f GB/s %5.1f %% of copy  bad=%lld\n", name, mx ? "max" : "sum", us, b / us * 1e-3,
                  100 * b / us * 1e-3 / roof, bad);
    };
    auto blocks = [&](const void* fn, long long work_blocks, int waves) {
      int per = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fn, 256, 0));
      const long long r = static_cast<long long>(per) * sms * waves;
      return static_cast<unsigned>(waves == 0 ? work_blocks : std::min(work_blocks, r));
    };
    for (int mx = 0; mx < 2; ++mx) {
#define ROW_T(MX)                                                                                                     \
  {                                                                                                                   \
    const unsigned g = blocks((const void*)k_thread<MX>, (n + 255) / 256, 4);                                         \
    row("thread/list, 4 waves", MX, [&] { k_thread<MX><<<g, 256>>>(off, x, out, valid, n); });                        \
  }
#define ROW_W(MX, K, ST, CAP, W)                                                                                      \
  {                                                                                                                   \
    const unsigned g = blocks((const void*)k_warp<MX, K, ST, CAP>, (n + 256 * K - 1) / (256 * K), W);                \
    char nm[96];                                                                                                      \
    std::snprintf(nm, sizeof nm, "warp K=%d %s cap %d waves %d (g %u)", K, ST ? "staged" : "direct", CAP, W, g);     \
    row(nm, MX, [&] { k_warp<MX, K, ST, CAP><<<g, 256>>>(off, x, out, valid, n); });                                   \
  }
      if (mx) {
        ROW_T(true) ROW_W(true, 1, false, 1, 0) ROW_W(true, 2, false, 1, 0) ROW_W(true, 4, false, 1, 0)
        ROW_W(true, 8, false, 1, 0) ROW_W(true, 4, false, 1, 1) ROW_W(true, 4, false, 1, 4)
        ROW_W(true, 4, true, 1024, 0) ROW_W(true, 8, true, 1024, 0) ROW_W(true, 4, true, 512, 0) ROW_W(true, 4, true, 1024, 2)
      } else {
        ROW_T(false) ROW_W(false, 1, false, 1, 0) ROW_W(false, 2, false, 1, 0) ROW_W(false, 4, false, 1, 0)
        ROW_W(false, 8, false, 1, 0) ROW_W(false, 4, false, 1, 1) ROW_W(false, 4, false, 1, 4)
        ROW_W(false, 4, true, 1024, 0) ROW_W(false, 8, true, 1024, 0) ROW_W(false, 4, true, 512, 0) ROW_W(false, 4, true, 1024, 2)
      }
    }
    CK(cudaFree(off));
    CK(cudaFree(x));
    CK(cudaFree(out));
    CK(cudaFree(valid));
  }
}
