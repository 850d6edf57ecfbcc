// cub::DeviceSegmentedSort::StableSortPairs of int32/int64 keys with int64 values
// (device_sort.hpp): argsort along an axis of an n-d array, one segment per row.
#include <cub/device/device_segmented_sort.cuh>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort {

namespace {

template <class K>
int stable_sort_pairs(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out, const i64* values_in,
                      i64* values_out, i64 n, i64 segments, const i64* offsets, void* stream) {
  return static_cast<int>(cub::DeviceSegmentedSort::StableSortPairs(
      temp, temp_bytes, static_cast<const K*>(keys_in), static_cast<K*>(keys_out), values_in, values_out, n, segments,
      offsets, offsets + 1, static_cast<cudaStream_t>(stream)));
}

}  // namespace

int segmented_stable_sort_pairs(bool wide, void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                                const i64* values_in, i64* values_out, i64 n, i64 segments, const i64* offsets,
                                void* stream) {
  return wide ? stable_sort_pairs<std::int64_t>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, segments,
                                                offsets, stream)
              : stable_sort_pairs<std::int32_t>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, segments,
                                                offsets, stream);
}

}  // namespace jf::cuda_sort
