// The kernels around CUB's segmented sort for per-list sorts of jagged arrays (device_sort.hpp):
// keys re-ordered for Awkward's list order, offsets rebased to the sorted range, and the sorted
// positions turned into values or local indices. Grid-stride loops over 64-bit indices; every
// launch is asynchronous on the caller's stream.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/sort/device_sort.hpp"
#include "cuda/sort/grid_loops.cuh"
#include "cuda/sort/sort_keys.cuh"

namespace jf::cuda_sort {

namespace {

using namespace grid;

template <class K>
__global__ void list_keys_kernel(K* keys, i64 n, bool ascending, bool has_nan, K nan_key) {
  for (i64 i = first_index(); i < n; i += index_step()) {
    const K k = keys[i];
    keys[i] = list_order_key(k, has_nan && k == nan_key, ascending);
  }
}

__global__ void rebase_kernel(view offsets, i64* out, i64 lists) {
  const i64* o = static_cast<const i64*>(offsets.data);
  const i64 base = o[0];
  for (i64 i = first_index(); i <= lists; i += index_step()) out[i] = o[offset_of(offsets, i)] - base;
}

template <class U>
__global__ void take_kernel(view in, const i64* perm, U* out, i64 n) {
  const U* x = static_cast<const U*>(in.data);
  for (i64 i = first_index(); i < n; i += index_step()) out[i] = x[offset_of(in, perm[i])];
}

__global__ void local_kernel(const i64* perm, const i64* offsets, i64 lists, i64* local, i64 n) {
  for (i64 i = first_index(); i < n; i += index_step()) {
    i64 lo = 0, hi = lists;  // the last list s with offsets[s] <= i (empty lists are skipped)
    while (hi - lo > 1) {
      const i64 mid = lo + (hi - lo) / 2;
      if (offsets[mid] <= i)
        lo = mid;
      else
        hi = mid;
    }
    local[i] = perm[i] - offsets[lo];
  }
}

}  // namespace

int list_keys(bool wide, void* keys, i64 n, bool ascending, bool has_nan, i64 nan_key, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (wide)
    list_keys_kernel<std::int64_t><<<grid_for(n), block, 0, s>>>(static_cast<std::int64_t*>(keys), n, ascending,
                                                                 has_nan, nan_key);
  else
    list_keys_kernel<std::int32_t><<<grid_for(n), block, 0, s>>>(static_cast<std::int32_t*>(keys), n, ascending,
                                                                 has_nan, static_cast<std::int32_t>(nan_key));
  return launched();
}

int rebase_offsets(const view& offsets, i64* out, i64 lists, void* stream) {
  rebase_kernel<<<grid_for(lists + 1), block, 0, static_cast<cudaStream_t>(stream)>>>(offsets, out, lists);
  return launched();
}

int take_positions(int bytes, const view& in, const i64* perm, void* out, i64 n, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (bytes == 1)
    take_kernel<std::uint8_t><<<grid_for(n), block, 0, s>>>(in, perm, static_cast<std::uint8_t*>(out), n);
  else if (bytes == 2)
    take_kernel<std::uint16_t><<<grid_for(n), block, 0, s>>>(in, perm, static_cast<std::uint16_t*>(out), n);
  else if (bytes == 4)
    take_kernel<std::uint32_t><<<grid_for(n), block, 0, s>>>(in, perm, static_cast<std::uint32_t*>(out), n);
  else
    take_kernel<std::uint64_t><<<grid_for(n), block, 0, s>>>(in, perm, static_cast<std::uint64_t*>(out), n);
  return launched();
}

int local_positions(const i64* perm, const i64* offsets, i64 lists, i64* local, i64 n, void* stream) {
  local_kernel<<<grid_for(n), block, 0, static_cast<cudaStream_t>(stream)>>>(perm, offsets, lists, local, n);
  return launched();
}

}  // namespace jf::cuda_sort
