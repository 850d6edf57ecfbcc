// The direct calls of cub::DeviceRadixSort::SortKeys that bench_sort compares jf::sort with: the
// temp storage allocated once outside the timing, num_items an int (CUB's usual use) or an int64
// (jetfuse's, which takes 64-bit offsets).
#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>

template <class K, class N>
std::size_t cub_sort_keys_bytes(N n) {
  std::size_t bytes = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr), n);
  return bytes;
}

template <class K, class N>
int cub_sort_keys(void* temp, std::size_t bytes, const void* in, void* out, N n, void* stream) {
  return static_cast<int>(cub::DeviceRadixSort::SortKeys(temp, bytes, static_cast<const K*>(in), static_cast<K*>(out),
                                                         n, 0, static_cast<int>(8 * sizeof(K)),
                                                         static_cast<cudaStream_t>(stream)));
}

template std::size_t cub_sort_keys_bytes<float, int>(int);
template std::size_t cub_sort_keys_bytes<float, std::int64_t>(std::int64_t);
template std::size_t cub_sort_keys_bytes<std::int32_t, int>(int);
template int cub_sort_keys<float, int>(void*, std::size_t, const void*, void*, int, void*);
template int cub_sort_keys<float, std::int64_t>(void*, std::size_t, const void*, void*, std::int64_t, void*);
template int cub_sort_keys<std::int32_t, int>(void*, std::size_t, const void*, void*, int, void*);
