// numpy-named functions (jf::sqrt, jf::where, jf::astype<T>, ...): lazy call nodes when an
// operand is an array or an expression; on C++ scalars only, the scalar computed with numpy's
// rules (scalar_call.hpp: jf::floor_divide(-7, 2) == -4); a static_assert on other types.
#pragma once

#include <limits>
#include <utility>

#include "jetfuse/expr/expr.hpp"
#include "jetfuse/expr/scalar_call.hpp"

namespace jf {

#define JF_UNARY_FUNCTION(name, code)                                                         \
  template <lazy_operand A> auto name(A&& a) {                                                \
    return make_call<fn<op::code>>(std::forward<A>(a));                                       \
  }                                                                                           \
  template <scalar_operand A> auto name(A a) { return detail::scalar_call<fn<op::code>>(a); } \
  template <class A>                                                                          \
    requires(!operand<A>)                                                                     \
  detail::rejected name(A&&) {                                                                \
    static_assert(detail::always_false<A>, JF_UNSUPPORTED_OPERAND_MESSAGE);                   \
    return {};                                                                                \
  }
#define JF_BINARY_FUNCTION(name, code)                                         \
  template <operand L, operand R>                                              \
    requires(lazy_operand<L> || lazy_operand<R>)                               \
  auto name(L&& l, R&& r) {                                                    \
    return make_call<fn<op::code>>(std::forward<L>(l), std::forward<R>(r));    \
  }                                                                            \
  template <scalar_operand L, scalar_operand R> auto name(L l, R r) {          \
    return detail::scalar_call<fn<op::code>>(l, r);                            \
  }                                                                            \
  template <class L, class R>                                                  \
    requires(!operand<L> || !operand<R>)                                       \
  detail::rejected name(L&&, R&&) {                                            \
    static_assert(detail::always_false<L, R>, JF_UNSUPPORTED_OPERAND_MESSAGE); \
    return {};                                                                 \
  }

JF_UNARY_FUNCTION(negative, negative)
JF_UNARY_FUNCTION(abs, absolute)
JF_UNARY_FUNCTION(absolute, absolute)
JF_UNARY_FUNCTION(sqrt, sqrt)
JF_UNARY_FUNCTION(cbrt, cbrt)
JF_UNARY_FUNCTION(exp, exp)
JF_UNARY_FUNCTION(exp2, exp2)
JF_UNARY_FUNCTION(expm1, expm1)
JF_UNARY_FUNCTION(log, log)
JF_UNARY_FUNCTION(log2, log2)
JF_UNARY_FUNCTION(log10, log10)
JF_UNARY_FUNCTION(log1p, log1p)
JF_UNARY_FUNCTION(sin, sin)
JF_UNARY_FUNCTION(cos, cos)
JF_UNARY_FUNCTION(tan, tan)
JF_UNARY_FUNCTION(arcsin, arcsin)
JF_UNARY_FUNCTION(arccos, arccos)
JF_UNARY_FUNCTION(arctan, arctan)
JF_UNARY_FUNCTION(sinh, sinh)
JF_UNARY_FUNCTION(cosh, cosh)
JF_UNARY_FUNCTION(tanh, tanh)
JF_UNARY_FUNCTION(arcsinh, arcsinh)
JF_UNARY_FUNCTION(arccosh, arccosh)
JF_UNARY_FUNCTION(arctanh, arctanh)
JF_UNARY_FUNCTION(rint, rint)
JF_UNARY_FUNCTION(square, square)
JF_UNARY_FUNCTION(reciprocal, reciprocal)
JF_UNARY_FUNCTION(floor, floor)
JF_UNARY_FUNCTION(ceil, ceil)
JF_UNARY_FUNCTION(trunc, trunc)
JF_UNARY_FUNCTION(sign, sign)
JF_UNARY_FUNCTION(isnan, isnan)
JF_UNARY_FUNCTION(isinf, isinf)
JF_UNARY_FUNCTION(isfinite, isfinite)
JF_UNARY_FUNCTION(logical_not, logical_not)
JF_UNARY_FUNCTION(invert, invert)
JF_UNARY_FUNCTION(bitwise_not, invert)

JF_BINARY_FUNCTION(add, add)
JF_BINARY_FUNCTION(subtract, subtract)
JF_BINARY_FUNCTION(multiply, multiply)
JF_BINARY_FUNCTION(divide, true_divide)
JF_BINARY_FUNCTION(true_divide, true_divide)
JF_BINARY_FUNCTION(floor_divide, floor_divide)
JF_BINARY_FUNCTION(remainder, remainder)
JF_BINARY_FUNCTION(mod, remainder)
JF_BINARY_FUNCTION(power, power)
JF_BINARY_FUNCTION(arctan2, arctan2)
JF_BINARY_FUNCTION(hypot, hypot)
JF_BINARY_FUNCTION(minimum, minimum)
JF_BINARY_FUNCTION(maximum, maximum)
JF_BINARY_FUNCTION(fmin, fmin)
JF_BINARY_FUNCTION(fmax, fmax)
JF_BINARY_FUNCTION(bitwise_and, bitwise_and)
JF_BINARY_FUNCTION(bitwise_or, bitwise_or)
JF_BINARY_FUNCTION(bitwise_xor, bitwise_xor)
JF_BINARY_FUNCTION(left_shift, left_shift)
JF_BINARY_FUNCTION(right_shift, right_shift)
JF_BINARY_FUNCTION(equal, equal)
JF_BINARY_FUNCTION(not_equal, not_equal)
JF_BINARY_FUNCTION(less, less)
JF_BINARY_FUNCTION(less_equal, less_equal)
JF_BINARY_FUNCTION(greater, greater)
JF_BINARY_FUNCTION(greater_equal, greater_equal)
JF_BINARY_FUNCTION(logical_and, logical_and)
JF_BINARY_FUNCTION(logical_or, logical_or)
#undef JF_UNARY_FUNCTION
#undef JF_BINARY_FUNCTION

// numpy.where(cond, x, y): cond converted to bool, x and y promoted together.
template <operand C, operand X, operand Y>
  requires(lazy_operand<C> || lazy_operand<X> || lazy_operand<Y>)
auto where(C&& c, X&& x, Y&& y) {
  return make_call<fn<op::where>>(std::forward<C>(c), std::forward<X>(x), std::forward<Y>(y));
}
template <scalar_operand C, scalar_operand X, scalar_operand Y> auto where(C c, X x, Y y) {
  return detail::scalar_call<fn<op::where>>(c, x, y);
}
template <class C, class X, class Y>
  requires(!operand<C> || !operand<X> || !operand<Y>)
detail::rejected where(C&&, X&&, Y&&) {
  static_assert(detail::always_false<C, X, Y>, JF_UNSUPPORTED_OPERAND_MESSAGE);
  return {};
}

namespace detail {
// numpy's _clip: a Python int bound of an integer x beyond x's dtype is dropped (NEP 50 would
// otherwise raise OverflowError): clip(uint8_x, -1, 300) is x. Clamping the bound to the dtype's
// limit is the same and keeps one expression type: always for lo (maximum(x, x's minimum) is x),
// for hi when maximum(x, lo) keeps x's dtype (a wider lo array: docs/design.md, differences).
template <bool Low, class X, class L, class B> decltype(auto) clip_bound(B&& b) {
  using S = std::remove_cvref_t<B>;
  constexpr operand_type xt = type_of_v<capture_t<X>>;
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool> && !xt.is_weak() && is_integer(xt.type)) {
    using T = cpp_type_t<xt.type>;
    if constexpr (Low) {
      constexpr T lowest = std::numeric_limits<T>::min();
      return std::cmp_less_equal(b, lowest) ? static_cast<S>(lowest) : S(b);
    } else if constexpr (op_types<op::maximum, capture_t<X>, capture_t<L>>::result == xt.type) {
      constexpr T highest = std::numeric_limits<T>::max();
      return std::cmp_greater_equal(b, highest) ? static_cast<S>(highest) : S(b);
    } else {
      return S(b);
    }
  } else {
    return std::forward<B>(b);
  }
}
}  // namespace detail

