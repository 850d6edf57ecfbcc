// Boolean-mask compaction, numpy's x[mask], compress, flatnonzero, nonzero and argwhere: the
// result's length depends on the data, so each first counts the selected elements (jf::count_nonzero
// of the mask, fused with it: one kernel), reads the count back (ONE synchronisation), allocates the
// result, then runs ONE fused kernel (launched twice on the GPU: tiles counted, then stored) that
// computes the mask, counts it (each selected element's position is the number selected before
// it, in C order) and stores the value, computed there too, at its position only where the mask
// holds. Integer counts are exact: the result is the same every run. src/engine/lower_reduction.cpp
// (lower_compaction) lowers it; src/cuda/codegen/shape_compaction.cpp generates the GPU kernel.
//
//   jf::array<double> y = x(x > 0);              // numpy's x[x > 0]
//   auto i = jf::flatnonzero(a * b);             // int64 positions of the nonzero elements
//   auto ij = jf::nonzero(m);                    // a std::vector of int64 arrays, one per axis
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/count_true.hpp"
#include "jetfuse/expr/masked.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/joining.hpp"

namespace jf {

// The node: the mask and the values (Indices: no values, the mask's indices instead).
template <bool Indices> struct compact_fn {
  detail::reduce_spec spec;
};
template <bool I> struct is_reduce_tag<compact_fn<I>> : std::true_type {};
template <class M, class V> struct type_of_impl<call_node<compact_fn<false>, M, V>> {
  static constexpr operand_type value = strong(type_of_v<V>.type);
};
template <class M> struct type_of_impl<call_node<compact_fn<true>, M>> {
  static constexpr operand_type value = strong(dtype::int64);
};

namespace detail {

template <bool Ix, class... A> struct tree<call_node<compact_fn<Ix>, A...>> {
  template <dtype Target>
  static void gather(const call_node<compact_fn<Ix>, A...>& e, const array_base** arrays, scalar_slot* scalars,
                     reduce_spec* specs, scalar_use) {
    specs[0] = e.elements[hana::llong_c<0>].elements[hana::llong_c<0>].spec;  // prefix order
    int ai = 0, si = 0, ri = 1;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (
          [&] {
            using Arg = std::tuple_element_t<I, std::tuple<A...>>;
            tree<Arg>::template gather<type_of_v<Arg>.type>(e.elements[hana::llong_c<I + 1>], arrays + ai, scalars + si,
                                                            specs + ri, scalar_use::value);
            ai += leaf_counts<Arg>::arrays;
            si += leaf_counts<Arg>::scalars;
            ri += leaf_counts<Arg>::reductions;
          }(),
          ...);
    }(std::index_sequence_for<A...>{});
  }
};

template <bool Ix, class... A> struct lower_type<call_node<compact_fn<Ix>, A...>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const int r = c.ri++;
    const int outer = c.region;
    c.region = r + 1;
    ir::node_id args[2] = {ir::no_node, ir::no_node};
    int k = 0;
    ((args[k++] = lower_type<A>::run(g, in, c, type_of_v<A>.type)), ...);
    c.region = outer;
    return lower_compaction(g, *in.nest, r, args[0], Ix ? ir::no_node : args[1]);
  }
};

template <bool Ix> compact_fn<Ix> compact_tag(std::int64_t count, int index_axis) {
  compact_fn<Ix> t;
  t.spec.kind = reducer::compact;
  t.spec.bins = count;
  t.spec.index_axis = index_axis;
  return t;
}
// The selected values of `value` where `mask` (the same shape) is nonzero, `count` of them.
template <class M, class V> auto values_node(const M& mask, const V& value, std::int64_t count) {
  using C = call_node<compact_fn<false>, M, V>;
  return C{hana::tuple<term<compact_fn<false>>, M, V>(term<compact_fn<false>>{hana::tuple<compact_fn<false>>(
                                                          compact_tag<false>(count, -1))},
                                                      mask, value)};
}
// Their indices along axis `axis` of the mask (-1: flat, C order).
template <class M> auto indices_node(const M& mask, std::int64_t count, int axis) {
  using C = call_node<compact_fn<true>, M>;
  return C{hana::tuple<term<compact_fn<true>>, M>(term<compact_fn<true>>{hana::tuple<compact_fn<true>>(
                                                      compact_tag<true>(count, axis))},
                                                  mask)};
}

