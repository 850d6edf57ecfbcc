// The Boost.YAP expression template of jetfuse. Every node is a jf::expr; operands are captured
// BY VALUE (array handles are ref-counted, scalars are copied), so `auto e = a + b; return e;` is
// safe and expression types are canonical (the kernel cache keys on them).
//
// Every operation is a YAP `call` node whose first element is a terminal holding a tag:
// jf::fn<op::add> for the operations of the op table, jf::cast_to<dtype> for astype.
#pragma once

#include <boost/hana/tuple.hpp>
#include <boost/yap/algorithm.hpp>
#include <type_traits>

#include "jetfuse/array.hpp"
#include "jetfuse/ops.hpp"

namespace jf {

namespace yap = boost::yap;
namespace hana = boost::hana;

template <yap::expr_kind K, class Tuple> struct expr {
  static constexpr yap::expr_kind kind = K;
  Tuple elements;
  // Evaluates the expression and returns its one element: double s = jf::sum(a * b).item();
  auto item() const { return eval(*this).item(); }
  // e(mask) of a jagged expression: its elements (or combinations) where the jagged boolean mask
  // holds, Awkward's e[mask] (expr/jagged_mask.hpp).
  template <class M>
  auto operator()(const M& mask) const -> decltype(select_where(std::declval<const expr&>(), mask)) {
    return select_where(*this, mask);
  }
};

template <op O> struct fn {
  static constexpr op code = O;
};
template <dtype D> struct cast_to {
  static constexpr dtype type = D;
};

template <class T> using term = expr<yap::expr_kind::terminal, hana::tuple<T>>;
template <class Tag, class... Args> using call_node = expr<yap::expr_kind::call, hana::tuple<term<Tag>, Args...>>;

// ---- traits ------------------------------------------------------------------------------------
template <class E> struct is_lazy_expr : std::false_type {};
template <yap::expr_kind K, class Tuple> struct is_lazy_expr<expr<K, Tuple>> : std::true_type {};
// The node a lazy operand is captured as: itself, or the node its class derives from (x(indices),
// an assignable take: expr/scatter.hpp).
template <class E> struct node_of {
  using type = E;
};

template <class T> class jagged;  // jagged.hpp
template <class T> struct is_jagged : std::false_type {};
template <class T> struct is_jagged<jagged<T>> : std::true_type {};
template <class T> inline constexpr bool is_jagged_v = is_jagged<std::remove_cvref_t<T>>::value;

template <class T> class option_array;  // option_array.hpp
template <class T> struct is_option_array : std::false_type {};
template <class T> struct is_option_array<option_array<T>> : std::true_type {};
template <class T> inline constexpr bool is_option_array_v = is_option_array<std::remove_cvref_t<T>>::value;

template <class T> struct is_array : std::false_type {};
template <class T> struct is_array<array<T>> : std::true_type {};
template <class T> inline constexpr bool is_array_v = is_array<std::remove_cvref_t<T>>::value;

// An element read from an array (`x(i)` on a non-const array gives a jf::element_ref) is a scalar
// operand like the T it holds: `y * x(0)` captures the value, as `T v = x(0); y * v` would.
template <class T> struct scalar_value_of {
  using type = T;
};
template <class T> struct scalar_value_of<element_ref<T>> {
  using type = T;
};
template <class T> using scalar_value_of_t = typename scalar_value_of<std::remove_cvref_t<T>>::type;

template <class T>
concept scalar_operand = std::is_arithmetic_v<scalar_value_of_t<T>>;
// Operands that make an operation lazy: arrays (dense, jagged, or Awkward's option type: None
// propagates, option_operands.hpp) and expressions.
template <class T>
concept lazy_operand =
    is_array_v<T> || is_jagged_v<T> || is_option_array_v<T> || is_lazy_expr<std::remove_cvref_t<T>>::value;
template <class T>
concept operand = lazy_operand<T> || scalar_operand<T>;

namespace detail {
// What a rejected call returns: its body's static_assert says what to do, and the declared type
// keeps the compiler from piling further errors on top (and lets tests see the rejection).
struct rejected {};
template <class... T> inline constexpr bool always_false = false;
}  // namespace detail
#define JF_UNSUPPORTED_OPERAND_MESSAGE                                                                        \
  "jetfuse: an operand of an array expression must be a jf::array, a jetfuse expression or a C++ arithmetic " \
  "scalar (bool, integer, floating point); convert it first (e.g. jf::array<double>(std::vector<double>{...}))"

template <class T> struct is_fn_tag : std::false_type {};
template <op O> struct is_fn_tag<fn<O>> : std::true_type {};
template <class T> struct is_cast_tag : std::false_type {};
template <dtype D> struct is_cast_tag<cast_to<D>> : std::true_type {};

// ---- capture -----------------------------------------------------------------------------------
// Arrays of any element type become terminals holding a handle copy; bool/int/float scalars are
// normalised to bool / int64_t / double (their NEP 50 weak kind is all that matters; fewer types).
// 64-bit unsigned integers are kept as uint64_t: 2**63 .. 2**64-1 have no int64_t value (numpy's
// Python int has them: float64_array + 2**63 is +9.22e18).
template <class S>
using weak_integer_t =
    std::conditional_t<std::is_unsigned_v<S> && sizeof(S) == sizeof(std::uint64_t), std::uint64_t, std::int64_t>;
template <class T> struct capture_type {
  using D = scalar_value_of_t<T>;
  using type = std::conditional_t<
      is_lazy_expr<D>::value, typename node_of<D>::type,
      std::conditional_t<is_array<D>::value || is_jagged<D>::value || is_option_array<D>::value, term<D>,
                         std::conditional_t<std::is_same_v<D, bool>, term<bool>,
                                            std::conditional_t<std::is_integral_v<D>, term<weak_integer_t<D>>,
                                                               term<double>>>>>;
};
template <class T> using capture_t = typename capture_type<T>::type;

template <class T> capture_t<T> capture(T&& x) {
  using D = std::remove_cvref_t<T>;
  if constexpr (is_lazy_expr<D>::value) return capture_t<T>(std::forward<T>(x));
  else if constexpr (is_array<D>::value || is_jagged<D>::value || is_option_array<D>::value)
    return capture_t<T>{hana::tuple<D>(std::forward<T>(x))};
  else {
    using V = typename std::remove_cvref_t<decltype(std::declval<capture_t<T>>().elements[hana::llong_c<0>])>;
    return capture_t<T>{hana::tuple<V>(static_cast<V>(x))};
  }
}

namespace detail {
// Whether an expression has an evaluated jf::option_array operand (option_operands.hpp).
template <class E> struct has_option_leaf : std::false_type {};
template <class T> struct has_option_leaf<term<option_array<T>>> : std::true_type {};
template <class Tag, class... A>
struct has_option_leaf<call_node<Tag, A...>> : std::bool_constant<(has_option_leaf<A>::value || ...)> {};
template <class E> inline constexpr bool has_option_leaf_v = has_option_leaf<std::remove_cvref_t<capture_t<E>>>::value;
}  // namespace detail

template <class Tag, class... A> auto make_call(A&&... a) {
  return call_node<Tag, capture_t<A>...>{
      hana::tuple<term<Tag>, capture_t<A>...>(term<Tag>{hana::tuple<Tag>(Tag{})}, capture(std::forward<A>(a))...)};
}

}  // namespace jf
