// cub::DeviceRadixSort::SortPairs of int32/int64 keys with int64 values (device_sort.hpp): the
// stable 1-d argsort, and the sorted positions of unique_inverse / unique_all.
#include <cub/device/device_radix_sort.cuh>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort {

namespace {

template <class K>
int sort_pairs(void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out, const i64* values_in,
               i64* values_out, i64 n, int end_bit, void* stream) {
  return static_cast<int>(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, static_cast<const K*>(keys_in),
                                                          static_cast<K*>(keys_out), values_in, values_out, n, 0,
                                                          end_bit, static_cast<cudaStream_t>(stream)));
}

}  // namespace

int radix_sort_pairs(bool wide, void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                     const i64* values_in, i64* values_out, i64 n, int end_bit, void* stream) {
  return wide
             ? sort_pairs<std::int64_t>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, end_bit, stream)
             : sort_pairs<std::int32_t>(temp, temp_bytes, keys_in, keys_out, values_in, values_out, n, end_bit, stream);
}

}  // namespace jf::cuda_sort
