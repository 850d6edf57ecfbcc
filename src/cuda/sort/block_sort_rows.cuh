// Rows of at most block_sort_max_row elements sorted by one thread block each (device_sort.hpp;
// instantiated for the values in block_sort_values.cu and for the positions in
// block_argsort_rows.cu, so that nvcc compiles the two in parallel): the row is read once
// (striped, so that a warp's loads are contiguous), encoded into keys in registers, exchanged to
// a blocked arrangement and sorted by cub::BlockRadixSort in registers and shared memory, then
// the sorted row (or, for argsort, the stable positions) is written once. DeviceSegmentedSort
// instead sorts segments of more than a few hundred elements with one pass over global memory per
// radix digit; at 2^17 rows of 1024 floats it took 2.5x PyTorch's time, which sorts such rows in
// one block as here.
#pragma once

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <type_traits>

#include "cuda/sort/device_sort.hpp"
#include "cuda/sort/grid_loops.cuh"
#include "cuda/sort/sort_keys.cuh"

namespace jf::cuda_sort::block_rows {

using grid::offset_of;

// One block a row, rows strided over the grid. Positions hold past-the-row items as the largest
// key: the sort is stable, so they stay behind the row's own largest keys.
template <class T, int Threads, int Items, bool Positions>
__global__ void __launch_bounds__(Threads) sort_rows_kernel(view in, view out, i64 rows, int row) {
  using K = key_t<T>;
  using V = std::conditional_t<Positions, int, cub::NullType>;
  using Exchange = cub::BlockExchange<K, Threads, Items>;
  using Sort = cub::BlockRadixSort<K, Threads, Items, V>;
  __shared__ union {
    typename Exchange::TempStorage exchange;
    typename Sort::TempStorage sort;
  } temp;

  constexpr K largest = static_cast<K>(~std::make_unsigned_t<K>{} >> 1);
  const T* x = static_cast<const T*>(in.data);
  for (i64 r = blockIdx.x; r < rows; r += gridDim.x) {
    const i64 base = r * row;
    K keys[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const int c = j * Threads + static_cast<int>(threadIdx.x);
      // argsort needs numpy's ties (canonical keys); sort the values back (order keys).
      keys[j] = c < row ? key_of<T>::encode(x[offset_of(in, base + c)], Positions) : largest;
    }
    __syncthreads();  // the previous row's sort is done with the shared memory
    Exchange(temp.exchange).StripedToBlocked(keys);
    __syncthreads();
    if constexpr (Positions) {
      int pos[Items];
#pragma unroll
      for (int j = 0; j < Items; ++j) pos[j] = static_cast<int>(threadIdx.x) * Items + j;
      Sort(temp.sort).SortBlockedToStriped(keys, pos);
      i64* y = static_cast<i64*>(out.data);
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        const int c = j * Threads + static_cast<int>(threadIdx.x);
        if (c < row) y[offset_of(out, base + c)] = pos[j];
      }
    } else {
      Sort(temp.sort).SortBlockedToStriped(keys);
      T* y = static_cast<T*>(out.data);
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        const int c = j * Threads + static_cast<int>(threadIdx.x);
        if (c < row) y[offset_of(out, base + c)] = key_of<T>::decode(keys[j]);
      }
    }
  }
}

template <class T, int Threads, int Items, bool Positions>
int launch(const view& in, const view& out, i64 rows, i64 row, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(rows < (i64(1) << 20) ? rows : (i64(1) << 20));
  sort_rows_kernel<T, Threads, Items, Positions><<<blocks, Threads, 0, stream>>>(in, out, rows, static_cast<int>(row));
  return grid::launched();
}

// The smallest block that holds the row: 4 items a thread up to 256, then 8.
template <class T, bool Positions>
int launch_for_row(const view& in, const view& out, i64 rows, i64 row, cudaStream_t stream) {
  if (row <= 256) return launch<T, 64, 4, Positions>(in, out, rows, row, stream);
  if (row <= 512) return launch<T, 64, 8, Positions>(in, out, rows, row, stream);
  if (row <= 1024) return launch<T, 128, 8, Positions>(in, out, rows, row, stream);
  if (row <= 2048) return launch<T, 256, 8, Positions>(in, out, rows, row, stream);
  return launch<T, 512, 8, Positions>(in, out, rows, row, stream);
}

// The entry points' common part: nothing to do, a row too long, else the launch for t.
template <bool Positions>
int sort_rows(dtype t, const view& in, const view& out, i64 rows, i64 row, void* stream) {
  if (rows == 0 || row == 0) return 0;
  if (row > block_sort_max_row) return static_cast<int>(cudaErrorInvalidValue);
  return visit_dtype(t, [&]<class T>(std::type_identity<T>) {
    return launch_for_row<T, Positions>(in, out, rows, row, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace jf::cuda_sort::block_rows
