// Per-list sorts of jagged arrays whose lists are all short (device_sort.hpp, sort_short_lists):
// one thread a list, the list's keys and positions in registers, a stable insertion sort by
// adjacent compare-and-swap, then the values (gathered by position, so NaN payloads and -0.0 stay
// as they were) or the local positions written once. (A longer list, where the known bound did
// not hold, is sorted exactly but slowly: long_list.) One kernel, one read of the offsets and the
// content, one write: where the lists' longest is known to be at most short_list_max, this replaces
// the key pass, the offsets pass, CUB's StableSortPairs and the gather of the general path.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/sort/device_sort.hpp"
#include "cuda/sort/grid_loops.cuh"
#include "cuda/sort/sort_keys.cuh"

namespace jf::cuda_sort {

namespace {

using namespace grid;

// The key of v in Awkward's list order, as the general path's list_keys gives it.
template <class T>
__device__ __forceinline__ key_t<T> list_key(T v, bool ascending) {
  const key_t<T> k = key_of<T>::encode(v, true);
  return list_order_key(k, key_of<T>::has_nan && k == key_of<T>::nan_key, ascending);
}

// A list longer than the bound the host knew (offsets written after the jagged array was made,
// which jetfuse does not support, must not give a wrong answer): a stable insertion sort by one
// thread straight in the output, of the values (which keep their bits) or of the positions.
template <class T>
__device__ void long_list(const T* x, const view& content, i64 b, i64 n, bool ascending, T* values, i64* local) {
  for (i64 j = 0; j < n; ++j) {
    if (values) {
      const T v = x[offset_of(content, b + j)];
      const key_t<T> k = list_key<T>(v, ascending);
      i64 i = j - 1;
      for (; i >= 0 && list_key<T>(values[b + i], ascending) > k; --i) values[b + i + 1] = values[b + i];
      values[b + i + 1] = v;
    } else {
      const key_t<T> k = list_key<T>(x[offset_of(content, b + j)], ascending);
      i64 i = j - 1;
      for (; i >= 0 && list_key<T>(x[offset_of(content, b + local[b + i])], ascending) > k; --i)
        local[b + i + 1] = local[b + i];
      local[b + i + 1] = j;
    }
  }
}

// Every index into key[] and pos[] is a constant after unrolling, so both stay in registers.
// Lists are adjacent along a warp, so its reads and writes share cache lines.
template <class T>
__global__ void short_lists_kernel(view offsets, i64 first, i64 total, view content, i64 lists, bool ascending,
                                   T* values, i64* local) {
  constexpr int L = static_cast<int>(short_list_max);
  const i64* o = static_cast<const i64*>(offsets.data);
  const T* x = static_cast<const T*>(content.data);
  for (i64 l = first_index(); l < lists; l += index_step()) {
    const i64 b = o[offset_of(offsets, l)] - first, len = o[offset_of(offsets, l + 1)] - first - b;
    if (b < 0 || len < 0 || b + len > total) [[unlikely]]
      continue;                  // (likewise: never outside the result)
    if (len > L) [[unlikely]] {  // a bound that did not hold (offsets written after): still exact
      long_list(x, content, b, len, ascending, values, local);
      continue;
    }
    const int n = static_cast<int>(len);
    key_t<T> key[L];
    int pos[L];
#pragma unroll
    for (int j = 0; j < L; ++j) {
      pos[j] = j;
      key[j] = j < n ? list_key<T>(x[offset_of(content, b + j)], ascending) : key_t<T>(0);
    }
    // Element j moves down past strictly greater keys only: stable. Past its place the prefix is
    // sorted, so the remaining compares swap nothing.
#pragma unroll
    for (int j = 1; j < L; ++j) {
      if (j >= n) break;
#pragma unroll
      for (int i = j - 1; i >= 0; --i)
        if (key[i] > key[i + 1]) {
          const key_t<T> k = key[i];
          key[i] = key[i + 1];
          key[i + 1] = k;
          const int p = pos[i];
          pos[i] = pos[i + 1];
          pos[i + 1] = p;
        }
    }
#pragma unroll
    for (int j = 0; j < L; ++j)
      if (j < n) {
        if (values)
          values[b + j] = x[offset_of(content, b + pos[j])];
        else
          local[b + j] = pos[j];
      }
  }
}

}  // namespace

int sort_short_lists(dtype t, const view& offsets, i64 first, const view& content, i64 lists, bool ascending,
                     void* values, i64* local, void* stream) {
  if (lists == 0) return 0;
  return visit_dtype(t, [&]<class T>(std::type_identity<T>) {
    // A thread a list (grid-stride rounds only beyond 2^30 blocks).
    short_lists_kernel<T><<<grid_for(lists, i64(1) << 30), block, 0, static_cast<cudaStream_t>(stream)>>>(
        offsets, first, content.shape[0], content, lists, ascending, static_cast<T*>(values), local);
    return launched();
  });
}

}  // namespace jf::cuda_sort
