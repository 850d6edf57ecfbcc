// numpy.searchsorted(a, v, side) as an expression node: for each element of v (any array or
// expression), the index where it would be inserted into the sorted 1-d array a to keep it sorted
// (NaN sorts last, as numpy), compared in the dtype numpy would use. A binary search per element,
// fused with v's producer and the indices' consumer: jf::bincount(jf::searchsorted(edges, x)) bins
// by arbitrary edges in one kernel. a is not checked to be sorted (numpy does not either).
#pragma once

#include <cstdint>

#include "jetfuse/expr/take.hpp"

namespace jf {

namespace side {
struct left_t {};
struct right_t {};
inline constexpr left_t left{};
inline constexpr right_t right{};
}  // namespace side

template <bool Right> struct search_fn {};

template <bool Right, class X, class V, class A> struct type_of_impl<call_node<search_fn<Right>, X, V, A>> {
  static constexpr operand_type value = strong(dtype::int64);
};
template <bool Right, class X, class V, class A> struct leaf_counts<call_node<search_fn<Right>, X, V, A>> {
  static constexpr int arrays = 1 + leaf_counts<V>::arrays, scalars = leaf_counts<V>::scalars + 1;
  static constexpr int reductions = leaf_counts<V>::reductions, nest_only = 1 + leaf_counts<V>::nest_only;
};

namespace detail {

// The dtype a and v are compared in: numpy's promotion of the two (weak scalars included).
template <class X, class V> inline constexpr dtype search_dtype = op_types<op::less, X, V>::compute;

template <bool Right, class T, class V> auto make_search(const array<T>& a, V&& v) {
  if (a.is_null()) throw value_error("jf::searchsorted: the array is a null handle (default-constructed)");
  if (a.ndim() != 1) throw value_error("object too deep for desired array");  // numpy's words for a 2-d a
  using X = term<array<T>>;
  using A = term<std::int64_t>;  // the axis slot of the gather machinery: always 0
  using C = call_node<search_fn<Right>, X, capture_t<V>, A>;
  return C{hana::tuple<term<search_fn<Right>>, X, capture_t<V>, A>(
      term<search_fn<Right>>{hana::tuple<search_fn<Right>>(search_fn<Right>{})}, X{hana::tuple<array<T>>(a)},
      capture(std::forward<V>(v)), A{hana::tuple<std::int64_t>(0)})};
}

template <bool Right, class X, class V, class A> struct tree<call_node<search_fn<Right>, X, V, A>> {
  template <dtype Target>
  static void gather(const call_node<search_fn<Right>, X, V, A>& e, const array_base** arrays, scalar_slot* scalars,
                     reduce_spec* specs, scalar_use) {
    arrays[0] = &e.elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    tree<V>::template gather<search_dtype<X, V>>(e.elements[hana::llong_c<2>], arrays + 1, scalars, specs,
                                                 scalar_use::value);
    tree<A>::template gather<dtype::int64>(e.elements[hana::llong_c<3>], arrays, scalars + leaf_counts<V>::scalars,
                                            specs, scalar_use::value);
  }
};

template <bool Right, class X, class V, class A> struct lower_type<call_node<search_fn<Right>, X, V, A>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const int leaf = c.ai++;
    constexpr dtype cmp = search_dtype<X, V>;
    ir::node_id value = lower_cast(g, lower_type<V>::run(g, in, c, cmp), cmp, home_domain(in, c.region));
    ++c.si;  // the axis slot
    return lower_search(g, in, leaf, value, Right);
  }
};

}  // namespace detail

// numpy.searchsorted(a, v) (side='left'): the first index i with !(a[i] < v).
template <class T, lazy_operand V> auto searchsorted(const array<T>& a, V&& v) {
  return detail::make_search<false>(a, std::forward<V>(v));
}
template <class T, lazy_operand V> auto searchsorted(const array<T>& a, V&& v, side::left_t) {
  return detail::make_search<false>(a, std::forward<V>(v));
}
// side='right': the first index i with v < a[i].
template <class T, lazy_operand V> auto searchsorted(const array<T>& a, V&& v, side::right_t) {
  return detail::make_search<true>(a, std::forward<V>(v));
}

}  // namespace jf