// numpy.clip(x, lo, hi) == minimum(maximum(x, lo), hi): NaN propagates, as in numpy. numpy's clip
// is one ufunc whose loop dtype comes from all three operands: when hi widens the result
// (clip(int16_x, 32768, 2.0) is float64), x is cast to it first, so that maximum(x, lo) is not
// computed (and its weak bound checked) in x's narrower dtype.
template <operand X, operand L, operand H> auto clip(X&& x, L&& lo, H&& hi) {
  auto&& l = detail::clip_bound<true, X, L>(std::forward<L>(lo));
  auto&& h = detail::clip_bound<false, X, L>(std::forward<H>(hi));
  using M = decltype(maximum(std::declval<X>(), std::forward<decltype(l)>(l)));
  using R = decltype(minimum(std::declval<M>(), std::forward<decltype(h)>(h)));
  constexpr operand_type xt = type_of_v<capture_t<X>>, rt = type_of_v<capture_t<R>>;
  if constexpr (!xt.is_weak() && rt.type != type_of_v<capture_t<M>>.type)
    return minimum(maximum(astype<cpp_type_t<rt.type>>(std::forward<X>(x)), std::forward<decltype(l)>(l)),
                   std::forward<decltype(h)>(h));
  else
    return minimum(maximum(std::forward<X>(x), std::forward<decltype(l)>(l)), std::forward<decltype(h)>(h));
}

// x.astype(U): numpy's casts (float -> int of NaN or out-of-range values gives INT_MIN, like numpy
// on x86-64). On a C++ scalar: the scalar as numpy would hold it (int64, float64), cast to U.
template <class U, lazy_operand A> auto astype(A&& a) {
  return make_call<cast_to<dtype_v<U>>>(std::forward<A>(a));
}
template <class U, scalar_operand A> U astype(A a) {
  return detail::scalar_call<cast_to<dtype_v<U>>>(a);
}

}  // namespace jf
