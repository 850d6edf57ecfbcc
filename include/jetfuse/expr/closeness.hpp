// numpy.isclose (a lazy, fusable expression), numpy.allclose and numpy.array_equal.
#pragma once

#include <type_traits>

#include "jetfuse/expr/functions.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/expr/type_of.hpp"

namespace jf {

// isclose(a, b, rtol, atol, jf::equal_nan): NaNs at the same position compare close.
struct equal_nan_t {};
inline constexpr equal_nan_t equal_nan{};

namespace detail {
// numpy converts b to result_type(b, 1.0): float32 stays float32, everything else is float64.
template <class Y> using isclose_float_t = std::conditional_t<type_of_v<capture_t<Y>>.type == dtype::float32, float, double>;
}  // namespace detail

// numpy.isclose: |a - b| <= atol + rtol * |b| where b is finite, or a == b (equal infinities),
// with b converted to a float type first, as numpy does. A bool expression: it fuses with what
// consumes it (jf::all(jf::isclose(a, b)) is one kernel).
template <lazy_operand X, lazy_operand Y> auto isclose(const X& a, const Y& b, double rtol = 1e-5, double atol = 1e-8) {
  const auto y = astype<detail::isclose_float_t<Y>>(b);
  return ((abs(a - y) <= atol + rtol * abs(y)) & isfinite(y)) | (a == y);
}
template <lazy_operand X, lazy_operand Y> auto isclose(const X& a, const Y& b, double rtol, double atol, equal_nan_t) {
  const auto y = astype<detail::isclose_float_t<Y>>(b);
  return isclose(a, b, rtol, atol) | (isnan(a) & isnan(y));
}
template <lazy_operand X, lazy_operand Y> auto isclose(const X& a, const Y& b, equal_nan_t) {
  return isclose(a, b, 1e-5, 1e-8, equal_nan);
}

// numpy.allclose: whether every element is close (one fused reduction; the answer on the host).
template <lazy_operand X, lazy_operand Y> bool allclose(const X& a, const Y& b, double rtol = 1e-5, double atol = 1e-8) {
  return jf::all(isclose(a, b, rtol, atol)).item();
}
template <lazy_operand X, lazy_operand Y> bool allclose(const X& a, const Y& b, double rtol, double atol, equal_nan_t) {
  return jf::all(isclose(a, b, rtol, atol, equal_nan)).item();
}
template <lazy_operand X, lazy_operand Y> bool allclose(const X& a, const Y& b, equal_nan_t) {
  return allclose(a, b, 1e-5, 1e-8, equal_nan);
}

// numpy.array_equal: the same shape (no broadcasting) and equal elements.
template <class T, class U> bool array_equal(const array<T>& a, const array<U>& b) {
  if (!(a.shape() == b.shape())) return false;
  return jf::all(a == b).item();
}
template <class T, class U> bool array_equal(const array<T>& a, const array<U>& b, equal_nan_t) {
  if (!(a.shape() == b.shape())) return false;
  if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<U>)
    return jf::all((a == b) | (isnan(a) & isnan(b))).item();
  else
    return jf::all(a == b).item();
}

}  // namespace jf
