// numpy's casting rule for in-place operations (`x += e`, ufunc(..., out=x)): the result of
// `x op e` may be written into x only when the cast is 'same_kind' (np.can_cast(result, x.dtype,
// 'same_kind')): numpy's kinds in the order bool < unsigned < signed integer < floating, a cast
// to the same kind or a later one (any width): uint8 += int8 (result int16) and int32 += 1.5 raise
// UFuncTypeError in numpy. Every operand dtype is static in jetfuse, so the rule is checked at
// compile time.
#pragma once

#include "jetfuse/expr/type_of.hpp"

namespace jf {

constexpr int same_kind_rank(dtype d) {
  return d == dtype::bool_ ? 0 : is_unsigned_integer(d) ? 1 : is_signed_integer(d) ? 2 : 3;
}
constexpr bool can_cast_same_kind(dtype from, dtype to) { return same_kind_rank(from) <= same_kind_rank(to); }

namespace detail {
// The dtypes of `x op e` for an array<T> x, computed without op_types' static_assert so that the
// trait below can say "no" instead of failing to compile.
template <op O, class T, class E>
struct compound_types {
  static constexpr op_rule rule = info(O).rule;
  static constexpr dtype compute = compute_dtype(rule, resolve(promote(strong(dtype_v<T>), type_of_v<capture_t<E>>)));
  static constexpr bool defined = accepts(rule, compute);
  static constexpr dtype result = result_dtype(rule, compute);
};
template <op O, class X, class E>
constexpr bool compound_allowed() {
  if constexpr (!is_array_v<X> || !operand<E>) {
    return false;
  } else {
    using T = typename std::remove_cvref_t<X>::value_type;
    using types = compound_types<O, T, E>;
    return types::defined && can_cast_same_kind(types::result, dtype_v<T>);
  }
}
}  // namespace detail

// Whether `x op= e` compiles for an array x (X: its type) and an operand e (E: its type), with
// op the operation of the table (op::add for +=, op::true_divide for /=, ...). False when e is not
// an operand, when the operation is not defined for the dtypes, or when numpy's same_kind rule
// rejects writing the result into x (int32 += 1.5, int32 /= 2, bool += 1).
template <op O, class X, class E>
inline constexpr bool can_compound_assign =
    !std::is_const_v<std::remove_reference_t<X>> && detail::compound_allowed<O, std::remove_cvref_t<X>, E>();

}  // namespace jf
