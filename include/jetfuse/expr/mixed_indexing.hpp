// numpy's advanced indexing mixed with basic indexing: x(a, b, ...) with integer index arrays or
// expressions (the operands) among integers, jf::range and jf::all — x(jf::all, cols),
// x(rows, jf::range(1, 3)), x(2, jf::all, i), x(i, j, 0), x(i, jf::range(2, 5), j),
// x(jf::all, i, j), x(i, j, k, l), x(r, r, i, j).
//
// numpy's rule for where the operands' broadcast axes go: integers beside operands are advanced
// indices too; when the advanced indices are next to each other the broadcast axes replace them in
// place, when a slice separates them they come first. Reading is a take (one operand) or an index
// pair (two) on a view of x: the basic indices applied (integers remove their axes), the indexed
// axes moved where the gather wants them when numpy puts the result's axes first. Lazy, fused and
// checked in the kernel like jf::take; numpy's IndexError names x's axis. Assignment is the
// matching scatter into that view (x(jf::all, cols) = v: the values' axes moved with it).
// A 1-d bool mask among them is numpy's nonzero() of it (x(jf::all, mask), x(mask, 2)): its
// positions, evaluated when the expression is made (a count read back, as x(mask)), after numpy's
// check of its length. numpy's general case — two operands after slices whose axes numpy keeps in
// front of theirs (x(jf::all, i, j), x(r, r, i, j)), three or more operands (x(i, j, k, l),
// x(jf::all, i, j, k), x(i, jf::all, j, k)) — evaluates the operands, then reads with x(i, j, k)'s
// one gather (expr/index_triple.hpp) with N indices, the sliced axes in front as arange index
// arrays (make_advanced), up to max_index_operands operands. A mask of k > 1 axes as the only
// index array (x(jf::all, mask2d), x(2, mask2d)) indexes x's k axes merged into one (a view: where
// their strides do not merge, jf::value_error) by the flattened mask. Not supported: masks of more
// than one axis among other index arrays (numpy's nonzero() arrays, one per axis: jf::value_error).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jetfuse/expr/index_triple.hpp"
#include "jetfuse/expr/scatter.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/views.hpp"

