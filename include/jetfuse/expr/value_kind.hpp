// What an expression's value is, from its type alone: dense (a jf::array), jagged (one value per
// element of each list: a jf::jagged), or option (one value per list, None for empty lists: a
// jf::option_array); over nested lists (jf::jagged<jf::jagged<T>>): nested (one value per innermost
// element), nested_lists (one per inner list: a jf::jagged<T>), nested_option (one per inner list,
// None for an empty one: a jf::jagged_option<T>). Decides what jf::eval returns and what an
// expression may be assigned to.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "jetfuse/expr/expr.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/reducers.hpp"

namespace jf::detail {

// In increasing precedence: an operation's value is its operands' highest kind (an expression
// mixing nested and plain jagged operands is refused when evaluated).
enum class value_kind : std::uint8_t { dense, option, jagged, nested_lists, nested_option, nested };

template <class E> struct value_kind_of {
  static constexpr value_kind value = value_kind::dense;
};
template <class T> struct value_kind_of<term<jagged<T>>> {
  static constexpr value_kind value = value_kind::jagged;
};
template <class T> struct value_kind_of<term<option_array<T>>> {  // an evaluated option operand
  static constexpr value_kind value = value_kind::option;
};
template <class T> struct value_kind_of<term<jagged<jagged<T>>>> {
  static constexpr value_kind value = value_kind::nested;
};
constexpr value_kind highest(std::initializer_list<value_kind> k) {
  value_kind h = value_kind::dense;
  for (value_kind x : k) h = x > h ? x : h;
  return h;
}
template <class Tag, class... A> struct value_kind_of<call_node<Tag, A...>> {
  static constexpr value_kind value = highest({value_kind::dense, value_kind_of<A>::value...});
};
template <reducer R, class X> struct value_kind_of<call_node<reduce_fn<R>, X>> {
  static constexpr value_kind x = value_kind_of<X>::value;
  static_assert(x != value_kind::option && x != value_kind::nested_option,
                "jetfuse: a reduction of per-list values that may be None; evaluate them and use "
                "jf::fill_none first");
  static_assert(x != value_kind::nested_lists,
                "jetfuse: a reduction of per-inner-list values of a nested array is not supported yet; "
                "evaluate them into a jf::jagged first");
  static constexpr value_kind value = x == value_kind::nested ? (none_for_empty(R) ? value_kind::nested_option
                                                                                   : value_kind::nested_lists)
                                      : x != value_kind::jagged ? value_kind::dense
                                      : none_for_empty(R)       ? value_kind::option
                                                                : value_kind::dense;
};
// A reduction of a jagged operand at the root of an expression: with axis=0 (or -2) it reduces
// across the lists (Awkward's axis=0), which the conversions run through reduce_across_lists
// (jagged_across.hpp) instead of the engine's loop over the lists.
template <class N> struct reduction_of_lists : std::false_type {};
template <reducer R, class X>
struct reduction_of_lists<call_node<reduce_fn<R>, X>> : std::bool_constant<value_kind_of<X>::value == value_kind::jagged> {};
template <class E> bool across_lists(const E& e) {
  const reduce_spec& sp = e.elements[hana::llong_c<0>].elements[hana::llong_c<0>].spec;
  return !sp.all_axes && sp.naxes == 1 && (sp.axes[0] == 0 || sp.axes[0] == -2);
}
template <class T, class E> array<T> reduce_across_lists(const E& e);  // jagged_across.hpp

template <class E> inline constexpr value_kind value_kind_v = value_kind_of<std::remove_cvref_t<capture_t<E>>>::value;
template <class... E> inline constexpr bool all_dense = ((value_kind_v<E> == value_kind::dense) && ...);

}  // namespace jf::detail
