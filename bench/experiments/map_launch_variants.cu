// Experiment: why were torch.compile and a one-thread-per-element Numba kernel 4-5 % faster than
// jetfuse's map kernel on large element-wise workloads on an H200 (x**2 on 5e8 int32: 961 vs 1008
// us; the quadratic formula at 2^27: 964 vs 1031 us)? jetfuse's map kernel was a grid-stride loop
// over a grid capped at four waves of resident blocks (resident_blocks * 4). Variants, each on x**2
// (int32, 4 per 16-byte vector) and the quadratic formula (float64, 2 per vector):
//   stride4    grid-stride, grid = resident blocks x 4 (jetfuse's map launch until 2026-11-28)
//   stride16   grid-stride, grid = resident blocks x 16
//   full1      a block per 256 vectors of the whole array, one vector per thread, no loop
//   full2      the same with two vectors per thread (one tile of 512 vectors per block)
//   scalar     a block per 256 elements, one element per thread (the Numba kernel's shape)
// Measured (H200, 2026-11-28): x**2 stride4 1006.7 us (93.0 % of a 936 us copy), stride16 989.9,
// full1 933.5 (100.3 %), full2 961.5, scalar 1464.7; quadratic stride4 1019.9 us, stride16 995.4,
// full1 964.4, full2 966.5, scalar 960.7. jetfuse's map launch is now full1's grid.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 map_launch_variants.cu -o /tmp/mlv && /tmp/mlv
#include <cstdio>
#include <cmath>
typedef long long i64;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

__device__ __forceinline__ int4 sq(int4 v) { return make_int4(v.x * v.x, v.y * v.y, v.z * v.z, v.w * v.w); }
__device__ __forceinline__ double quad(double a, double b, double c) { return (-b + sqrt(b * b - 4.0 * a * c)) / (2.0 * a); }
__device__ __forceinline__ double2 quad2(double2 a, double2 b, double2 c) {
  return make_double2(quad(a.x, b.x, c.x), quad(a.y, b.y, c.y));
}

// V: 0 grid-stride, 1 full one vector per thread, 2 full two vectors per thread
template <int V> __global__ void __launch_bounds__(256) square(const int4* __restrict__ x, int4* __restrict__ y, i64 n4) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (V == 0) {
    for (i64 i = t; i < n4; i += (i64)gridDim.x * blockDim.x) y[i] = sq(x[i]);
  } else if (V == 1) {
    if (t < n4) y[t] = sq(x[t]);
  } else {
    const i64 i = (i64)blockIdx.x * 512 + threadIdx.x;
    const bool a = i < n4, b = i + 256 < n4;
    int4 u, v;
    if (a) u = x[i];
    if (b) v = x[i + 256];
    if (a) y[i] = sq(u);
    if (b) y[i + 256] = sq(v);
  }
}
__global__ void square_scalar(const int* __restrict__ x, int* __restrict__ y, i64 n) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}
template <int V>
__global__ void __launch_bounds__(256) quadratic(const double2* __restrict__ a, const double2* __restrict__ b,
                                                 const double2* __restrict__ c, double2* __restrict__ x, i64 n2) {
  const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (V == 0) {
    for (i64 i = t; i < n2; i += (i64)gridDim.x * blockDim.x) x[i] = quad2(a[i], b[i], c[i]);
  } else if (V == 1) {
    if (t < n2) x[t] = quad2(a[t], b[t], c[t]);
  } else {
    const i64 i = (i64)blockIdx.x * 512 + threadIdx.x;
    if (i < n2) x[i] = quad2(a[i], b[i], c[i]);
    if (i + 256 < n2) x[i + 256] = quad2(a[i + 256], b[i + 256], c[i + 256]);
  }
}
__global__ void quadratic_scalar(const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                                 double* __restrict__ x, i64 n) {
  const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = quad(a[i], b[i], c[i]);
}
__global__ void fill(double* p, i64 n, double lo, double span) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)
    p[i] = lo + span * ((i * 2654435761ull) % 1000) / 1000.0;
}
__global__ void fill_int(int* p, i64 n) {
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) p[i] = (int)(i % 46341);
}

