// x(i, j, k): numpy's x[i, j, k] with three integer index arrays or expressions broadcast together
// (1-d bool masks among them: their nonzero() positions). It reads as ONE fused gather: a take
// along the first axis of a view of x's memory that walks it element by element, at the offsets
// i * s0 + j * s1 + k * s2 of x's strides, each index checked along its own axis in the kernel
// (numpy's IndexError naming axis 0, 1 or 2, i's failures before j's before k's). No copy, any
// strides (negative ones: the offsets are shifted to the view's lowest element). The result has
// the indices' broadcast shape + x.shape[3:]. x(i, j, k) = v and the compound assignments scatter
// through the same view (of duplicate triples the last one wins, as numpy). Where an indexed axis
// is empty the indices are checked on the host (nothing may be read). The same gather gives
// x(range, i, j) (numpy's x[a:b, i, j], its index axes kept after the sliced one;
// expr/mixed_indexing.hpp). Not yet: four or more index arrays, three mixed with integers and
// slices, two after two or more slices.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/scatter.hpp"
#include "jetfuse/expr/take.hpp"

namespace jf {

// The node of x(i, j, k)'s offsets: i, j, k, then x's three lengths, its three strides and the
// shift (int64 scalar leaves; lowered by lower_triple_position). A0..A2: the axes numpy's
// IndexError names for i, j and k.
template <int A0, int A1, int A2>
struct triple_position_fn {};

template <int A0, int A1, int A2, class I, class J, class K, class N>
struct type_of_impl<call_node<triple_position_fn<A0, A1, A2>, I, J, K, N, N, N, N, N, N, N>> {
  static constexpr operand_type value = strong(dtype::int64);
};
template <int A0, int A1, int A2, class I, class J, class K, class N>
struct leaf_counts<call_node<triple_position_fn<A0, A1, A2>, I, J, K, N, N, N, N, N, N, N>> {
  static constexpr int arrays = leaf_counts<I>::arrays + leaf_counts<J>::arrays + leaf_counts<K>::arrays;
  static constexpr int scalars = leaf_counts<I>::scalars + leaf_counts<J>::scalars + leaf_counts<K>::scalars + 7;
  static constexpr int reductions =
      leaf_counts<I>::reductions + leaf_counts<J>::reductions + leaf_counts<K>::reductions;
  static constexpr int nest_only =
      1 + leaf_counts<I>::nest_only + leaf_counts<J>::nest_only + leaf_counts<K>::nest_only;
};

namespace detail {

template <int A0, int A1, int A2, class I, class J, class K, class N>
struct program_of<call_node<triple_position_fn<A0, A1, A2>, I, J, K, N, N, N, N, N, N, N>> {
  static constexpr prog_entry self{prog_entry::elementwise, 10, triple_positions_mode};
  static constexpr auto value =
      concat_programs(std::array<prog_entry, 1>{self}, program_of<I>::value, program_of<J>::value, program_of<K>::value,
                      program_of<N>::value, program_of<N>::value, program_of<N>::value, program_of<N>::value,
                      program_of<N>::value, program_of<N>::value, program_of<N>::value);
};

template <int A0, int A1, int A2, class I, class J, class K, class N>
struct lower_type<call_node<triple_position_fn<A0, A1, A2>, I, J, K, N, N, N, N, N, N, N>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const ir::domain_id home = home_domain(in, c.region);
    const ir::node_id index[3] = {lower_cast(g, lower_type<I>::run(g, in, c, type_of_v<I>.type), dtype::int64, home),
                                  lower_cast(g, lower_type<J>::run(g, in, c, type_of_v<J>.type), dtype::int64, home),
                                  lower_cast(g, lower_type<K>::run(g, in, c, type_of_v<K>.type), dtype::int64, home)};
    ir::node_id n[3], s[3];
    for (ir::node_id& v : n) v = lower_type<N>::run(g, in, c, dtype::int64);
    for (ir::node_id& v : s) v = lower_type<N>::run(g, in, c, dtype::int64);
    const ir::node_id shift = lower_type<N>::run(g, in, c, dtype::int64);
    const int axes[3] = {A0, A1, A2};
    return lower_triple_position(g, home, index, n, s, shift, axes);
  }
};