namespace jf {

namespace detail {

// What an argument of x(...) is: an index operand, an integer (it removes its axis) or a slice.
enum class index_kind : char { operand, integer, slice };
template <class A>
constexpr index_kind index_kind_of() {
  if constexpr (is_index_operand<A>)
    return index_kind::operand;
  else if constexpr (std::is_integral_v<std::remove_cvref_t<A>>)
    return index_kind::integer;
  else
    return index_kind::slice;
}

// Where the operands are and where numpy puts their axes; only the arguments' kinds matter.
struct mixed_plan {
  int operands = 0;
  int position[max_index_operands] = {};   // the operands' argument positions: x's axes, which the messages name
  int view_axis[max_index_operands] = {};  // their axes in the view (the integers' axes removed)
  bool adjacent = true;         // the advanced indices (operands and integers) are next to each other
  int insert_at = 0;            // the view axis where the broadcast axes go when they are adjacent
};
// An argument that is not an operand, or an operand of integers or bools (numpy's IndexError
// "arrays used as indices must be of integer (or boolean) type" at compile time).
template <class A>
constexpr bool integer_or_bool_operand() {
  if constexpr (is_index_operand<A>) {
    if constexpr (!lazy_operand<std::remove_cvref_t<A>>)
      return false;
    else
      return is_integer(type_of_v<capture_t<const A&>>.type) || type_of_v<capture_t<const A&>>.type == dtype::bool_;
  } else {
    return true;
  }
}

// An operand of bools (a mask: numpy's nonzero() of it).
template <class A>
constexpr bool bool_index_operand() {
  if constexpr (is_index_operand<A> && lazy_operand<std::remove_cvref_t<A>>)
    return type_of_v<capture_t<const A&>>.type == dtype::bool_;
  else
    return false;
}

// f(args...) with argument Q replaced by v.
template <std::size_t Q, class Tuple, class V, class F>
decltype(auto) with_arg(const Tuple& args, const V& v, F&& f) {
  return [&]<std::size_t... K>(std::index_sequence<K...>)->decltype(auto) {
    return f([&]() -> decltype(auto) {
      if constexpr (K == Q)
        return (v);
      else
        return (std::get<K>(args));
    }()...);
  }
  (std::make_index_sequence<std::tuple_size_v<Tuple>>{});
}

template <std::size_t N>
constexpr mixed_plan plan_mixed(const std::array<index_kind, N>& k) {
  mixed_plan p;
  int first = -1, last = -1, integers = 0;
  for (int a = 0; a < static_cast<int>(N); ++a) {
    if (k[static_cast<std::size_t>(a)] == index_kind::slice) continue;
    if (first < 0) first = a;
    last = a;
    if (k[static_cast<std::size_t>(a)] == index_kind::integer) {
      ++integers;
    } else {
      p.position[p.operands] = a;
      p.view_axis[p.operands] = a - integers;
      ++p.operands;
    }
  }
  for (int a = first; a <= last; ++a)
    if (k[static_cast<std::size_t>(a)] == index_kind::slice) p.adjacent = false;
  for (int a = 0; a < first; ++a) p.insert_at += k[static_cast<std::size_t>(a)] == index_kind::slice;
  return p;
}

// numpy's "shape mismatch: value array of shape (3,) could not be broadcast to indexing result of
// shape (4,2)" unless `values` broadcasts to `result` (src/core/index_pair.cpp).
void check_values_fit(const shape_t& values, const shape_t& result);
// x(..., i, ...) along an empty axis: numpy's IndexError for i's first index, if it has one.
void raise_for_empty_take(const array_base& indices, int axis);

}  // namespace detail

// x(..., indices, ...) where numpy keeps the indices' axes in place after other axes of the view
// (x(jf::all, cols), x(jf::range(1, 3), i)): a take along view axis > 0 that takes assignments, the
// values' axes moved with the indexed one (v is evaluated first when it is an expression).
template <class T, class I, int Msg>
class indexed_axis
    : public detail::assignable_index<indexed_axis<T, I, Msg>, call_node<take_fn<ir::gather_mode::raise, Msg>,
                                                                         term<array<T>>, I, term<std::int64_t>>> {
  using base =
      detail::assignable_index<indexed_axis<T, I, Msg>,
                               call_node<take_fn<ir::gather_mode::raise, Msg>, term<array<T>>, I, term<std::int64_t>>>;
  friend base;

 public:
  using base::base;
  using typename base::node_type;
  indexed_axis(const indexed_axis&) = default;
  indexed_axis(indexed_axis&&) noexcept = default;
  using base::operator=;
  // x(p) = y(q): assigns the values (not the expression).
  const indexed_axis& operator=(const indexed_axis& v) const { return assign(static_cast<const node_type&>(v)); }
  JF_INDEXED_COMPOUND_ASSIGNMENTS(indexed_axis, "x(..., indices)")

 private:
  template <class V>
  const indexed_axis& assign(V&& v, std::string* explained = nullptr) const {
    const array<T>& view = this->elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    const int axis = static_cast<int>(this->elements[hana::llong_c<3>].elements[hana::llong_c<0>]);
    const array<T> target = moveaxis(view, axis, 0);
    // The indices evaluated (numpy evaluates them before it assigns): their shape places v's axes.
    const array<std::int64_t> indices = astype<std::int64_t>(this->elements[hana::llong_c<2>]);
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<V>>) {
      detail::scatter_into<detail::scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(
          target, capture(indices), capture(v), explained, Msg);
    } else {
      using W = cpp_type_t<type_of_v<capture_t<V>>.type>;
      const array<W> values = v;
      shape_t result, order;
      const int r = indices.ndim();
      for (int k = 0; k < axis; ++k) result.push_back(view.shape()[k]);
      for (int k = 0; k < r; ++k) result.push_back(indices.shape()[k]);
      for (int k = axis + 1; k < view.ndim(); ++k) result.push_back(view.shape()[k]);
      detail::check_values_fit(values.shape(), result);
      for (int k = 0; k < r; ++k) order.push_back(axis + k);  // the indices' axes first, as the target's
      for (int k = 0; k < result.size(); ++k)
        if (k < axis || k >= axis + r) order.push_back(k);
      const array<W> moved = broadcast_to(values, result).transpose(order);
      detail::scatter_into<detail::scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(
          target, capture(indices), capture(moved), explained, Msg);
    }
    return *this;
  }
};

template <class T, class I, int Msg>
struct is_lazy_expr<indexed_axis<T, I, Msg>> : std::true_type {};
template <class T, class I, int Msg>
struct node_of<indexed_axis<T, I, Msg>> {
  using type = typename indexed_axis<T, I, Msg>::node_type;
};

