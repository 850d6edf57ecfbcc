// The small kernels around CUB's sorts (device_sort.hpp): elements to order-preserving integer keys
// and back, copies between views and contiguous memory, segment offsets, the fix-up that puts
// negative NaNs last after a sort by bits, and the passes of unique. Grid-stride loops over 64-bit
// indices; every launch is asynchronous on the caller's stream.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/sort/device_sort.hpp"
#include "cuda/sort/grid_loops.cuh"
#include "cuda/sort/sort_keys.cuh"

namespace jf::cuda_sort {

namespace {

using namespace grid;

template <class T, bool Canonical>
__global__ void encode_kernel(view in, key_t<T>* keys, i64* positions, i64 row, i64 n) {
  const T* x = static_cast<const T*>(in.data);
  for (i64 i = first_index(); i < n; i += index_step()) {
    keys[i] = key_of<T>::encode(x[offset_of(in, i)], Canonical);
    if (positions) positions[i] = row == n ? i : i % row;
  }
}

template <class T>
__global__ void decode_kernel(const key_t<T>* keys, view out, i64 n) {
  T* y = static_cast<T*>(out.data);
  for (i64 i = first_index(); i < n; i += index_step()) y[offset_of(out, i)] = key_of<T>::decode(keys[i]);
}

// ---- copies and offsets ------------------------------------------------------------------------
template <class U>
__global__ void gather_kernel(view in, U* out, i64 n) {
  const U* x = static_cast<const U*>(in.data);
  for (i64 i = first_index(); i < n; i += index_step()) out[i] = x[offset_of(in, i)];
}
template <class U>
__global__ void scatter_kernel(const U* in, view out, i64 n) {
  U* y = static_cast<U*>(out.data);
  for (i64 i = first_index(); i < n; i += index_step()) y[offset_of(out, i)] = in[i];
}
template <class F>
int with_width(int bytes, F&& f) {
  if (bytes == 1) return f(std::uint8_t{});
  if (bytes == 2) return f(std::uint16_t{});
  if (bytes == 4) return f(std::uint32_t{});
  return f(std::uint64_t{});
}

__global__ void offsets_kernel(i64* offsets, i64 segments, i64 row) {
  for (i64 s = first_index(); s <= segments; s += index_step()) offsets[s] = s * row;
}

// ---- negative NaNs last ------------------------------------------------------------------------
// The bits of a float with the sign set, exponent all ones and a mantissa: above -inf's bits.
template <class U>
struct float_bits;
template <>
struct float_bits<std::uint32_t> {
  static constexpr std::uint32_t sign = 0x80000000u, negative_inf = 0xFF800000u;
};
template <>
struct float_bits<std::uint64_t> {
  static constexpr std::uint64_t sign = 0x8000000000000000ull, negative_inf = 0xFFF0000000000000ull;
};

// One warp: the length k of the prefix of negative NaNs (CUB's order by bits puts them first), by
// a 32-way search (each round probes 32 positions and keeps the interval holding the boundary).
template <class U>
__global__ void count_negative_nans(const U* data, i64 n, i64* count) {
  const unsigned lane = threadIdx.x;
  i64 lo = 0, hi = n;  // data[i] is a negative NaN for i < k, not for i >= k; k in [lo, hi]
  while (lo < hi) {
    const i64 step = (hi - lo + 31) / 32;
    const i64 q = lo + lane * step;
    const bool hit = q < hi && data[q] > float_bits<U>::negative_inf;
    const int c = __popc(__ballot_sync(0xFFFFFFFFu, hit));  // probes 0 .. c-1 hit (a prefix)
    if (c == 0) {
      hi = lo;
    } else {
      const i64 next = lo + c * step;  // the first probe that missed, when it exists
      lo = lo + (c - 1) * step + 1;
      if (next < hi) hi = next;
    }
  }
  if (lane == 0) *count = lo;
}

// scratch = data rotated left by k, the k NaNs (now last) without their sign.
template <class U>
__global__ void rotate_kernel(const U* data, U* scratch, i64 n, const i64* count) {
  const i64 k = *count;
  if (k == 0) return;
  for (i64 i = first_index(); i < n; i += index_step()) {
    const i64 from = i + k < n ? i + k : i + k - n;
    const U b = data[from];
    scratch[i] = i >= n - k ? (b & ~float_bits<U>::sign) : b;
  }
}
template <class U>
__global__ void copy_back_kernel(const U* scratch, U* data, i64 n, const i64* count) {
  if (*count == 0) return;
  for (i64 i = first_index(); i < n; i += index_step()) data[i] = scratch[i];
}

// ---- unique ------------------------------------------------------------------------------------
template <class T>
__global__ void rle_summary_kernel(const key_t<T>* unique_keys, const i64* counts, const i64* runs, i64* summary) {
  const i64 u = *runs;
  summary[0] = u;
  summary[1] = key_of<T>::has_nan && u > 0 && unique_keys[u - 1] == key_of<T>::nan_key ? counts[u - 1] : 0;
}

template <class T>
__global__ void rle_finish_kernel(const key_t<T>* unique_keys, const i64* counts, i64 regular, i64 total, i64 nan_count,
                                  bool equal_nan, T* values, i64* counts_out) {
  for (i64 i = first_index(); i < total; i += index_step()) {
    const bool nan = i >= regular;
    values[i] = key_of<T>::decode(nan ? key_of<T>::nan_key : unique_keys[i]);
    if (counts_out) counts_out[i] = !nan ? counts[i] : equal_nan ? nan_count : 1;
  }
}

template <class T>
__global__ void flags_kernel(const key_t<T>* keys, i64* flags, i64 n, bool equal_nan) {
  for (i64 i = first_index(); i < n; i += index_step()) {
    const key_t<T> k = keys[i];
    flags[i] = i == 0 || k != keys[i - 1] || (key_of<T>::has_nan && !equal_nan && k == key_of<T>::nan_key);
  }
}

template <class T>
__global__ void unique_scatter_kernel(const key_t<T>* keys, const i64* perm, const i64* runs, i64 n, T* values,
                                      i64* indices, i64* inverse, i64* starts) {
  for (i64 i = first_index(); i < n; i += index_step()) {
    const i64 u = runs[i] - 1;
    if (i == 0 || runs[i - 1] != runs[i]) {
      if (values) values[u] = key_of<T>::decode(keys[i]);
      if (indices) indices[u] = perm[i];
      if (starts) starts[u] = i;
    }
    if (inverse) inverse[perm[i]] = u;
  }
}

__global__ void counts_kernel(const i64* starts, i64 distinct, i64 n, i64* counts) {
  for (i64 u = first_index(); u < distinct; u += index_step())
    counts[u] = (u + 1 < distinct ? starts[u + 1] : n) - starts[u];
}

template <class F>
int with_type(dtype t, F&& f) {
  return visit_dtype(t, [&]<class T>(std::type_identity<T>) { return f(T{}); });
}

}  // namespace

const char* error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

bool wide_keys(dtype t) {
  return t == dtype::int64 || t == dtype::float64 || t == dtype::uint32 || t == dtype::uint64;
}

int encode_keys(dtype t, key_mode mode, const view& in, void* keys, i64* positions, i64 row, i64 n, void* stream) {
  if (n == 0) return 0;
  return with_type(t, [&]<class T>(T) {
    auto* k = static_cast<key_t<T>*>(keys);
    const auto s = static_cast<cudaStream_t>(stream);
    if (mode == key_mode::canonical)
      encode_kernel<T, true><<<grid_for(n), block, 0, s>>>(in, k, positions, row, n);
    else
      encode_kernel<T, false><<<grid_for(n), block, 0, s>>>(in, k, positions, row, n);
    return launched();
  });
}

int decode_keys(dtype t, const void* keys, const view& out, i64 n, void* stream) {
  if (n == 0) return 0;
  return with_type(t, [&]<class T>(T) {
    decode_kernel<T>
        <<<grid_for(n), block, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const key_t<T>*>(keys), out, n);
    return launched();
  });
}

