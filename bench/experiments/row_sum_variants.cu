// Experiment: RowSums 32768x4096 float32 trailed CuPy by 2.5 % (0.1287 vs 0.1256 ms, H200
// 2026-11-29). jetfuse's kernel then: a 256-thread block a row, blocks looping over rows in 4 waves
// of resident blocks, 8 scalar loads in flight a thread, a block-wide reduction (two barriers) per
// row. Variants (sum of each row, float32, row-major):
//   block256_w4   a 256-thread block a row, grid = resident blocks x 4, rows looped (jetfuse's shape)
//   block256_all  a 256-thread block a row, grid = rows (no loop)
//   block128_all  a 128-thread block a row, grid = rows
//   warp_row      a warp a row (8 a block), grid = rows / 8, no barrier
//   warp_row_w4   a warp a row, grid = resident x 4, rows looped
// All with float4 loads, and jetfuse's loads (8 scalar float loads a trip) in
//   scalar256_w4  / scalar256_all   a 256-thread block a row, 4 waves looped / grid = rows
// Copy roof: cudaMemcpy device to device of the matrix.
// Build: nvcc -O3 -arch=sm_90 -std=c++20 row_sum_variants.cu -o /tmp/rsv && /tmp/rsv
#include <algorithm>
#include <cstdio>
#include <vector>
typedef long long i64;
#define CK(x)                                                  \
  do {                                                         \
    cudaError_t e = (x);                                       \
    if (e != cudaSuccess) {                                    \
      printf("%s line %d\n", cudaGetErrorString(e), __LINE__); \
      return 1;                                                \
    }                                                          \
  } while (0)

__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}
template <int T>
__device__ __forceinline__ float block_sum(float v, float* sh) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = 0;
  if (threadIdx.x < 32) {
    r = threadIdx.x < T / 32 ? sh[threadIdx.x] : 0.f;
    r = warp_sum(r);
  }
  __syncthreads();
  return r;
}
template <int T>
__global__ void __launch_bounds__(T)
    block_rows(const float4* __restrict__ x, float* __restrict__ y, i64 rows, int cols4) {
  __shared__ float sh[T / 32];
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    const float4* row = x + r * cols4;
    float s = 0;
#pragma unroll 4
    for (int c = threadIdx.x; c < cols4; c += T) {
      const float4 v = row[c];
      s += (v.x + v.y) + (v.z + v.w);
    }
    s = block_sum<T>(s, sh);
    if (threadIdx.x == 0) y[r] = s;
  }
}
template <int T>
__global__ void __launch_bounds__(T)
    scalar_rows(const float* __restrict__ x, float* __restrict__ y, i64 rows, int cols) {
  __shared__ float sh[T / 32];
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* row = x + r * cols;
    float s = 0;
    int c = threadIdx.x;
    for (; c < cols - 7 * T; c += 8 * T) {  // jetfuse's laned loop: 8 loads first, then the adds
      float v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) v[u] = row[c + u * T];
#pragma unroll
      for (int u = 0; u < 8; ++u) s += v[u];
    }
    for (; c < cols; c += T) s += row[c];
    s = block_sum<T>(s, sh);
    if (threadIdx.x == 0) y[r] = s;
  }
}
__global__ void __launch_bounds__(256)
    warp_rows(const float4* __restrict__ x, float* __restrict__ y, i64 rows, int cols4) {
  const int lane = threadIdx.x & 31;
  for (i64 r = (i64)blockIdx.x * 8 + (threadIdx.x >> 5); r < rows; r += (i64)gridDim.x * 8) {
    const float4* row = x + r * cols4;
    float s = 0;
#pragma unroll 8
    for (int c = lane; c < cols4; c += 32) {
      const float4 v = row[c];
      s += (v.x + v.y) + (v.z + v.w);
    }
    s = warp_sum(s);
    if (lane == 0) y[r] = s;
  }
}

template <class F>
float median_us(F f, int reps = 30) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  cudaDeviceSynchronize();
  std::vector<float> t;
  for (int k = 0; k < reps; ++k) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  int sms = 0, per_sm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (auto [rows, cols] : {std::pair<i64, int>{32768, 4096}, {4096, 32768}}) {
    const i64 n = rows * cols;
    float *x, *y, *z;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&z, n * 4));
    CK(cudaMalloc(&y, rows * 4));
    std::vector<float> h(n);
    for (i64 i = 0; i < n; ++i) h[i] = (float)((i * 2654435761LL) % 1000) / 1000.f;
    CK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
    const float copy = median_us([&] { cudaMemcpyAsync(z, x, n * 4, cudaMemcpyDeviceToDevice); });
    const double roof = 2.0 * n * 4 / copy;  // bytes per us (read + write)
    printf("%lld x %d: copy %.1f us\n", rows, cols, copy);
    auto report = [&](const char* name, float us) {
      printf("  %-14s %8.1f us  %5.1f %% of copy\n", name, us, 100.0 * (n * 4.0 / us) / roof);
    };
    const float4* x4 = (const float4*)x;
    const int c4 = cols / 4;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, block_rows<256>, 256, 0);
    const i64 res256 = (i64)sms * per_sm;
    report("block256_w4",
           median_us([&] { block_rows<256><<<(unsigned)std::min<i64>(rows, res256 * 4), 256>>>(x4, y, rows, c4); }));
    report("block256_all", median_us([&] { block_rows<256><<<(unsigned)rows, 256>>>(x4, y, rows, c4); }));
    report("scalar256_w4",
           median_us([&] { scalar_rows<256><<<(unsigned)std::min<i64>(rows, res256 * 4), 256>>>(x, y, rows, cols); }));
    report("scalar256_all", median_us([&] { scalar_rows<256><<<(unsigned)rows, 256>>>(x, y, rows, cols); }));
    report("block128_all", median_us([&] { block_rows<128><<<(unsigned)rows, 128>>>(x4, y, rows, c4); }));
    report("block512_all", median_us([&] { block_rows<512><<<(unsigned)rows, 512>>>(x4, y, rows, c4); }));
    report("warp_row", median_us([&] { warp_rows<<<(unsigned)((rows + 7) / 8), 256>>>(x4, y, rows, c4); }));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, warp_rows, 256, 0);
    report("warp_row_w4", median_us([&] {
             warp_rows<<<(unsigned)std::min<i64>((rows + 7) / 8, (i64)sms * per_sm * 4), 256>>>(x4, y, rows, c4);
           }));
    CK(cudaGetLastError());
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);
  }
  return 0;
}
