// Compile-time dtypes of expressions: numpy 2 promotion (NEP 50) through the op table's rules.
#pragma once

#include "jetfuse/expr/expr.hpp"

namespace jf {

template <class E> struct type_of_impl;

// The operand type of a (captured) expression node: strong dtype, or weak scalar kind.
template <class E> inline constexpr operand_type type_of_v = type_of_impl<std::remove_cvref_t<E>>::value;

template <class T> struct type_of_impl<term<array<T>>> {
  static constexpr operand_type value = strong(dtype_v<T>);
};
template <class T> struct type_of_impl<term<option_array<T>>> {  // its values' dtype
  static constexpr operand_type value = strong(dtype_v<T>);
};
template <class S>
  requires std::is_arithmetic_v<S>
struct type_of_impl<term<S>> {
  static constexpr operand_type value = weak_operand<S>();
};

namespace detail {
// Index of the first value operand of an op (where's condition is not one).
constexpr int first_value_arg(op o) { return o == op::where ? 1 : 0; }

template <op O, class... A> constexpr operand_type promoted_operands() {
  constexpr operand_type ts[] = {type_of_v<A>...};
  operand_type p = ts[first_value_arg(O)];
  for (std::size_t i = first_value_arg(O) + 1; i < sizeof...(A); ++i) p = promote(p, ts[i]);
  return p;
}
}  // namespace detail

// The dtype an operation computes in, and checks that the operation accepts its operands.
template <op O, class... A> struct op_types {
  static_assert(sizeof...(A) == static_cast<std::size_t>(info(O).arity), "wrong number of operands");
  static constexpr op_rule rule = info(O).rule;
  static constexpr dtype compute = [] {
    if constexpr (sizeof...(A) == 2) {
      constexpr operand_type ts[] = {type_of_v<A>...};
      if (!ts[0].is_weak() && !ts[1].is_weak()) return compute_dtype(rule, ts[0].type, ts[1].type);
    }
    return compute_dtype(rule, resolve(detail::promoted_operands<O, A...>()));
  }();
  static_assert(accepts(rule, compute),
                "jetfuse: this operation is not defined for these dtypes (negative, subtract or sign of "
                "bool, bitwise operations on floats, or shifts of non-integers); "
                "convert with jf::astype<T>(x) first");
  static constexpr dtype result = result_dtype(rule, compute);
  // numpy 2 compares uint64 with a signed integer exactly, not in their promoted float64: the
  // operands become uint64 and int64, and the lowering compares them exactly (lower_operation).
  static constexpr bool mixed_comparison = [] {
    if constexpr (rule != op_rule::compare) {
      return false;
    } else {
      constexpr operand_type ts[] = {type_of_v<A>...};
      return !ts[0].is_weak() && !ts[1].is_weak() && compares_mixed_signs(ts[0].type, ts[1].type);
    }
  }();
  // The dtype operand i is converted to before the operation.
  static constexpr dtype target(int i) {
    if constexpr (mixed_comparison) {
      constexpr operand_type ts[] = {type_of_v<A>...};
      return ts[i].type == dtype::uint64 ? dtype::uint64 : dtype::int64;
    } else {
      return (O == op::where && i == 0) ? dtype::bool_ : compute;
    }
  }
};

template <op O, class... A> struct type_of_impl<call_node<fn<O>, A...>> {
  static constexpr operand_type value = strong(op_types<O, A...>::result);
};
template <dtype D, class A> struct type_of_impl<call_node<cast_to<D>, A>> {
  static constexpr operand_type value = strong(D);
};

// The C++ element type of an expression's result.
template <class E> using value_type_t = cpp_type_t<type_of_v<E>.type>;

}  // namespace jf