namespace detail {

template <class A>
index_arg basic_index(const A& a) {
  if constexpr (is_index_operand<A>)
    return index_arg(all);
  else
    return index_arg(a);
}

// The axis numpy's messages name for index k of make_advanced's gather: a leading sliced axis
// (never out of range) or operand k - lead's.
template <mixed_plan p, int lead, std::size_t k>
constexpr int advanced_axis() {
  return static_cast<int>(k) < lead ? static_cast<int>(k) : p.position[static_cast<int>(k) - lead];
}

// numpy's general case: three or more index operands among integers and slices, or two after one
// or more slices. Read with x(i, j, k, ...)'s one gather on the view with the indexed axes first
// (1-d bool masks as their nonzero()): when the advanced indices are adjacent numpy keeps the
// sliced axes before them in front, which become arange index arrays ahead of the operands (shaped
// to broadcast in front of theirs, so the operands are evaluated first for their broadcast shape);
// otherwise the operands are fused with the gather. Every other sliced axis stays a trailing axis
// of the gather. numpy checks the operands even when nothing is read (unless they broadcast to
// nothing): on the host then.
template <mixed_plan p, class T, class... A>
auto make_advanced(const array<T>& x, const array<T>& view, const A&... args) {
  constexpr int m = p.operands;
  constexpr int lead = p.adjacent ? p.insert_at : 0;
  constexpr int count = lead + m;
  using seq = std::make_index_sequence<static_cast<std::size_t>(m)>;
  const auto args_tuple = std::tie(args...);
  // The operands as the gather takes them (1-d masks: their positions, computed once).
  const auto operands = [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::make_tuple(as_index_operand(std::get<static_cast<std::size_t>(p.position[K])>(args_tuple),
                                            x.shape()[p.position[K]], p.position[K])...);
  }
  (seq{});
  const shape_t& vs = view.shape();
  shape_t order;
  for (int k = 0; k < lead; ++k) order.push_back(k);
  for (int k = 0; k < m; ++k) order.push_back(p.view_axis[k]);
  for (int k = 0; k < view.ndim(); ++k) {
    bool indexed = k < lead;
    for (int e = 0; e < m; ++e) indexed = indexed || p.view_axis[e] == k;
    if (!indexed) order.push_back(k);
  }
  const array<T> moved(view.transpose(order));
  if constexpr (lead == 0) {
    // No sliced axis in front: the operands go to the gather as they are, fused with it (as
    // x(i, j, k)'s), which broadcasts them (numpy's message) and checks them in the kernel, or on
    // the host where an indexed axis is empty.
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return make_index_positions<p.position[K]...>(moved, std::get<K>(operands)...);
    }
    (seq{});
  } else {
    // The sliced axes in front need the operands' broadcast shape: they are evaluated first (an
    // int64 array is used as it is: its handle, no copy).
    auto evaluated = [](const auto& o) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(o)>, array<std::int64_t>>)
        return o;
      else
        return array<std::int64_t>(astype<std::int64_t>(capture(o)));
    };
    const auto ops = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::array<array<std::int64_t>, static_cast<std::size_t>(m)>{evaluated(std::get<K>(operands))...};
    }
    (seq{});
    shape_t shapes[m];
    for (int k = 0; k < m; ++k) shapes[k] = ops[static_cast<std::size_t>(k)].shape();
    const shape_t b = index_broadcast_shape(shapes, m);
    // Where a sliced axis in front is empty the gather reads nothing and checks nothing (its
    // aranges are empty), but numpy checks the operands unless they broadcast to nothing: here.
    bool empty_front = false;
    for (int k = 0; k < lead; ++k) empty_front = empty_front || vs[k] == 0;
    if (empty_front && b.product() != 0) {
      shape_t lengths;
      const array_base* index[m];
      int axes[m];
      for (int k = 0; k < m; ++k) {
        lengths.push_back(vs[p.view_axis[k]]);
        index[k] = &ops[static_cast<std::size_t>(k)];
        axes[k] = p.position[k];
      }
      check_indices_on_host(lengths, index, axes, m);
    }
    std::array<array<std::int64_t>, static_cast<std::size_t>(count)> index;
    for (int k = 0; k < lead; ++k) {
      shape_t bs;
      for (int e = 0; e < lead + b.size(); ++e) bs.push_back(e == k ? vs[k] : 1);
      index[static_cast<std::size_t>(k)] = arange<std::int64_t>(0, vs[k], 1, view.device()).reshape(bs);
    }
    for (int k = 0; k < m; ++k) index[static_cast<std::size_t>(lead + k)] = ops[static_cast<std::size_t>(k)];
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return make_index_positions<advanced_axis<p, lead, K>()...>(moved, index[K]...);
    }
    (std::make_index_sequence<static_cast<std::size_t>(count)>{});
  }
}