// Where an indexed axis of x is empty: the index arrays (int64) checked on the host in numpy's
// order, with its messages; returns when they select nothing (src/core/index_pair.cpp).
void raise_for_empty_axes(const shape_t& x, const array_base* const* index, const int* axes, int count);
// The index arrays checked on the host against `lengths`, numpy's order and messages.
void check_indices_on_host(const shape_t& lengths, const array_base* const* index, const int* axes, int count);
// The index arrays' broadcast shape, or numpy's IndexError "shape mismatch: indexing arrays could
// not be broadcast together with shapes ...".
shape_t index_broadcast_shape(const shape_t* shapes, int count);

}  // namespace detail

// What x(i, j, k) gives: the take of the offsets from the element-by-element view, which takes
// assignments into x (x itself kept: numpy's "assignment destination is read-only" for a
// broadcast x, whose view would not say so).
template <class T, class P>
class indexed_triple
    : public detail::assignable_index<
          indexed_triple<T, P>, call_node<take_fn<ir::gather_mode::raise, 0>, term<array<T>>, P, term<std::int64_t>>> {
  using base =
      detail::assignable_index<indexed_triple<T, P>,
                               call_node<take_fn<ir::gather_mode::raise, 0>, term<array<T>>, P, term<std::int64_t>>>;
  friend base;

 public:
  using typename base::node_type;
  indexed_triple(node_type n, array<T> x) : base(std::move(n)), x_(std::move(x)) {}
  indexed_triple(const indexed_triple&) = default;
  indexed_triple(indexed_triple&&) noexcept = default;
  using base::operator=;
  // x(i, j, k) = y(p, q, r): assigns the values (not the expression).
  const indexed_triple& operator=(const indexed_triple& v) const { return assign(static_cast<const node_type&>(v)); }
  JF_INDEXED_COMPOUND_ASSIGNMENTS(indexed_triple, "x(i, j, k)")

 private:
  array<T> x_;

  template <class V>
  const indexed_triple& assign(V&& v, std::string* explained = nullptr) const {
    detail::require_writable(x_);
    const array<T>& view = this->elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    detail::scatter_into<detail::scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(
        view, this->elements[hana::llong_c<2>], capture(std::forward<V>(v)), explained, 0);
    return *this;
  }
};

template <class T, class P>
struct is_lazy_expr<indexed_triple<T, P>> : std::true_type {};
template <class T, class P>
struct node_of<indexed_triple<T, P>> {
  using type = typename indexed_triple<T, P>::node_type;
};

