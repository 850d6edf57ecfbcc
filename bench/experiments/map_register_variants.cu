// Experiment: why is jetfuse's fused quadratic formula 1.8-3.4 % behind the bench's hand-written
// kernel (H200 tables of 2026-11-30: 0.1264-0.1279 against 0.1237-0.1238 ms at 2^24 float64)?
// Both are compiled with --fmad=false, launch a 256-thread block per 256 vectors of two doubles, and
// their arithmetic is the same PTX. They differ in the loop around it: jetfuse's map kernel keeps
// its grid-stride loop (the grid covers the array, so it runs once) with an overflow-safe step and
// a tail loop, and uses 42 registers (ptxas -v) where the hand-written one (an `if`, no loop) uses
// 34: 5 resident blocks an SM against 6. Variants, the same formula and launch:
//   jetfuse    jetfuse's generated loop structure (int indices), as `jf::explain_cuda` prints it
//   bounds6    the same with __launch_bounds__(256, 6) (at most 40 registers)
//   bounds8    the same with __launch_bounds__(256, 8) (at most 32 registers)
//   once       one vector per thread (`if`), the tail by the threads after the last vector
//   hand       the bench's hand-written kernel (long long index, `if`, the odd element by thread 0)
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -fmad=false map_register_variants.cu -o /tmp/mrv && /tmp/mrv
#include <cstdio>

#include "experiment_timing.cuh"

struct alignas(16) d2 {
  double v[2];
};

__device__ __forceinline__ double quad(double a, double b, double c) {
  return (-b + sqrt(b * b - 4.0 * a * c)) / (2.0 * a);
}

#define JF_LOOP_BODY                                                                         \
  const I nv = n / 2;                                                                        \
  for (I j = start; j < nv; j = (nv - j > step) ? j + step : nv) {                           \
    const d2 av = reinterpret_cast<const d2*>(a)[j], bv = reinterpret_cast<const d2*>(b)[j], \
             cv = reinterpret_cast<const d2*>(c)[j];                                         \
    d2 r;                                                                                    \
    _Pragma("unroll") for (int l = 0; l < 2; ++l) r.v[l] = quad(av.v[l], bv.v[l], cv.v[l]);  \
    reinterpret_cast<d2*>(x)[j] = r;                                                         \
  }                                                                                          \
  for (I i = nv * 2 + start; i < n; i = (n - i > step) ? i + step : n) x[i] = quad(a[i], b[i], c[i]);

#define JF_PROLOGUE                                                                                      \
  using I = int;                                                                                         \
  const I n = static_cast<I>(n64);                                                                       \
  const I start = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); \
  const I step = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);                                 \
  if (start >= n) return;

__global__ void jetfuse(const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                        double* __restrict__ x,
                        long long n64){JF_PROLOGUE JF_LOOP_BODY} __global__ void __launch_bounds__(256, 6)
    bounds6(const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
            double* __restrict__ x, long long n64){JF_PROLOGUE JF_LOOP_BODY} __global__ void __launch_bounds__(256, 8)
        bounds8(const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                double* __restrict__ x, long long n64){JF_PROLOGUE JF_LOOP_BODY} __global__
    void once(const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
              double* __restrict__ x, long long n64) {
  using I = int;
  const I n = static_cast<I>(n64), nv = n / 2;
  const I j = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
  if (j < nv) {
    const d2 av = reinterpret_cast<const d2*>(a)[j], bv = reinterpret_cast<const d2*>(b)[j],
             cv = reinterpret_cast<const d2*>(c)[j];
    d2 r;
#pragma unroll
    for (int l = 0; l < 2; ++l) r.v[l] = quad(av.v[l], bv.v[l], cv.v[l]);
    reinterpret_cast<d2*>(x)[j] = r;
  } else if (const I i = nv * 2 + (j - nv); i < n) {
    x[i] = quad(a[i], b[i], c[i]);
  }
}
__global__ void hand(const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                     double* __restrict__ x, long long n) {
  const long long n2 = n / 2;
  if (const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n2) {
    const double2 av = reinterpret_cast<const double2*>(a)[i];
    const double2 bv = reinterpret_cast<const double2*>(b)[i];
    const double2 cv = reinterpret_cast<const double2*>(c)[i];
    double2 r;
    r.x = quad(av.x, bv.x, cv.x);
    r.y = quad(av.y, bv.y, cv.y);
    reinterpret_cast<double2*>(x)[i] = r;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0 && (n & 1)) x[n - 1] = quad(a[n - 1], b[n - 1], c[n - 1]);
}

__global__ void init(double* a, double* b, double* c, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    a[i] = 1.0 + (i % 7) * 0.25;
    b[i] = 10.0 + (i % 13);
    c[i] = 0.5 + (i % 5) * 0.1;
  }
}

int main() {
  typedef void (*kernel_t)(const double*, const double*, const double*, double*, long long);
  const kernel_t ks[] = {jetfuse, bounds6, bounds8, once, hand};
  const char* names[] = {"jetfuse", "bounds6", "bounds8", "once", "hand"};
  for (int k = 0; k < 5; ++k) {
    cudaFuncAttributes at;
    CK(cudaFuncGetAttributes(&at, ks[k]));
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, ks[k], 256, 0));
    printf("%-8s %d registers, %d blocks of 256 an SM\n", names[k], at.numRegs, blocks);
  }
  for (long long n : {1ll << 24, (1ll << 27) + 1}) {
    double *a, *b, *c, *x, *y;
    CK(cudaMalloc(&a, n * 8));
    CK(cudaMalloc(&b, n * 8));
    CK(cudaMalloc(&c, n * 8));
    CK(cudaMalloc(&x, n * 8));
    CK(cudaMalloc(&y, n * 8));
    init<<<1024, 256>>>(a, b, c, n);
    const unsigned grid = static_cast<unsigned>((n / 2 + 1 + 255) / 256);
    hand<<<grid, 256>>>(a, b, c, y, n);
    printf("n = %lld (us per call, median of 7 batches of 20; results equal to hand's bit for bit?)\n", n);
    for (int round = 0; round < 2; ++round)
      for (int k = 0; k < 5; ++k) {
        CK(cudaMemset(x, 0xff, n * 8));
        ks[k]<<<grid, 256>>>(a, b, c, x, n);
        CK(cudaDeviceSynchronize());
        const bool same = [&] {
          std::vector<double> hx(n), hy(n);
          cudaMemcpy(hx.data(), x, n * 8, cudaMemcpyDeviceToHost);
          cudaMemcpy(hy.data(), y, n * 8, cudaMemcpyDeviceToHost);
          return hx == hy;
        }();
        const float us = batch_us_on(0, [&] { ks[k]<<<grid, 256>>>(a, b, c, x, n); });
        printf("  %-8s %9.2f %s\n", names[k], us, same ? "same" : "DIFFERENT");
      }
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(x), cudaFree(y);
  }
  return 0;
}
