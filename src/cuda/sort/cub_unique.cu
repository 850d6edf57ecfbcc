// cub::DeviceSelect::Unique and cub::DeviceRunLengthEncode::Encode of sorted int32/int64 keys, and
// cub::DeviceScan::InclusiveSum of int64 flags (device_sort.hpp): the ways unique finds its distinct
// values (only them; with their counts; with positions).
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "cuda/sort/device_sort.hpp"

namespace jf::cuda_sort {

namespace {

template <class K>
int encode(void* temp, std::size_t& temp_bytes, const void* in, void* unique_out, i64* counts_out, i64* runs_out, i64 n,
           void* stream) {
  // Encode counts its items in an int: the caller takes the scan path beyond 2^31 - 1.
  return static_cast<int>(cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, static_cast<const K*>(in),
                                                             static_cast<K*>(unique_out), counts_out, runs_out,
                                                             static_cast<int>(n), static_cast<cudaStream_t>(stream)));
}

template <class K>
int select(void* temp, std::size_t& temp_bytes, const void* in, void* unique_out, i64* selected, i64 n, void* stream) {
  return static_cast<int>(cub::DeviceSelect::Unique(temp, temp_bytes, static_cast<const K*>(in),
                                                    static_cast<K*>(unique_out), selected, static_cast<int>(n),
                                                    static_cast<cudaStream_t>(stream)));
}

}  // namespace

int select_unique(bool wide, void* temp, std::size_t& temp_bytes, const void* in, void* unique_out, i64* selected,
                  i64 n, void* stream) {
  return wide ? select<std::int64_t>(temp, temp_bytes, in, unique_out, selected, n, stream)
              : select<std::int32_t>(temp, temp_bytes, in, unique_out, selected, n, stream);
}

int run_length_encode(bool wide, void* temp, std::size_t& temp_bytes, const void* in, void* unique_out, i64* counts_out,
                      i64* runs_out, i64 n, void* stream) {
  return wide ? encode<std::int64_t>(temp, temp_bytes, in, unique_out, counts_out, runs_out, n, stream)
              : encode<std::int32_t>(temp, temp_bytes, in, unique_out, counts_out, runs_out, n, stream);
}

int inclusive_sum(void* temp, std::size_t& temp_bytes, i64* data, i64 n, void* stream) {
  return static_cast<int>(
      cub::DeviceScan::InclusiveSum(temp, temp_bytes, data, data, n, static_cast<cudaStream_t>(stream)));
}

}  // namespace jf::cuda_sort
