// jf::cuda's integer and bool matrix products (exact_gemm.hpp). Not tuned: a 16 x 16 tile of c per
// block, the matching 16-wide panels of a and b staged through shared memory (any strides), one
// element of c per thread; sums in unsigned arithmetic, which wraps around as numpy's.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/matmul/exact_gemm.hpp"

namespace jf::cuda_matmul {

namespace {

using i64 = std::int64_t;
using detail::matmul_impl::operand;
using detail::matmul_impl::problem;

constexpr int tile = 16;

// Unsigned arithmetic of at least int's width (8- and 16-bit products promote to int in C++).
template <class T>
struct acc {
  using type = std::conditional_t<(sizeof(T) < 4), unsigned, std::make_unsigned_t<T>>;
};
template <>
struct acc<bool> {
  using type = bool;
};
template <class T>
using acc_t = typename acc<T>::type;

template <class T>
__global__ void gemm_kernel(const T* a, operand pa, const T* b, operand pb, T* c, i64 batch, i64 m, i64 n, i64 k) {
  __shared__ T as[tile][tile];
  __shared__ T bs[tile][tile];
  using A = acc_t<T>;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const i64 i = i64(blockIdx.y) * tile + ty, j = i64(blockIdx.x) * tile + tx;
  for (i64 z = blockIdx.z; z < batch; z += gridDim.z) {
    const T* az = a + z * pa.batch_stride;
    const T* bz = b + z * pb.batch_stride;
    A sum{};
    for (i64 q0 = 0; q0 < k; q0 += tile) {
      const i64 qa = q0 + tx, qb = q0 + ty;
      as[ty][tx] = (i < m && qa < k) ? az[i * pa.row_stride + qa * pa.col_stride] : T{};
      bs[ty][tx] = (qb < k && j < n) ? bz[qb * pb.row_stride + j * pb.col_stride] : T{};
      __syncthreads();
      for (int q = 0; q < tile; ++q) {
        if constexpr (std::is_same_v<T, bool>)
          sum = sum || (as[ty][q] && bs[q][tx]);
        else
          sum += A(as[ty][q]) * A(bs[q][tx]);
      }
      __syncthreads();
    }
    if (i < m && j < n) c[(z * m + i) * n + j] = T(sum);
  }
}

template <class T>
int launch(const problem& p, void* stream) {
  const dim3 block(tile, tile);
  const i64 gz = p.batch < 65535 ? p.batch : 65535;
  const dim3 grid(unsigned((p.n + tile - 1) / tile), unsigned((p.m + tile - 1) / tile), unsigned(gz));
  gemm_kernel<T><<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const T*>(p.a.data), p.a,
                                                                        static_cast<const T*>(p.b.data), p.b,
                                                                        static_cast<T*>(p.c), p.batch, p.m, p.n, p.k);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int exact_gemm(const problem& p, void* stream) {
  // Grid x and y are at most 2^31 - 1 and 65535 blocks.
  if ((p.m + tile - 1) / tile > 65535) return static_cast<int>(cudaErrorInvalidConfiguration);
  switch (p.t) {
    case dtype::bool_:
      return launch<bool>(p, stream);
    case dtype::int32:
      return launch<std::int32_t>(p, stream);
    case dtype::int64:
      return launch<std::int64_t>(p, stream);
    case dtype::int8:
      return launch<std::int8_t>(p, stream);
    case dtype::int16:
      return launch<std::int16_t>(p, stream);
    case dtype::uint8:
      return launch<std::uint8_t>(p, stream);
    case dtype::uint16:
      return launch<std::uint16_t>(p, stream);
    case dtype::uint32:
      return launch<std::uint32_t>(p, stream);
    case dtype::uint64:
      return launch<std::uint64_t>(p, stream);
    default:
      return static_cast<int>(cudaErrorInvalidValue);
  }
}

const char* exact_gemm_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace jf::cuda_matmul
