// C++ operators on arrays and expressions: each builds a lazy call node (nothing is computed).
#pragma once

#include "jetfuse/expr/expr.hpp"

namespace jf {

#define JF_BINARY_OPERATOR(sym, code)                                       \
  template <operand L, operand R>                                           \
    requires(lazy_operand<L> || lazy_operand<R>)                            \
  auto operator sym(L&& l, R&& r) {                                         \
    return make_call<fn<op::code>>(std::forward<L>(l), std::forward<R>(r)); \
  }
JF_BINARY_OPERATOR(+, add)
JF_BINARY_OPERATOR(-, subtract)
JF_BINARY_OPERATOR(*, multiply)
JF_BINARY_OPERATOR(/, true_divide)
JF_BINARY_OPERATOR(%, remainder)
JF_BINARY_OPERATOR(&, bitwise_and)
JF_BINARY_OPERATOR(|, bitwise_or)
JF_BINARY_OPERATOR(^, bitwise_xor)
JF_BINARY_OPERATOR(<<, left_shift)
JF_BINARY_OPERATOR(>>, right_shift)
JF_BINARY_OPERATOR(==, equal)
JF_BINARY_OPERATOR(!=, not_equal)
JF_BINARY_OPERATOR(<, less)
JF_BINARY_OPERATOR(<=, less_equal)
JF_BINARY_OPERATOR(>, greater)
JF_BINARY_OPERATOR(>=, greater_equal)
JF_BINARY_OPERATOR(&&, logical_and)
JF_BINARY_OPERATOR(||, logical_or)
#undef JF_BINARY_OPERATOR

// An array or expression combined with something that is not an operand (a std::string, a
// std::vector, ...): one static_assert saying what to do instead of pages of overload candidates.
template <class L, class R>
concept rejected_operands = (lazy_operand<L> && !operand<R>) || (!operand<L> && lazy_operand<R>);
#define JF_REJECTED_OPERATOR(sym, constraint)                                  \
  template <class L, class R>                                                  \
    requires(constraint)                                                       \
  detail::rejected operator sym(L&&, R&&) {                                    \
    static_assert(detail::always_false<L, R>, JF_UNSUPPORTED_OPERAND_MESSAGE); \
    return {};                                                                 \
  }
#define JF_X(sym) JF_REJECTED_OPERATOR(sym, (rejected_operands<L, R>))
JF_X(+) JF_X(-) JF_X(*) JF_X(/) JF_X(%) JF_X(&) JF_X(|) JF_X(^) JF_X(==) JF_X(!=) JF_X(<) JF_X(<=) JF_X(>) JF_X(>=)
JF_X(&&) JF_X(||)
#undef JF_X
// Shifts only with the array on the left: `stream << x` (printing) must stay the stream's.
JF_REJECTED_OPERATOR(<<, (lazy_operand<L> && !operand<R>))
JF_REJECTED_OPERATOR(>>, (lazy_operand<L> && !operand<R>))
#undef JF_REJECTED_OPERATOR

template <lazy_operand A> auto operator-(A&& a) { return make_call<fn<op::negative>>(std::forward<A>(a)); }
template <lazy_operand A> auto operator+(A&& a) { return capture(std::forward<A>(a)); }
template <lazy_operand A> auto operator!(A&& a) { return make_call<fn<op::logical_not>>(std::forward<A>(a)); }
template <lazy_operand A> auto operator~(A&& a) { return make_call<fn<op::invert>>(std::forward<A>(a)); }

}  // namespace jf
