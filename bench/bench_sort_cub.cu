// The direct calls of cub::DeviceRadixSort::SortKeys that bench_sort compares jf::sort with: the
// temp storage allocated once outside the timing, num_items an int (CUB's usual use) or an int64
// (jetfuse's, which takes 64-bit offsets). And CUB's two segmented sorts of float32 rows called
// directly (DeviceSegmentedSort, which jetfuse uses, and DeviceSegmentedRadixSort), to show what
// sorting rows costs in CUB itself.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

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

// Rows of float32 keys, segments [offsets[s], offsets[s + 1]): Radix selects DeviceSegmentedRadixSort
// (int counts), else DeviceSegmentedSort. A null temp only sets bytes.
template <bool Radix>
int cub_sort_rows(void* temp, std::size_t& bytes, const float* in, float* out, std::int64_t n, std::int64_t segments,
                  const std::int64_t* offsets, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if constexpr (Radix)
    return static_cast<int>(cub::DeviceSegmentedRadixSort::SortKeys(
        temp, bytes, in, out, static_cast<int>(n), static_cast<int>(segments), offsets, offsets + 1, 0, 32, s));
  else
    return static_cast<int>(
        cub::DeviceSegmentedSort::SortKeys(temp, bytes, in, out, n, segments, offsets, offsets + 1, s));
}
template int cub_sort_rows<true>(void*, std::size_t&, const float*, float*, std::int64_t, std::int64_t,
                                 const std::int64_t*, void*);
template int cub_sort_rows<false>(void*, std::size_t&, const float*, float*, std::int64_t, std::int64_t,
                                  const std::int64_t*, void*);
