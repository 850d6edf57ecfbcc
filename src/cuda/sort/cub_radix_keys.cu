// cub::DeviceRadixSort::SortKeys of float32, float64, int32 and int64 (device_sort.hpp): the 1-d
// sorts of raw elements, and of the int32/int64 keys of bool and of unique.
#include <cub/device/device_radix_sort.cuh>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort {

namespace {

template <class K>
int sort_keys(void* temp, std::size_t& temp_bytes, const void* in, void* out, i64 n, int end_bit, void* stream) {
  return static_cast<int>(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, static_cast<const K*>(in),
                                                         static_cast<K*>(out), n, 0, end_bit,
                                                         static_cast<cudaStream_t>(stream)));
}

}  // namespace

int radix_sort_keys(dtype t, void* temp, std::size_t& temp_bytes, const void* in, void* out, i64 n, int end_bit,
                    void* stream) {
  switch (t) {
    case dtype::float32:
      return sort_keys<float>(temp, temp_bytes, in, out, n, end_bit, stream);
    case dtype::float64:
      return sort_keys<double>(temp, temp_bytes, in, out, n, end_bit, stream);
    case dtype::int32:
      return sort_keys<std::int32_t>(temp, temp_bytes, in, out, n, end_bit, stream);
    default:
      return sort_keys<std::int64_t>(temp, temp_bytes, in, out, n, end_bit, stream);
  }
}

}  // namespace jf::cuda_sort
