// The number of nonzero bytes of a contiguous bool array (count_true.hpp): the count x(mask) and
// its relatives read back before they allocate their result. This kernel reads 16 bytes a load,
// four loads in flight a thread, and counts a word's nonzero bytes with __vcmpne4 and __popc. The
// fused full reduction now also reads one-byte inputs 16 a load (two loads in flight, a byte at a
// time after): with the read-back, 21.5 against this kernel's 23.2 us at 2^24 bools, 62.9 against
// 50.0 at 2^27 on an H200 (bench/experiments/count_mask_paths.cpp), so this one stays.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/mask/count_true.hpp"

namespace jf::cuda_mask {

namespace {

constexpr int threads = 256;

__device__ __forceinline__ unsigned nonzero_bytes(uint4 v) {
  // __vcmpne4 sets a byte to 0xff where it differs from 0: 8 bits a nonzero byte.
  return (__popc(__vcmpne4(v.x, 0u)) + __popc(__vcmpne4(v.y, 0u)) + __popc(__vcmpne4(v.z, 0u)) +
          __popc(__vcmpne4(v.w, 0u))) >>
         3;
}

__global__ void __launch_bounds__(threads) count_kernel(const unsigned char* p, i64 n, unsigned long long* total) {
  // Bytes before the first 16-byte boundary and after the last whole word: threads 0..15 of block 0.
  const i64 to_boundary = static_cast<i64>((16u - (reinterpret_cast<std::uintptr_t>(p) & 15u)) & 15u);
  const i64 head = to_boundary < n ? to_boundary : n;
  const i64 words = (n - head) / 16, tail = head + words * 16;
  const uint4* w = reinterpret_cast<const uint4*>(p + head);
  const i64 first = static_cast<i64>(blockIdx.x) * threads + threadIdx.x, step = static_cast<i64>(gridDim.x) * threads;
  unsigned long long c = 0;
  i64 i = first;
  for (; i + 3 * step < words; i += 4 * step) {
    const uint4 a = w[i], b = w[i + step], d = w[i + 2 * step], e = w[i + 3 * step];
    c += nonzero_bytes(a) + nonzero_bytes(b) + nonzero_bytes(d) + nonzero_bytes(e);
  }
  for (; i < words; i += step) c += nonzero_bytes(w[i]);
  if (first < head) c += p[first] != 0;
  if (first < n - tail) c += p[tail + first] != 0;

  // The block's sum, then one atomic a block.
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xffffffffu, c, d);
  __shared__ unsigned long long warps[threads / 32];
  if ((threadIdx.x & 31u) == 0) warps[threadIdx.x >> 5] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long b = 0;
    for (int k = 0; k < threads / 32; ++k) b += warps[k];
    atomicAdd(total, b);
  }
}

}  // namespace

int count_true(const void* data, i64 n, unsigned long long* total, int sm_count, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t e = cudaMemsetAsync(total, 0, sizeof *total, s);
  if (e != cudaSuccess) return static_cast<int>(e);
  if (n == 0) return 0;
  // Eight blocks an SM at most (2048 threads), four words a thread an iteration at least.
  const i64 words = n / 16 + 1, by_work = (words + 4 * threads - 1) / (4 * threads);
  const i64 most = 8 * static_cast<i64>(sm_count > 0 ? sm_count : 132);
  count_kernel<<<static_cast<unsigned>(by_work < most ? by_work : most), threads, 0, s>>>(
      static_cast<const unsigned char*>(data), n, total);
  return static_cast<int>(cudaGetLastError());
}

const char* error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace jf::cuda_mask