// How many elements of the mask are nonzero, read back (a synchronisation): a bool array on the GPU
// by count_true_fast, anything else by one fused reduction.
template <class M>
std::int64_t count_selected(const M& mask) {
  if constexpr (std::is_same_v<M, term<array<bool>>>)
    if (const std::optional<std::int64_t> c = count_true_fast(mask.elements[hana::llong_c<0>])) return *c;
  return array<std::int64_t>(count_nonzero(mask)).item();
}

// The shape of a mask or an operand without evaluating it: an array's, or the broadcast shape of an
// element-wise expression's leaves; none for expressions whose shape their reductions decide.
template <class E> std::optional<shape_t> shape_of_operand(const E& e) {
  if constexpr (is_array_v<E>) {
    return e.shape();
  } else if constexpr (leaf_counts<E>::reductions == 0 && leaf_counts<E>::nest_only == 0) {
    gathered<E> g(e);
    return broadcast_leaves(g.arrays.data(), gathered<E>::A);
  } else {
    return std::nullopt;
  }
}

// x[mask] for a captured mask of known shape `ms`.
template <class T, class M> array<T> select(const array<T>& x, const M& mask, const shape_t& ms) {
  check_mask_shape(x.shape(), ms);
  if (ms.size() == x.ndim()) {
    const term<array<T>> xt{hana::tuple<array<T>>(x)};
    return array<T>(values_node(mask, xt, count_selected(mask)));
  }
  // A mask of lower rank selects whole rows: x's leading axes flattened, gathered at the mask's
  // flat positions (numpy's x[mask]).
  const std::int64_t count = count_selected(mask);
  const array<std::int64_t> rows(indices_node(mask, count, -1));
  shape_t s{ms.product()};
  for (int k = ms.size(); k < x.ndim(); ++k) s.push_back(x.shape()[k]);
  return array<T>(take(x.reshape(s), rows, 0));
}

// The flat positions of the nonzero elements of a captured operand.
template <class M> array<std::int64_t> flat_positions(const M& m) {
  return array<std::int64_t>(indices_node(m, count_selected(m), -1));
}

// A bool mask among other indices of x(...) (expr/take.hpp, as_index_operand): numpy's nonzero()
// of a 1-d mask along an axis of extent n, after numpy's check of its length.
template <class M>
array<std::int64_t> mask_positions(const M& mask, std::int64_t n, int axis) {
  const array<bool> m = mask;
  if (m.ndim() != 1)
    throw value_error("jetfuse: a bool mask among other indices must be 1-d here (numpy takes a " +
                      std::to_string(m.ndim()) +
                      "-d one as its nonzero() index arrays, one per axis): pass them, jf::nonzero(mask)");
  check_mask_length(m.shape()[0], n, axis);
  return flat_positions(capture(m));
}

// e as an array (evaluated when it is an expression).
template <class E> auto as_array(E&& e) {
  if constexpr (is_array_v<std::remove_cvref_t<E>>) return std::remove_cvref_t<E>(e);
  else return eval(std::forward<E>(e));
}

}  // namespace detail

// x(mask) read: numpy's x[mask], the selected elements in C order (1-d). The mask is a bool array
// or expression of x's shape (numpy's IndexError otherwise); a bool array of lower rank selects
// whole rows. An expression mask whose shape a reduction decides is evaluated first.
template <class T, class M> masked_assignment<T, M>::operator array<T>() const {
  if (target_.is_null()) throw value_error("jetfuse: x(mask) of a null array handle");
  const auto m = capture(mask_);
  if (const auto s = detail::shape_of_operand(m)) return detail::select(target_, m, *s);
  const array<bool> evaluated = m;
  return detail::select(target_, capture(evaluated), evaluated.shape());
}
template <class T, class M> array<T> eval(const masked_assignment<T, M>& selection) { return array<T>(selection); }