int gather(int bytes, const view& in, void* out, i64 n, void* stream) {
  if (n == 0) return 0;
  return with_width(bytes, [&]<class U>(U) {
    gather_kernel<U><<<grid_for(n), block, 0, static_cast<cudaStream_t>(stream)>>>(in, static_cast<U*>(out), n);
    return launched();
  });
}

int scatter(int bytes, const void* in, const view& out, i64 n, void* stream) {
  if (n == 0) return 0;
  return with_width(bytes, [&]<class U>(U) {
    scatter_kernel<U><<<grid_for(n), block, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const U*>(in), out, n);
    return launched();
  });
}

int segment_offsets(i64* offsets, i64 segments, i64 row, void* stream) {
  offsets_kernel<<<grid_for(segments + 1), block, 0, static_cast<cudaStream_t>(stream)>>>(offsets, segments, row);
  return launched();
}

int move_negative_nans_last(dtype t, void* data, void* scratch, i64* count, i64 n, void* stream) {
  if (n == 0) return 0;
  const auto run = [&]<class U>(U) {
    const auto s = static_cast<cudaStream_t>(stream);
    U* d = static_cast<U*>(data);
    U* tmp = static_cast<U*>(scratch);
    count_negative_nans<U><<<1, 32, 0, s>>>(d, n, count);
    // Few blocks: when no NaN is negative (the common case) each returns after one load.
    rotate_kernel<U><<<grid_for(n, 1024), block, 0, s>>>(d, tmp, n, count);
    copy_back_kernel<U><<<grid_for(n, 1024), block, 0, s>>>(tmp, d, n, count);
    return launched();
  };
  return t == dtype::float32 ? run(std::uint32_t{}) : run(std::uint64_t{});
}

