// The direct calls of cub::DeviceScan::InclusiveSum that bench_scan compares jf::cumsum with: int32
// read as int64 (numpy's result dtype; CUB would otherwise sum in int32) and float64. The temp
// storage is allocated by the caller once, outside the timing.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <cstddef>
#include <cstdint>

namespace {
struct widen {
  __host__ __device__ std::int64_t operator()(std::int32_t v) const { return v; }
};
}  // namespace

// A null temp only sets bytes. Returns CUB's cudaError_t.
template <class In, class Out>
int cub_inclusive_sum(void* temp, std::size_t& bytes, const void* in, void* out, std::int64_t n, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto* i = static_cast<const In*>(in);
  auto* o = static_cast<Out*>(out);
  if constexpr (sizeof(In) == sizeof(Out))
    return static_cast<int>(cub::DeviceScan::InclusiveSum(temp, bytes, i, o, n, s));
  else
    return static_cast<int>(cub::DeviceScan::InclusiveSum(temp, bytes, thrust::make_transform_iterator(i, widen{}), o, n, s));
}

template int cub_inclusive_sum<std::int32_t, std::int64_t>(void*, std::size_t&, const void*, void*, std::int64_t, void*);
template int cub_inclusive_sum<double, double>(void*, std::size_t&, const void*, void*, std::int64_t, void*);