int main() {
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const i64 resident = (i64)sms * 8;  // 256-thread blocks, 2048 threads per SM
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  // Mean of 5 batches of `reps` back-to-back calls (as the benchmarks time them).
  auto time = [&](auto f, int reps) {
    f();
    cudaDeviceSynchronize();
    float total = 0;
    for (int b = 0; b < 5; ++b) {
      cudaEventRecord(e0);
      for (int r = 0; r < reps; ++r) f();
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      total += ms;
    }
    return total * 1000 / (5 * reps);
  };
  {  // x**2 on 5e8 int32
    const i64 n = 500000000, n4 = n / 4;
    int *x, *y;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    fill_int<<<sms * 32, 256>>>(x, n);
    const float tcopy = time([&] { cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice); }, 5);
    printf("x**2 5e8 int32: copy %.1f us (%.0f GB/s read + written)\n", tcopy, 8.0 * n / tcopy * 1e-3);
    const int4 *x4 = (const int4*)x;
    int4* y4 = (int4*)y;
    auto row = [&](const char* name, float t) { printf("  %-9s %8.1f us  %5.1f %% of copy\n", name, t, 100 * tcopy / t); };
    row("stride4", time([&] { square<0><<<resident * 4, 256>>>(x4, y4, n4); }, 5));
    row("stride16", time([&] { square<0><<<resident * 16, 256>>>(x4, y4, n4); }, 5));
    row("full1", time([&] { square<1><<<(n4 + 255) / 256, 256>>>(x4, y4, n4); }, 5));
    row("full2", time([&] { square<2><<<(n4 + 511) / 512, 256>>>(x4, y4, n4); }, 5));
    row("scalar", time([&] { square_scalar<<<(n + 255) / 256, 256>>>(x, y, n); }, 5));
    CK(cudaGetLastError());
    cudaFree(x);
    cudaFree(y);
  }
  {  // the quadratic formula at 2^27 float64
    const i64 n = i64(1) << 27, n2 = n / 2;
    double *a, *b, *c, *x;
    for (double** p : {&a, &b, &c, &x}) CK(cudaMalloc(p, n * 8));
    fill<<<sms * 32, 256>>>(a, n, 1, 1);
    fill<<<sms * 32, 256>>>(b, n, 3, 3);
    fill<<<sms * 32, 256>>>(c, n, 1, 1);
    // The copy of 2^27 float64 (bench_elementwise's BM_Copy/2^27): 1 GiB read + 1 GiB written; the row moves 4 GiB.
    const float tc = time([&] { cudaMemcpyAsync(x, a, n * 8, cudaMemcpyDeviceToDevice); }, 5);
    printf("quadratic 2^27 float64: copy of 2^27 float64 %.1f us (%.0f GB/s)\n", tc, 16.0 * n / tc * 1e-3);
    const double2 *a2 = (const double2*)a, *b2 = (const double2*)b, *c2 = (const double2*)c;
    double2* x2 = (double2*)x;
    auto row = [&](const char* name, float t) {
      printf("  %-9s %8.1f us  %5.1f %% of copy\n", name, t, 100 * (32.0 * n / t) / (16.0 * n / tc));
    };
    row("stride4", time([&] { quadratic<0><<<resident * 4, 256>>>(a2, b2, c2, x2, n2); }, 5));
    row("stride16", time([&] { quadratic<0><<<resident * 16, 256>>>(a2, b2, c2, x2, n2); }, 5));
    row("full1", time([&] { quadratic<1><<<(n2 + 255) / 256, 256>>>(a2, b2, c2, x2, n2); }, 5));
    row("full2", time([&] { quadratic<2><<<(n2 + 511) / 512, 256>>>(a2, b2, c2, x2, n2); }, 5));
    row("scalar", time([&] { quadratic_scalar<<<(n + 255) / 256, 256>>>(a, b, c, x, n); }, 5));
    CK(cudaGetLastError());
    for (double* p : {a, b, c, x}) cudaFree(p);
  }
  return 0;
}