int rle_summary(dtype t, const void* unique_keys, const i64* counts, const i64* runs, i64* summary, void* stream) {
  return with_type(t, [&]<class T>(T) {
    rle_summary_kernel<T><<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const key_t<T>*>(unique_keys),
                                                                          counts, runs, summary);
    return launched();
  });
}

int rle_finish(dtype t, const void* unique_keys, const i64* counts, i64 regular, i64 total, i64 nan_count,
               bool equal_nan, void* values, i64* counts_out, void* stream) {
  if (total == 0) return 0;
  return with_type(t, [&]<class T>(T) {
    rle_finish_kernel<T><<<grid_for(total), block, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const key_t<T>*>(unique_keys), counts, regular, total, nan_count, equal_nan,
        static_cast<T*>(values), counts_out);
    return launched();
  });
}

int unique_flags(dtype t, const void* keys, i64* flags, i64 n, bool equal_nan, void* stream) {
  if (n == 0) return 0;
  return with_type(t, [&]<class T>(T) {
    flags_kernel<T><<<grid_for(n), block, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const key_t<T>*>(keys),
                                                                                  flags, n, equal_nan);
    return launched();
  });
}

int unique_scatter(dtype t, const void* keys, const i64* perm, const i64* runs, i64 n, void* values, i64* indices,
                   i64* inverse, i64* starts, void* stream) {
  if (n == 0) return 0;
  return with_type(t, [&]<class T>(T) {
    unique_scatter_kernel<T><<<grid_for(n), block, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const key_t<T>*>(keys), perm, runs, n, static_cast<T*>(values), indices, inverse, starts);
    return launched();
  });
}

int counts_from_starts(const i64* starts, i64 distinct, i64 n, i64* counts, void* stream) {
  if (distinct == 0) return 0;
  counts_kernel<<<grid_for(distinct), block, 0, static_cast<cudaStream_t>(stream)>>>(starts, distinct, n, counts);
  return launched();
}

}  // namespace jf::cuda_sort