// x(args...) once a mask operand is at most 1-d: the view of the basic indices, then a take, an
// index pair or numpy's general case (make_advanced). p: the plan of the arguments' kinds.
template <mixed_plan p, class T, class... A>
auto mixed_index(const array<T>& x, const A&... args) {
  static constexpr int a0 = p.position[0], a1 = p.operands == 2 ? p.position[1] : p.position[0];
  const auto& args_tuple = std::tie(args...);
  const index_arg basic[] = {basic_index(args)...};
  const array<T> view(slice(x, basic, static_cast<int>(sizeof...(A))));  // numpy's IndexError for too many
  if constexpr (p.operands >= 3 || (p.operands == 2 && p.adjacent && p.insert_at >= 1)) {
    return make_advanced<p>(x, view, args...);
  } else {
    // A 1-d bool mask is numpy's nonzero() of it along x's axis at its position (evaluated now).
    decltype(auto) i = as_index_operand(std::get<static_cast<std::size_t>(a0)>(args_tuple), x.shape()[a0], a0);
    using I = std::remove_cvref_t<decltype(i)>;
    if constexpr (p.operands == 1) {
      constexpr int axis = p.view_axis[0];
      if (view.shape()[axis] == 0) raise_for_empty_take(array<std::int64_t>(astype<std::int64_t>(capture(i))), a0);
      if constexpr (p.adjacent && axis > 0) {
        return indexed_axis<T, capture_t<const I&>, a0>(make_take<ir::gather_mode::raise, a0>(view, i, axis, false));
      } else {
        const array<T> moved = axis == 0 ? view : moveaxis(view, axis, 0);
        return indexed<T, capture_t<const I&>, a0>(make_take<ir::gather_mode::raise, a0>(moved, i, 0, false));
      }
    } else {
      decltype(auto) j = as_index_operand(std::get<static_cast<std::size_t>(a1)>(args_tuple), x.shape()[a1], a1);
      if constexpr (p.adjacent) {
        return make_index_pair<a0, a1>(view, i, j);  // the operands are the view's axes 0 and 1
      } else {
        shape_t order;
        order.push_back(p.view_axis[0]);
        order.push_back(p.view_axis[1]);
        for (int k = 0; k < view.ndim(); ++k)
          if (k != p.view_axis[0] && k != p.view_axis[1]) order.push_back(k);
        return make_index_pair<a0, a1>(array<T>(view.transpose(order)), i, j);
      }
    }
  }
}

}  // namespace detail

template <class T>
template <class... A>
requires(detail::mixed_index_args<A...>) auto array<T>::operator()(const A&... args) const {
  using detail::index_kind;
  static constexpr std::array<index_kind, sizeof...(A)> kinds{detail::index_kind_of<A>()...};
  static constexpr detail::mixed_plan p = detail::plan_mixed(kinds);
  static constexpr int a0 = p.position[0];
  const auto& args_tuple = std::tie(args...);
  static_assert((detail::integer_or_bool_operand<A>() && ...),
                "jetfuse: x(...) takes integers, jf::range, jf::all and integer (or 1-d bool) index arrays or "
                "expressions");
  if (is_null()) throw value_error("jetfuse: x(...) of a null array handle");
  using M = std::remove_cvref_t<std::tuple_element_t<static_cast<std::size_t>(a0), std::tuple<A...>>>;
  if constexpr (p.operands == 1 && detail::bool_index_operand<M>()) {
    // A mask as the only index array: numpy's nonzero() of it. One of k > 1 axes indexes x's axes
    // a0 .. a0 + k - 1, which merge into one (a view: their strides must allow it) indexed by the
    // flattened mask. An expression mask is evaluated once, here.
    const array<bool> m = std::get<static_cast<std::size_t>(a0)>(args_tuple);
    const int k = m.ndim();
    if (k <= 1)
      return detail::with_arg<static_cast<std::size_t>(a0)>(
          args_tuple, m, [&](const auto&... b) { return detail::mixed_index<p>(*this, b...); });
    // numpy's checks with x's own axes: too many indices, integers out of bounds, the mask's shape.
    std::vector<index_arg> all_axes;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (
          [&] {
            if constexpr (static_cast<int>(K) == a0)
              all_axes.insert(all_axes.end(), static_cast<std::size_t>(k), index_arg(all));
            else
              all_axes.push_back(detail::basic_index(std::get<K>(args_tuple)));
          }(),
          ...);
    }
    (std::index_sequence_for<A...>{});
    (void)detail::slice(*this, all_axes.data(), static_cast<int>(all_axes.size()));
    for (int d = 0; d < k; ++d) detail::check_mask_length(m.shape()[d], shape()[a0 + d], a0 + d);
    const array merged(detail::merged_axes(*this, a0, k));
    if (merged.is_null())
      throw value_error("jetfuse: x(..., mask, ...) with a mask of " + std::to_string(k) + " axes needs x's axes " +
                        std::to_string(a0) + " to " + std::to_string(a0 + k - 1) +
                        " to merge into one (this view's strides do not): index a copy of x, or pass "
                        "jf::nonzero(mask)'s arrays");
    const array<bool> flat = m.reshape({m.size()});
    return detail::with_arg<static_cast<std::size_t>(a0)>(
        args_tuple, flat, [&](const auto&... b) { return detail::mixed_index<p>(merged, b...); });
  } else {
    return detail::mixed_index<p>(*this, args...);
  }
}

}  // namespace jf
