// cub::DeviceSegmentedSort::StableSortPairs of int32/int64 keys with int32 values
// (device_sort.hpp): per-list sorts of jagged arrays, whose positions (below 2^31) ride along as
// 4-byte values — a third less traffic than int64 positions in every pass of the sort.
#include <cub/device/device_segmented_sort.cuh>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort {

namespace {

template <class K>
int stable_sort_pairs32(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                        const std::int32_t* values_in, std::int32_t* values_out, i64 n, i64 segments,
                        const i64* offsets, void* stream) {
  return static_cast<int>(cub::DeviceSegmentedSort::StableSortPairs(
      temp, temp_bytes, static_cast<const K*>(keys_in), static_cast<K*>(keys_out), values_in, values_out, n, segments,
      offsets, offsets + 1, static_cast<cudaStream_t>(stream)));
}

}  // namespace

int segmented_stable_sort_pairs32(bool wide, void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                                  const std::int32_t* values_in, std::int32_t* values_out, i64 n, i64 segments,
                                  const i64* offsets, void* stream) {
  return wide ? stable_sort_pairs32<std::int64_t>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                                  segments, offsets, stream)
              : stable_sort_pairs32<std::int32_t>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n,
                                                  segments, offsets, stream);
}

}  // namespace jf::cuda_sort
