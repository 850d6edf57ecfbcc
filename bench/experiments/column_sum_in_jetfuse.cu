// Experiment (written in the twelfth session): ColumnSums trailed PyTorch by 1-4 %
// (H200, 2026-11-30: jf::sum(x, 0) of 32768x4096 / 4096x32768 float32 136-139 / 131-135 us by the
// bench's host clock, torch 134.3 / 128.7 us by CUDA events). PyTorch's kernel (Nsight Compute):
// reduce_kernel<128, 4> with blocks of 32 x 4 threads, each thread 4 adjacent columns (16-byte
// loads), the rows split over threadIdx.y and blockIdx.y (grid 32 x 66 / 256 x 9: 264 / 36 splits),
// 54 registers, 50 % occupancy. jetfuse's: a thread per column (4-byte loads), 256-column tiles,
// 128 / 16 splits of 256 rows over blockIdx.y, the last block of each tile combining the splits.
// Here jf::sum(x, 0) runs on the same matrix and stream as hand-written kernels of both families,
// all timed by CUDA events in batches of 20, each result checked against the host:
//   cols<W, BX, BY> rows/split R   W adjacent columns a thread (W = 4: float4 loads), blocks of
//                                  BX x BY threads (BY threads split a block's rows), R rows a
//                                  split, partials in global memory, the last block of each column
//                                  tile combines the splits in order (jetfuse's scheme)
// First run (H200, thirteenth session, 32768 x 4096; us, % of the copy): jf::sum(x, 0) 133.3
// (128 splits); this shape cols<1,256,1> with 128 / 256 / 512 rows a split 143.2 / 131.6 / 126.4
// (101.4 %); torch's shape cols<4,32,4> 162.6 / 140.7 / 130.9; cols<1,64,4> 150.8 / 133.8 / 128.5.
// The shape was not the cause, the split count was: two waves of blocks (128 splits) against one
// (64; PyTorch's grid is 32 x 66). configure_column_reduction now aims at one wave. (The check of
// jf::sum(x, 0) read its result before the timing ran, the arguments' order being unspecified:
// fixed.)
// Build (from the repository root, after `cmake --build build/cuda`):
//   g++ -std=c++20 -O2 -Iinclude -Isrc -c bench/experiments/row_sum_in_jetfuse_host.cpp -o /tmp/rsj_host.o
//   nvcc -O3 -arch=sm_90 -std=c++20 bench/experiments/column_sum_in_jetfuse.cu /tmp/rsj_host.o \
//     build/cuda/libjetfuse.a -lnvrtc -lcuda -ldl -o /tmp/csj && /tmp/csj
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "experiment_timing.cuh"

typedef long long i64;

float* jf_make_matrix(long long rows, long long cols, unsigned seed);
void jf_column_sum();
void jf_reset_result();
const float* jf_row_sum_result();  // the last result (here: the column sums)
void* jf_stream();
void jf_sync();

template <int W>
struct vec;
template <>
struct vec<1> {
  using t = float;
};
template <>
struct vec<2> {
  using t = float2;
};
template <>
struct vec<4> {
  using t = float4;
};

