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
// expr/mixed_indexing.hpp), and numpy's general case there (x(i, j, k, l), x(jf::all, i, j, k),
// x(r, r, i, j), ...): the same node with N index arrays (index_positions_fn<Axes...>).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/scatter.hpp"
#include "jetfuse/expr/take.hpp"

namespace jf {

// The node of x(i, j, k, ...)'s offsets: the N indices, then x's N lengths, its N strides and the
// shift (int64 scalar leaves; lowered by lower_index_positions). Axes: the axes numpy's IndexError
// names for each index.
template <int... Axes>
struct index_positions_fn {};

template <int... Axes, class... A>
struct type_of_impl<call_node<index_positions_fn<Axes...>, A...>> {
  static constexpr operand_type value = strong(dtype::int64);
};
template <int... Axes, class... A>
struct leaf_counts<call_node<index_positions_fn<Axes...>, A...>> {
  static constexpr int arrays = (0 + ... + leaf_counts<A>::arrays);
  static constexpr int scalars = (0 + ... + leaf_counts<A>::scalars);
  static constexpr int reductions = (0 + ... + leaf_counts<A>::reductions);
  static constexpr int nest_only = 1 + (0 + ... + leaf_counts<A>::nest_only);
};

namespace detail {

template <int... Axes, class... A>
struct program_of<call_node<index_positions_fn<Axes...>, A...>> {
  static_assert(sizeof...(A) == 3 * sizeof...(Axes) + 1, "jetfuse: internal: an index positions node's arguments");
  static constexpr prog_entry self{prog_entry::elementwise, static_cast<std::int8_t>(sizeof...(A)),
                                   index_positions_mode};
  static constexpr auto value = concat_programs(std::array<prog_entry, 1>{self}, program_of<A>::value...);
};

template <int... Axes, class... A>
struct lower_type<call_node<index_positions_fn<Axes...>, A...>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    constexpr int count = sizeof...(Axes);
    const ir::domain_id home = home_domain(in, c.region);
    const ir::node_id v[] = {lower_type<A>::run(g, in, c, type_of_v<A>.type)...};  // in program order
    ir::node_id index[count];
    for (int k = 0; k < count; ++k) index[k] = lower_cast(g, v[k], dtype::int64, home);
    const int axes[count] = {Axes...};
    return lower_index_positions(g, home, index, v + count, v + 2 * count, v[3 * count], axes, count);
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

// What x(i, j, k, ...) gives: the take of the offsets from the element-by-element view, which takes
// assignments into x (x itself kept: numpy's "assignment destination is read-only" for a
// broadcast x, whose view would not say so).
template <class T, class P>
class indexed_tuple
    : public detail::assignable_index<
          indexed_tuple<T, P>, call_node<take_fn<ir::gather_mode::raise, 0>, term<array<T>>, P, term<std::int64_t>>> {
  using base =
      detail::assignable_index<indexed_tuple<T, P>,
                               call_node<take_fn<ir::gather_mode::raise, 0>, term<array<T>>, P, term<std::int64_t>>>;
  friend base;

 public:
  using typename base::node_type;
  indexed_tuple(node_type n, array<T> x) : base(std::move(n)), x_(std::move(x)) {}
  indexed_tuple(const indexed_tuple&) = default;
  indexed_tuple(indexed_tuple&&) noexcept = default;
  using base::operator=;
  // x(i, j, k) = y(p, q, r): assigns the values (not the expression).
  const indexed_tuple& operator=(const indexed_tuple& v) const { return assign(static_cast<const node_type&>(v)); }
  JF_INDEXED_COMPOUND_ASSIGNMENTS(indexed_tuple, "x(i, j, k)")

 private:
  array<T> x_;

  template <class V>
  const indexed_tuple& assign(V&& v, std::string* explained = nullptr) const {
    detail::require_writable(x_);
    const array<T>& view = this->elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    detail::scatter_into<detail::scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(
        view, this->elements[hana::llong_c<2>], capture(std::forward<V>(v)), explained, 0);
    return *this;
  }
};

template <class T, class P>
struct is_lazy_expr<indexed_tuple<T, P>> : std::true_type {};
template <class T, class P>
struct node_of<indexed_tuple<T, P>> {
  using type = typename indexed_tuple<T, P>::node_type;
};

namespace detail {

// The call node of index_positions_fn<Axes...> with operands C... and 2N + 1 int64 scalars.
template <class F, class Seq, class... C>
struct positions_node;
template <class F, std::size_t... K, class... C>
struct positions_node<F, std::index_sequence<K...>, C...> {
  template <std::size_t>
  using scalar = term<std::int64_t>;
  using type = call_node<F, C..., scalar<K>...>;
  static type make(const C&... c, const std::int64_t* values) {
    return type{hana::tuple<term<F>, C..., scalar<K>...>(term<F>{hana::tuple<F>(F{})}, c...,
                                                         scalar<K>{hana::tuple<std::int64_t>(values[K])}...)};
  }
};

// x(i, j, k, ...) on x or on a view of it: its first N axes indexed by the N operands (Axes: the
// axes numpy's messages name), the others kept.
template <int... Axes, class T, class... Ops>
auto make_index_positions(const array<T>& x, const Ops&... ops) {
  constexpr int count = sizeof...(Axes);
  static_assert(sizeof...(Ops) == count, "jetfuse: internal: an index per indexed axis");
  static_assert((is_integer(type_of_v<capture_t<const Ops&>>.type) && ...),
                "jetfuse: x(i, j, k, ...) takes integer (or 1-d bool) index arrays or expressions");
  using F = index_positions_fn<Axes...>;
  using node = positions_node<F, std::make_index_sequence<2 * count + 1>, capture_t<const Ops&>...>;
  using P = typename node::type;
  const shape_t& sh = x.shape();
  const strides_t& st = x.strides();
  bool empty = false;
  std::int64_t low = 0, high = 0;  // the lowest and highest offsets of x's indexed axes
  for (int a = 0; a < count; ++a) {
    empty = empty || sh[a] == 0;
    (st[a] < 0 ? low : high) += (sh[a] - 1) * st[a];
  }
  if (empty) {  // nothing may be read: the indices checked on the host
    const std::array<array<std::int64_t>, count> evaluated{array<std::int64_t>(astype<std::int64_t>(capture(ops)))...};
    std::array<const array_base*, count> index;
    for (int a = 0; a < count; ++a) index[static_cast<std::size_t>(a)] = &evaluated[static_cast<std::size_t>(a)];
    const int axes[count] = {Axes...};
    raise_for_empty_axes(sh, index.data(), axes, count);
    low = high = 0;
  }
  // The view: its first axis every element from x's lowest offset to its highest, then x's other axes.
  shape_t vs{empty ? 0 : high - low + 1};
  strides_t vst{1};
  for (int a = count; a < x.ndim(); ++a) {
    vs.push_back(sh[a]);
    vst.push_back(st[a]);
  }
  const array<T> view(array_base(x.buffer(), x.dtype(), vs, vst, x.offset() + low));
  std::int64_t values[2 * count + 1];
  for (int a = 0; a < count; ++a) {
    values[a] = sh[a];
    values[count + a] = st[a];
  }
  values[2 * count] = -low;
  const P offsets = node::make(capture(ops)..., values);
  return indexed_tuple<T, P>(make_take<ir::gather_mode::raise, 0>(view, offsets, 0, false), x);
}

// x(i, j, k) on x or on a view of it (A0..A2: the axes numpy's messages name).
template <int A0, int A1, int A2, class T, class I, class J, class K>
auto make_index_triple(const array<T>& x, const I& i, const J& j, const K& k) {
  return make_index_positions<A0, A1, A2>(x, i, j, k);
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
