// What the small kernels of src/cuda/sort/ share (passes.cu, list_passes.cu): grid-stride loops
// over 64-bit indices with 256-thread blocks, the launch's error, and flat indices of a view.
#pragma once

#include <cuda_runtime.h>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort::grid {

constexpr int block = 256;

// Enough blocks to fill the GPU; the loops stride over the rest.
inline unsigned grid_for(i64 n, i64 most = 8192) {
  const i64 b = (n + block - 1) / block;
  return static_cast<unsigned>(b < 1 ? 1 : b > most ? most : b);
}

inline int launched() { return static_cast<int>(cudaGetLastError()); }

__device__ __forceinline__ i64 first_index() { return blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ i64 index_step() { return static_cast<i64>(gridDim.x) * blockDim.x; }

// The element offset of flat index i of a view.
__device__ __forceinline__ i64 offset_of(const view& v, i64 i) {
  if (v.ndim == 1) return i * v.strides[0];
  i64 off = 0;
  for (int d = v.ndim - 1; d >= 0; --d) {
    const i64 e = v.shape[d];
    off += (i % e) * v.strides[d];
    i /= e;
  }
  return off;
}

}  // namespace jf::cuda_sort::grid