// Each thread: W adjacent columns, rows y0, y0 + BY, ... of its split; 8 loads in flight a trip.
template <int W, int BX, int BY>
__global__ void __launch_bounds__(BX* BY) cols(const float* __restrict__ x, float* __restrict__ out, float* part,
                                               unsigned* counters, i64 rows, i64 n_cols, i64 chunk) {
  using V = typename vec<W>::t;
  const i64 g = (i64)blockIdx.x * BX + threadIdx.x;  // a group of W columns
  const bool active = g * W < n_cols;
  const i64 lo = (i64)blockIdx.y * chunk, hi = min(lo + chunk, rows);
  float acc[W] = {};
  if (active) {
    const V* p = reinterpret_cast<const V*>(x) + g;
    const i64 stride = n_cols / W;
    i64 rr = lo + threadIdx.y;
#pragma unroll 1
    for (; rr + 7 * BY < hi; rr += 8 * BY) {
      V v[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) v[u] = p[(rr + u * BY) * stride];
#pragma unroll
      for (int u = 0; u < 8; ++u)
#pragma unroll
        for (int k = 0; k < W; ++k) acc[k] += reinterpret_cast<const float*>(&v[u])[k];
    }
    for (; rr < hi; rr += BY) {
      const V v = p[rr * stride];
#pragma unroll
      for (int k = 0; k < W; ++k) acc[k] += reinterpret_cast<const float*>(&v)[k];
    }
  }
  if (BY > 1) {  // the block's row groups, in order, into threadIdx.y == 0
    __shared__ float sh[BY][BX * W];
#pragma unroll
    for (int k = 0; k < W; ++k) sh[threadIdx.y][threadIdx.x * W + k] = acc[k];
    __syncthreads();
    if (threadIdx.y != 0) return;
#pragma unroll
    for (int k = 0; k < W; ++k) {
      acc[k] = sh[0][threadIdx.x * W + k];
      for (int y = 1; y < BY; ++y) acc[k] += sh[y][threadIdx.x * W + k];
    }
  }
  if (gridDim.y > 1) {
    if (active)
#pragma unroll
      for (int k = 0; k < W; ++k) part[blockIdx.y * n_cols + g * W + k] = acc[k];
    __threadfence();
    __shared__ bool last;
    // Only threadIdx.y == 0 is left: a barrier among BX threads (one or more whole warps).
    if (BY > 1)
      asm volatile("bar.sync 1, %0;" ::"r"(BX));
    else
      __syncthreads();
    if (threadIdx.x == 0) {
      last = atomicAdd(counters + blockIdx.x, 1u) == gridDim.y - 1;
      if (last) counters[blockIdx.x] = 0;
    }
    if (BY > 1)
      asm volatile("bar.sync 1, %0;" ::"r"(BX));
    else
      __syncthreads();
    if (!last) return;
    __threadfence();
    if (active)
#pragma unroll
      for (int k = 0; k < W; ++k) {
        float s = 0;
#pragma unroll 8
        for (i64 y = 0; y < gridDim.y; ++y) s += *(volatile float*)&part[y * n_cols + g * W + k];
        acc[k] = s;
      }
  }
  if (active)
#pragma unroll
    for (int k = 0; k < W; ++k) out[g * W + k] = acc[k];
}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  for (auto [rows, n_cols] : {std::pair<i64, i64>{32768, 4096}, {4096, 32768}}) {
    const i64 n = rows * n_cols;
    float* x = jf_make_matrix(rows, n_cols, 5);
    const auto s = static_cast<cudaStream_t>(jf_stream());
    std::vector<float> h(n);
    CK(cudaMemcpy(h.data(), x, n * 4, cudaMemcpyDeviceToHost));
    std::vector<double> want(n_cols, 0.0);
    for (i64 r = 0; r < rows; ++r)
      for (i64 c = 0; c < n_cols; ++c) want[c] += h[r * n_cols + c];
    float *y, *z, *part;
    unsigned* counters;
    CK(cudaMalloc(&y, n_cols * 4));
    CK(cudaMalloc(&z, n * 4));
    CK(cudaMalloc(&part, (i64)1024 * n_cols * 4));
    CK(cudaMalloc(&counters, 65536 * 4));
    CK(cudaMemset(counters, 0, 65536 * 4));
    auto time = [&](auto f) { return batch_us_on(s, f); };  // events on jetfuse's stream
    const float copy = time([&] { cudaMemcpyAsync(z, x, n * 4, cudaMemcpyDeviceToDevice, s); });
    const double roof = 2.0 * n * 4 / copy;
    std::vector<float> got(n_cols);
    auto report = [&](const char* name, float us, const float* result) {
      cudaMemcpy(got.data(), result, n_cols * 4, cudaMemcpyDeviceToHost);
      double worst = 0;
      for (i64 c = 0; c < n_cols; ++c) {
        const double e = std::abs(got[c] - want[c]) / std::max(1.0, std::abs(want[c]));
        worst = e == e ? std::max(worst, e) : 1.0;
      }
      printf("  %-30s %8.1f us  %5.1f %% of copy  worst rel. error %.1e\n", name, us, 100.0 * (n * 4.0 / us) / roof,
             worst);
    };
    printf("%lld x %lld: copy %.1f us\n", rows, n_cols, copy);
    jf_reset_result();
    const float jf_us = time(jf_column_sum);  // before the result is read: arguments' order is unspecified
    report("jf::sum(x, 0)", jf_us, jf_row_sum_result());
    auto variant = [&](const char* name, auto kernel, int w, int bx, int by, i64 rows_per_split) {
      const i64 splits = std::max<i64>(1, std::min<i64>(1024, rows / rows_per_split));
      const i64 chunk = (rows + splits - 1) / splits;
      const dim3 grid((unsigned)((n_cols / w + bx - 1) / bx), (unsigned)splits), block(bx, by);
      cudaMemsetAsync(y, 0xff, n_cols * 4, s);
      const float us = time([&] { kernel<<<grid, block, 0, s>>>(x, y, part, counters, rows, n_cols, chunk); });
      char label[64];
      snprintf(label, sizeof label, "%s rows/split %lld", name, (long long)rows_per_split);
      report(label, us, y);
    };
    for (i64 rps : {256, 512, 1024}) {
      variant("cols<1,256,1> (jetfuse)", cols<1, 256, 1>, 1, 256, 1, rps);
      variant("cols<2,128,1>", cols<2, 128, 1>, 2, 128, 1, rps);
      variant("cols<4,64,1>", cols<4, 64, 1>, 4, 64, 1, rps);
      variant("cols<4,32,4> (torch)", cols<4, 32, 4>, 4, 32, 4, rps);
      variant("cols<1,64,4>", cols<1, 64, 4>, 1, 64, 4, rps);
    }
    CK(cudaGetLastError());
    cudaFree(y);
    cudaFree(z);
    cudaFree(part);
    cudaFree(counters);
  }
  return 0;
}