// numpy.flatnonzero(e): the int64 positions of e's nonzero elements in the flattened e (C order).
template <lazy_operand E> array<std::int64_t> flatnonzero(E&& e) { return detail::flat_positions(capture(std::forward<E>(e))); }

// numpy.nonzero(e): per axis of e an int64 array of the nonzero elements' indices along it (C
// order). jf::value_error for a 0-d e, as numpy 2.
template <lazy_operand E> std::vector<array<std::int64_t>> nonzero(E&& e) {
  auto m = capture(std::forward<E>(e));
  auto shape = detail::shape_of_operand(m);
  if (!shape) {  // a shape decided by reductions: evaluate first
    const auto v = eval(m);
    return nonzero(v);
  }
  if (shape->size() == 0) {
    std::string message = "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.";
    if (type_of_v<decltype(m)>.type == dtype::bool_)  // numpy's words for a 0-d condition
      message += " If the context of this error is of the form `arr[nonzero(cond)]`, just use `arr[cond]`.";
    throw value_error(message);
  }
  const std::int64_t count = detail::count_selected(m);
  std::vector<array<std::int64_t>> out;
  for (int k = 0; k < shape->size(); ++k) out.emplace_back(detail::indices_node(m, count, k));
  return out;
}

// numpy.argwhere(e): the indices of the nonzero elements, one row each, shape (count, e.ndim).
template <lazy_operand E> array<std::int64_t> argwhere(E&& e) {
  auto m = capture(std::forward<E>(e));
  auto shape = detail::shape_of_operand(m);
  if (!shape) {
    const auto v = eval(m);
    return argwhere(v);
  }
  if (shape->size() == 0) {  // numpy: (1, 0) or (0, 0)
    const array<std::int64_t> count(count_nonzero(m));
    return empty<std::int64_t>({count.item(), 0}, count.device());
  }
  return stack(nonzero(m), 1);
}

// numpy.compress(condition, a): the elements of the flattened a where the 1-d condition is nonzero
// (a condition shorter than a selects among its first elements; a longer one with a nonzero entry
// beyond a's end raises numpy's IndexError). When a is 1-d of the condition's length (an array or
// an element-wise expression), one fused compaction; otherwise a gather of the flattened a at the
// condition's nonzero positions (an expression a is evaluated first).
template <lazy_operand C, lazy_operand A> array<value_type_t<capture_t<A>>> compress(C&& condition, A&& a) {
  auto c = capture(std::forward<C>(condition));
  auto x = capture(std::forward<A>(a));
  using T = value_type_t<capture_t<A>>;
  const auto cs = detail::shape_of_operand(c);
  if (!cs) return compress(eval(c), x);
  if (cs->size() != 1) throw value_error("condition must be a 1-d array");
  const auto xs = detail::shape_of_operand(x);
  if (xs && xs->size() == 1 && (*xs)[0] == (*cs)[0])
    return array<T>(detail::values_node(c, x, detail::count_selected(c)));
  const array<T> arr = detail::as_array(x);
  return array<T>(take(arr, detail::flat_positions(c)));
}
// numpy.compress(condition, a, axis): the slices of a along axis where the 1-d condition is nonzero.
template <lazy_operand C, lazy_operand A>
array<value_type_t<capture_t<A>>> compress(C&& condition, A&& a, int axis) {
  auto c = capture(std::forward<C>(condition));
  using T = value_type_t<capture_t<A>>;
  const auto cs = detail::shape_of_operand(c);
  if (!cs) return compress(eval(c), std::forward<A>(a), axis);
  if (cs->size() != 1) throw value_error("condition must be a 1-d array");
  const array<T> arr = detail::as_array(std::forward<A>(a));
  return array<T>(take(arr, detail::flat_positions(c), axis));
}

}  // namespace jf
