// numpy's *_like creation functions and eye/identity: new contiguous arrays on a given backend.
#pragma once

#include <algorithm>
#include <cstdint>

#include "jetfuse/array.hpp"

namespace jf {

// numpy.empty_like / zeros_like / ones_like / full_like: a's shape, on a's backend (C order),
// with a's element type unless another is named (jf::zeros_like<float>(a)).
template <class U = void, class T> auto empty_like(const array<T>& a) {
  using R = std::conditional_t<std::is_void_v<U>, T, U>;
  return empty<R>(a.shape(), a.device());
}
template <class U = void, class T> auto zeros_like(const array<T>& a) {
  using R = std::conditional_t<std::is_void_v<U>, T, U>;
  return zeros<R>(a.shape(), a.device());
}
template <class U = void, class T> auto ones_like(const array<T>& a) {
  using R = std::conditional_t<std::is_void_v<U>, T, U>;
  return ones<R>(a.shape(), a.device());
}
template <class U = void, class T, class V> auto full_like(const array<T>& a, V value) {
  using R = std::conditional_t<std::is_void_v<U>, T, U>;
  return full<R>(a.shape(), detail::cast_scalar<R>(value), a.device());
}

// numpy.eye(n, m, k): an n x m array with ones on diagonal k (above the main one for k > 0).
template <class T = double> array<T> eye(std::int64_t n, std::int64_t m, std::int64_t k = 0, device dev = cpu) {
  array<T> z = zeros<T>({n, m}, dev);
  const std::int64_t len = k >= 0 ? std::min(n, m - k) : std::min(n + k, m);
  if (len > 0) {
    const std::int64_t start = k >= 0 ? k : -k * m;  // the diagonal is every (m + 1)-th element
    z.reshape({n * m})(range(start, start + (len - 1) * (m + 1) + 1, m + 1)) = T(1);
  }
  return z;
}
template <class T = double> array<T> eye(std::int64_t n, device dev = cpu) { return eye<T>(n, n, 0, dev); }
// numpy.identity(n).
template <class T = double> array<T> identity(std::int64_t n, device dev = cpu) { return eye<T>(n, n, 0, dev); }

}  // namespace jf
