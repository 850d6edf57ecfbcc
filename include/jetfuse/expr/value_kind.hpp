// What an expression's value is, from its type alone: dense (a jf::array), jagged (one value per
// element of each list: a jf::jagged), or option (one value per list, None for empty lists: a
// jf::option_array). Decides what jf::eval returns and what an expression may be assigned to.
#pragma once

#include <cstdint>
#include <type_traits>

#include "jetfuse/expr/expr.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/reducers.hpp"

namespace jf::detail {

enum class value_kind : std::uint8_t { dense, jagged, option };

template <class E> struct value_kind_of {
  static constexpr value_kind value = value_kind::dense;
};
template <class T> struct value_kind_of<term<jagged<T>>> {
  static constexpr value_kind value = value_kind::jagged;
};
template <class Tag, class... A> struct value_kind_of<call_node<Tag, A...>> {
  static constexpr value_kind value = ((value_kind_of<A>::value == value_kind::jagged) || ...) ? value_kind::jagged
                                      : ((value_kind_of<A>::value == value_kind::option) || ...) ? value_kind::option
                                                                                                  : value_kind::dense;
};
template <reducer R, class X> struct value_kind_of<call_node<reduce_fn<R>, X>> {
  static_assert(value_kind_of<X>::value != value_kind::option,
                "jetfuse: a reduction of per-list values that may be None; evaluate them and use "
                "jf::fill_none first");
  static constexpr value_kind value = value_kind_of<X>::value != value_kind::jagged ? value_kind::dense
                                      : none_for_empty(R)                          ? value_kind::option
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
