// cub::DeviceSegmentedSort::SortKeys of int32/int64 keys (device_sort.hpp): sort along an axis of
// an n-d array, one segment per row.
#include <cub/device/device_segmented_sort.cuh>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort {

namespace {

template <class K>
int sort_keys(void* temp, std::size_t& temp_bytes, const void* in, void* out, i64 n, i64 segments, const i64* offsets,
              void* stream) {
  return static_cast<int>(cub::DeviceSegmentedSort::SortKeys(temp, temp_bytes, static_cast<const K*>(in),
                                                             static_cast<K*>(out), n, segments, offsets, offsets + 1,
                                                             static_cast<cudaStream_t>(stream)));
}

}  // namespace

int segmented_sort_keys(bool wide, void* temp, std::size_t& temp_bytes, const void* in, void* out, i64 n, i64 segments,
                        const i64* offsets, void* stream) {
  return wide ? sort_keys<std::int64_t>(temp, temp_bytes, in, out, n, segments, offsets, stream)
              : sort_keys<std::int32_t>(temp, temp_bytes, in, out, n, segments, offsets, stream);
}

}  // namespace jf::cuda_sort
