// x(mask) over jagged values (Awkward's x[mask] with a jagged boolean mask of the same lists): the
// elements, or combinations, where the mask holds. Not materialised: the mask becomes a guard that
// the per-list reduction consuming the value skips on (`jf::max(m(e1q != e2q), -1)` is one loop
// with an `if`), carried up through element-wise operations (x(m) * 2 + 1). Differences from
// Awkward, documented in docs/user-guide.md: x(m) + y with y unmasked is (x + y)(m) (Awkward
// raises when m removes an element: the lists' lengths differ). `jf::jagged<T> y = x(m)`
// materialises the selected elements (materialise_selection: a few kernels); so does
// jf::argmin/argmax(x(m), -1), whose answer is a position among the selected (below).
#pragma once

#include <type_traits>

#include "jetfuse/expr/compaction.hpp"
#include "jetfuse/expr/jagged_expr.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/expr/value_kind.hpp"
#include "jetfuse/jagged.hpp"

namespace jf {

struct select_fn {};
template <class X, class M> struct type_of_impl<call_node<select_fn, X, M>> {
  static constexpr operand_type value = strong(type_of_v<X>.type);
};

namespace detail {

template <class X, class M> struct lower_type<call_node<select_fn, X, M>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    ir::node_id nodes[2] = {}, guards[2] = {};
    c.guard = ir::no_node;
    nodes[0] = lower_type<X>::run(g, in, c, type_of_v<X>.type);
    guards[0] = c.guard;
    c.guard = ir::no_node;
    nodes[1] = lower_cast(g, lower_type<M>::run(g, in, c, dtype::bool_), dtype::bool_, home_domain(in, c.region));
    guards[1] = c.guard;
    // x(m1)(m2): m2 selects among x(m1)'s elements (it carries m1 when computed from x(m1)).
    const ir::node_id before = merge_guards(g, nodes, guards, 2);
    c.guard = before == ir::no_node ? nodes[1]
                                    : lower_operation(g, op::logical_and, dtype::bool_,
                                                      std::array<ir::node_id, 2>{before, nodes[1]}.data(), 2,
                                                      home_domain(in, c.region));
    return nodes[0];
  }
};

template <class X, class M> struct is_selection<call_node<select_fn, X, M>> : std::true_type {};

// y = x(mask) assigned to a jagged array: x and the mask evaluated over their lists, the selected
// elements compacted in order (numpy's x[mask] of the flattened content: one count, one fused
// compaction) and cut into lists by the per-list counts (jf::unflatten). A few kernels and one
// synchronisation (the count), not one fused loop.
template <class T, class E> jagged<T> materialise_selection(const E& e) {
  using X = std::remove_cvref_t<decltype(e.elements[hana::llong_c<1>])>;
  const jagged<T> values = [&] {
    if constexpr (std::is_same_v<X, term<jagged<T>>>) return e.elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    else return jagged<T>(e.elements[hana::llong_c<1>]);
  }();
  const jagged<bool> mask(e.elements[hana::llong_c<2>]);
  check_same_lists(values.offsets(), mask.offsets());
  const array<bool> selected = flatten(mask);
  const array<T> content = flatten(values)(selected);
  return unflatten(content, array<std::int64_t>(count_nonzero(mask, -1)));
}

template <class X, class M> auto select_where(const X& x, const M& mask) {
  static_assert(value_kind_v<X> == value_kind::jagged && value_kind_v<M> == value_kind::jagged,
                "jetfuse: x(mask) of an expression needs a jagged x and a jagged boolean mask of the same lists "
                "(Awkward's x[mask]); a dense x(mask) is numpy's compaction: evaluate the expression first");
  return make_call<select_fn>(x, mask);
}

}  // namespace detail

// e(mask) for a jagged expression e (the member operator() of jf::expr forwards here).
template <class X, class M>
  requires(is_lazy_expr<std::remove_cvref_t<X>>::value || is_jagged_v<X>)
auto select_where(const X& x, const M& mask) {
  return detail::select_where(x, mask);
}

// argmin/argmax of x(m) (of elements, combinations or cartesian pairs): Awkward's position among
// the selected, None where none is. A fused guarded reduction finds the best element's position in
// the whole list, not its rank among the selected, so the selection is materialised first (the
// selected values in order, cut into lists: materialise_selection) when jf::argmax is called, and
// the unmasked argmax, with its ties and NaN rules, runs on that. With an axis it is evaluated then
// (a jf::option_array): a lazy reduction over lists of other lengths could not sit beside other
// per-list values of x in one expression; an evaluated one is an option operand there. Other
// reducers of x(m) stay fused.
template <class X>
concept selected_jagged = lazy_operand<X> && detail::is_selection<typename node_of<std::remove_cvref_t<X>>::type>::value;

namespace detail {
template <class X> auto selected_values(const X& x) {
  return materialise_selection<value_type_t<capture_t<const X&>>>(x);
}
}  // namespace detail

#define JF_SELECTED_ARG_FUNCTION(fname)                                                                          \
  template <selected_jagged X> auto fname(X&& x) { return fname(detail::selected_values(x)); }                   \
  template <selected_jagged X> auto fname(X&& x, int axis) { return eval(fname(detail::selected_values(x), axis)); } \
  template <selected_jagged X> auto fname(X&& x, keepdims_t k) { return fname(detail::selected_values(x), k); } \
  template <selected_jagged X> auto fname(X&& x, int axis, keepdims_t k) {                                      \
    return fname(detail::selected_values(x), axis, k);                                                          \
  }
JF_SELECTED_ARG_FUNCTION(argmin)
JF_SELECTED_ARG_FUNCTION(argmax)
#undef JF_SELECTED_ARG_FUNCTION

}  // namespace jf
