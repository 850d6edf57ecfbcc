// Elements as signed integer keys whose order is numpy's (device_sort.hpp, key_mode): key_of<T>
// gives the key type K, encode (order or canonical) and decode, and the canonical NaN's key.
// Shared by the sort passes (passes.cu) and the one-block row sorts (block_sort_rows.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace jf::cuda_sort {

template <class T>
struct key_of;
// bool and the integers but uint64: their value as an int32 key (int64 for int64 and uint32).
template <class T, class Key>
struct widened_key {
  using K = Key;
  static constexpr bool has_nan = false;
  static constexpr K nan_key = 0;
  __device__ static K encode(T v, bool) { return static_cast<K>(v); }
  __device__ static T decode(K k) { return static_cast<T>(k); }
};
template <>
struct key_of<bool> : widened_key<bool, std::int32_t> {};
template <>
struct key_of<std::int32_t> : widened_key<std::int32_t, std::int32_t> {};
template <>
struct key_of<std::int64_t> : widened_key<std::int64_t, std::int64_t> {};
template <>
struct key_of<std::int8_t> : widened_key<std::int8_t, std::int32_t> {};
template <>
struct key_of<std::int16_t> : widened_key<std::int16_t, std::int32_t> {};
template <>
struct key_of<std::uint8_t> : widened_key<std::uint8_t, std::int32_t> {};
template <>
struct key_of<std::uint16_t> : widened_key<std::uint16_t, std::int32_t> {};
template <>
struct key_of<std::uint32_t> : widened_key<std::uint32_t, std::int64_t> {};
// uint64: the top bit flipped, so that signed int64 order is the unsigned order.
template <>
struct key_of<std::uint64_t> {
  using K = std::int64_t;
  static constexpr bool has_nan = false;
  static constexpr K nan_key = 0;
  __device__ static K encode(std::uint64_t v, bool) { return static_cast<K>(v ^ 0x8000000000000000ull); }
  __device__ static std::uint64_t decode(K k) { return static_cast<std::uint64_t>(k) ^ 0x8000000000000000ull; }
};
// Floats: a NaN's sign cleared (canonical: one NaN, and -0.0 is +0.0), then the bits of a negative
// value reversed below the sign so that signed integer order is the value order.
template <>
struct key_of<float> {
  using K = std::int32_t;
  static constexpr bool has_nan = true;
  static constexpr K nan_key = 0x7FC00000;
  __device__ static K encode(float v, bool canonical) {
    std::uint32_t b = static_cast<std::uint32_t>(__float_as_int(v));
    if ((b & 0x7FFFFFFFu) > 0x7F800000u)
      b = canonical ? 0x7FC00000u : (b & 0x7FFFFFFFu);
    else if (canonical && b == 0x80000000u)
      b = 0;
    const K s = static_cast<K>(b);
    return s < 0 ? s ^ 0x7FFFFFFF : s;
  }
  __device__ static float decode(K k) { return __int_as_float(k < 0 ? k ^ 0x7FFFFFFF : k); }
};
template <>
struct key_of<double> {
  using K = std::int64_t;
  static constexpr bool has_nan = true;
  static constexpr K nan_key = 0x7FF8000000000000LL;
  __device__ static K encode(double v, bool canonical) {
    std::uint64_t b = static_cast<std::uint64_t>(__double_as_longlong(v));
    if ((b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull)
      b = canonical ? 0x7FF8000000000000ull : (b & 0x7FFFFFFFFFFFFFFFull);
    else if (canonical && b == 0x8000000000000000ull)
      b = 0;
    const K s = static_cast<K>(b);
    return s < 0 ? s ^ 0x7FFFFFFFFFFFFFFFLL : s;
  }
  __device__ static double decode(K k) { return __longlong_as_double(k < 0 ? k ^ 0x7FFFFFFFFFFFFFFFLL : k); }
};
template <class T>
using key_t = typename key_of<T>::K;

// A canonical key re-keyed for Awkward's per-list order (ak.sort): NaN first in either direction
// (the lowest key), descending as the complement of the others (~k of a number is never the
// lowest key: that would need k to be the highest key, above NaN's). Shared by the per-list sorts'
// general path (list_passes.cu) and short-list path (short_lists.cu), so both order alike.
template <class K>
__device__ __forceinline__ K list_order_key(K k, bool is_nan, bool ascending) {
  constexpr K lowest = K(K(1) << (8 * sizeof(K) - 1));
  return is_nan ? lowest : ascending ? k : K(~k);
}

}  // namespace jf::cuda_sort