namespace detail {

// x(i, j, k) on x or on a view of it (A0..A2: the axes numpy's messages name).
template <int A0, int A1, int A2, class T, class I, class J, class K>
auto make_index_triple(const array<T>& x, const I& i, const J& j, const K& k) {
  static_assert(is_integer(type_of_v<capture_t<const I&>>.type) && is_integer(type_of_v<capture_t<const J&>>.type) &&
                    is_integer(type_of_v<capture_t<const K&>>.type),
                "jetfuse: x(i, j, k) takes integer (or 1-d bool) index arrays or expressions");
  using N = term<std::int64_t>;
  using F = triple_position_fn<A0, A1, A2>;
  using P = call_node<F, capture_t<const I&>, capture_t<const J&>, capture_t<const K&>, N, N, N, N, N, N, N>;
  const shape_t& sh = x.shape();
  const strides_t& st = x.strides();
  bool empty = false;
  std::int64_t low = 0, high = 0;  // the lowest and highest offsets of x's first three axes
  for (int a = 0; a < 3; ++a) {
    empty = empty || sh[a] == 0;
    (st[a] < 0 ? low : high) += (sh[a] - 1) * st[a];
  }
  if (empty) {  // nothing may be read: the indices checked on the host
    const array<std::int64_t> ii = astype<std::int64_t>(capture(i)), jj = astype<std::int64_t>(capture(j)),
                              kk = astype<std::int64_t>(capture(k));
    const array_base* index[3] = {&ii, &jj, &kk};
    const int axes[3] = {A0, A1, A2};
    raise_for_empty_axes(sh, index, axes, 3);
    low = high = 0;
  }
  // The view: its first axis every element from x's lowest offset to its highest, then x's other axes.
  shape_t vs{empty ? 0 : high - low + 1};
  strides_t vst{1};
  for (int a = 3; a < x.ndim(); ++a) {
    vs.push_back(sh[a]);
    vst.push_back(st[a]);
  }
  const array<T> view(array_base(x.buffer(), x.dtype(), vs, vst, x.offset() + low));
  auto n = [](std::int64_t v) { return N{hana::tuple<std::int64_t>(v)}; };
  const P offsets{
      hana::tuple<term<F>, capture_t<const I&>, capture_t<const J&>, capture_t<const K&>, N, N, N, N, N, N, N>(
          term<F>{hana::tuple<F>(F{})}, capture(i), capture(j), capture(k), n(sh[0]), n(sh[1]), n(sh[2]), n(st[0]),
          n(st[1]), n(st[2]), n(-low))};
  return indexed_triple<T, P>(make_take<ir::gather_mode::raise, 0>(view, offsets, 0, false), x);
}

// x(range, i, j) (numpy's x[a:b, i, j], the index axes kept in place after the sliced one) on the
// view v whose axes 1 and 2 are indexed: its axis 0 becomes a third index array, arange(n0) shaped
// (n0, 1, ..., 1), in front of i and j, so the one gather's result is numpy's (n0,) + S + v's axes
// after 2. i and j are evaluated first (S's rank places the arange's axis). numpy checks them even
// when nothing is read: on the host then.
template <int A1, int A2, class T, class I, class J>
auto make_sliced_pair(const array<T>& v, const I& i, const J& j) {
  const array<std::int64_t> ii = astype<std::int64_t>(capture(i)), jj = astype<std::int64_t>(capture(j));
  const shape_t both[2] = {ii.shape(), jj.shape()};
  const shape_t s = index_broadcast_shape(both, 2);  // numpy's message names i's and j's shapes
  const shape_t& vs = v.shape();
  if (vs[0] == 0 || vs[1] == 0 || vs[2] == 0) {
    const array_base* index[2] = {&ii, &jj};
    const int axes[2] = {A1, A2};
    check_indices_on_host(shape_t{vs[1], vs[2]}, index, axes, 2);
  }
  shape_t bs{vs[0]};
  for (int k = 0; k < s.size(); ++k) bs.push_back(1);
  const array<std::int64_t> b = arange<std::int64_t>(0, vs[0], 1, v.device()).reshape(bs);
  return make_index_triple<0, A1, A2>(v, b, ii, jj);  // b is always in range
}

}  // namespace detail

template <class T>
template <class I, class J, class K>
requires(detail::index_operands<I, J, K> == 3) auto array<T>::operator()(const I& i, const J& j, const K& k) const {
  static_assert(lazy_operand<I> && lazy_operand<J> && lazy_operand<K>,
                "jetfuse: x(i, j, k) takes integer arrays or expressions (or integers, jf::range and jf::all)");
  if (is_null()) throw value_error("jetfuse: x(i, j, k) of a null array handle");
  if (ndim() < 3)
    throw index_error("too many indices for array: array is " + std::to_string(ndim()) +
                      "-dimensional, but 3 were indexed");
  // Bool masks: their nonzero() positions (numpy's x[mask, j, k]).
  decltype(auto) ii = detail::as_index_operand(i, shape()[0], 0);
  decltype(auto) jj = detail::as_index_operand(j, shape()[1], 1);
  decltype(auto) kk = detail::as_index_operand(k, shape()[2], 2);
  return detail::make_index_triple<0, 1, 2>(*this, ii, jj, kk);
}

}  // namespace jf
