// numpy.take as an expression node: jf::take(x, indices) reads x at the positions an integer array
// or expression gives, fused with the expression that computes the indices and with what consumes
// the result (jf::sqrt(jf::take(x, perm) * 2) is one kernel). Every index is checked inside the
// kernel: an out-of-range one raises jf::index_error with numpy's message when the evaluation
// returns (mode raise, the default), or wraps or clips (jf::mode::wrap, jf::mode::clip).
#pragma once

#include <type_traits>

#include "jetfuse/expr/masked.hpp"
#include "jetfuse/expr/type_of.hpp"
#include "jetfuse/expr/walk.hpp"

namespace jf {

// numpy take's `mode`.
namespace mode {
struct raise_t {};
struct wrap_t {};
struct clip_t {};
inline constexpr raise_t raise{};
inline constexpr wrap_t wrap{};
inline constexpr clip_t clip{};
}  // namespace mode

// Msg: the axis numpy's IndexError names when it is not the gathered one (x(2, jf::all, i) gathers
// along an axis of a view of x; the message names x's axis 2); -1: the gathered axis.
template <ir::gather_mode M, int Msg = -1>
struct take_fn {};
template <class T, class I, int Msg = -1>
class indexed;  // x(indices): expr/scatter.hpp
// x(i, j): numpy's x[i, j], an index pair (integer arrays or expressions broadcast together); AI
// and AJ: the axes numpy's IndexError names for i and j (x(i, 0, j) picks from a view of x).
template <int AI = 0, int AJ = 1>
struct index_pair_fn {};
template <class T, class I, class J, int AI = 0, int AJ = 1>
class indexed_pair;  // x(i, j) = v: expr/scatter.hpp
// The scatter of x(i, j) = v: its indices are the flat positions i * n1 + j (int64) in x's first
// two axes merged, each index checked along its own axis first (numpy's IndexError naming axes AI
// and AJ); operands i, j, then the two axes' lengths n0 and n1 (scalar leaves).
template <int AI, int AJ>
struct pair_position_fn {};

// The node: the gathered array, the indices, the axis (a scalar leaf the analysis reads).
template <ir::gather_mode M, int Msg, class X, class I, class A>
struct type_of_impl<call_node<take_fn<M, Msg>, X, I, A>> {
  static constexpr operand_type value = strong(type_of_v<X>.type);
};
template <ir::gather_mode M, int Msg, class X, class I, class A>
struct leaf_counts<call_node<take_fn<M, Msg>, X, I, A>> {
  static constexpr int arrays = 1 + leaf_counts<I>::arrays, scalars = leaf_counts<I>::scalars + 1;
  static constexpr int reductions = leaf_counts<I>::reductions, nest_only = 1 + leaf_counts<I>::nest_only;
};

template <int AI, int AJ, class X, class I, class J, class A>
struct type_of_impl<call_node<index_pair_fn<AI, AJ>, X, I, J, A>> {
  static constexpr operand_type value = strong(type_of_v<X>.type);
};
template <int AI, int AJ, class X, class I, class J, class A>
struct leaf_counts<call_node<index_pair_fn<AI, AJ>, X, I, J, A>> {
  static constexpr int arrays = 1 + leaf_counts<I>::arrays + leaf_counts<J>::arrays;
  static constexpr int scalars = leaf_counts<I>::scalars + leaf_counts<J>::scalars + 1;
  static constexpr int reductions = leaf_counts<I>::reductions + leaf_counts<J>::reductions;
  static constexpr int nest_only = 1 + leaf_counts<I>::nest_only + leaf_counts<J>::nest_only;
};

template <int AI, int AJ, class I, class J, class N>
struct type_of_impl<call_node<pair_position_fn<AI, AJ>, I, J, N, N>> {
  static constexpr operand_type value = strong(dtype::int64);
};
template <int AI, int AJ, class I, class J, class N>
struct leaf_counts<call_node<pair_position_fn<AI, AJ>, I, J, N, N>> {
  static constexpr int arrays = leaf_counts<I>::arrays + leaf_counts<J>::arrays;
  static constexpr int scalars = leaf_counts<I>::scalars + leaf_counts<J>::scalars + 2;
  static constexpr int reductions = leaf_counts<I>::reductions + leaf_counts<J>::reductions;
  static constexpr int nest_only = 1 + leaf_counts<I>::nest_only + leaf_counts<J>::nest_only;
};

namespace detail {

// numpy's normalize_axis_index.
int take_axis(int axis, int ndim);

template <ir::gather_mode M, int Msg = -1, class T, class I>
auto make_take(const array<T>& x, I&& indices, int axis, bool flatten, bool along = false) {
  static_assert(is_integer(type_of_v<capture_t<I>>.type) || type_of_v<capture_t<I>>.type == dtype::bool_,
                "jf::take: the indices must be an integer array or expression");
  static_assert(type_of_v<capture_t<I>>.type != dtype::bool_,
                "jf::take: bool indices are a mask in numpy's x[mask], not positions; convert with "
                "jf::astype<std::int64_t> if positions 0 and 1 are meant");
  if (x.is_null()) throw value_error("jf::take: the array is a null handle (default-constructed)");
  // numpy's take without an axis reads the flattened array (a view when x is contiguous).
  const array<T> from = flatten && x.ndim() != 1 ? x.reshape(shape_t{-1}) : x;
  const auto ax = static_cast<std::int64_t>(take_axis(flatten ? 0 : axis, from.ndim())) + (along ? take_along_axis_flag : 0);
  using X = term<array<T>>;
  using A = term<std::int64_t>;
  using F = take_fn<M, Msg>;
  using C = call_node<F, X, capture_t<I>, A>;
  return C{hana::tuple<term<F>, X, capture_t<I>, A>(term<F>{hana::tuple<F>(F{})}, X{hana::tuple<array<T>>(from)},
                                                    capture(std::forward<I>(indices)),
                                                    A{hana::tuple<std::int64_t>(ax)})};
}

template <ir::gather_mode M, int Msg, class X, class I, class A>
struct tree<call_node<take_fn<M, Msg>, X, I, A>> {
  template <dtype Target>
  static void gather(const call_node<take_fn<M, Msg>, X, I, A>& e, const array_base** arrays, scalar_slot* scalars,
                     reduce_spec* specs, scalar_use) {
    arrays[0] = &e.elements[hana::llong_c<1>].elements[hana::llong_c<0>];  // the gathered array, first
    tree<I>::template gather<type_of_v<I>.type>(e.elements[hana::llong_c<2>], arrays + 1, scalars, specs,
                                                scalar_use::value);
    tree<A>::template gather<dtype::int64>(e.elements[hana::llong_c<3>], arrays, scalars + leaf_counts<I>::scalars,
                                            specs, scalar_use::value);
  }
};

template <ir::gather_mode M, int Msg, class X, class I, class A>
struct lower_type<call_node<take_fn<M, Msg>, X, I, A>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const int leaf = c.ai++;
    ir::node_id position = lower_type<I>::run(g, in, c, type_of_v<I>.type);
    position = lower_cast(g, position, dtype::int64, home_domain(in, c.region));
    ++c.si;  // the axis: read by the analysis, not by the kernel
    return lower_gather(g, in, leaf, position, M, Msg);
  }
};

template <int AI, int AJ, class X, class I, class J, class A>
struct tree<call_node<index_pair_fn<AI, AJ>, X, I, J, A>> {
  template <dtype Target>
  static void gather(const call_node<index_pair_fn<AI, AJ>, X, I, J, A>& e, const array_base** arrays,
                     scalar_slot* scalars, reduce_spec* specs, scalar_use) {
    arrays[0] = &e.elements[hana::llong_c<1>].elements[hana::llong_c<0>];  // the indexed array, first
    tree<I>::template gather<type_of_v<I>.type>(e.elements[hana::llong_c<2>], arrays + 1, scalars, specs,
                                                scalar_use::value);
    tree<J>::template gather<type_of_v<J>.type>(e.elements[hana::llong_c<3>], arrays + 1 + leaf_counts<I>::arrays,
                                                scalars + leaf_counts<I>::scalars, specs + leaf_counts<I>::reductions,
                                                scalar_use::value);
    tree<A>::template gather<dtype::int64>(e.elements[hana::llong_c<4>], arrays,
                                           scalars + leaf_counts<I>::scalars + leaf_counts<J>::scalars, specs,
                                           scalar_use::value);
  }
};

template <int AI, int AJ, class I, class J, class N>
struct lower_type<call_node<pair_position_fn<AI, AJ>, I, J, N, N>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const ir::domain_id home = home_domain(in, c.region);
    const ir::node_id i = lower_cast(g, lower_type<I>::run(g, in, c, type_of_v<I>.type), dtype::int64, home);
    const ir::node_id j = lower_cast(g, lower_type<J>::run(g, in, c, type_of_v<J>.type), dtype::int64, home);
    const ir::node_id n0 = lower_type<N>::run(g, in, c, dtype::int64);
    const ir::node_id n1 = lower_type<N>::run(g, in, c, dtype::int64);
    return lower_pair_position(g, home, i, j, n0, n1, AI, AJ);
  }
};

template <int AI, int AJ, class X, class I, class J, class A>
struct lower_type<call_node<index_pair_fn<AI, AJ>, X, I, J, A>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const int leaf = c.ai++;
    ir::node_id i = lower_type<I>::run(g, in, c, type_of_v<I>.type);
    i = lower_cast(g, i, dtype::int64, home_domain(in, c.region));
    ir::node_id j = lower_type<J>::run(g, in, c, type_of_v<J>.type);
    j = lower_cast(g, j, dtype::int64, home_domain(in, c.region));
    ++c.si;  // the unused scalar (the program's shape of a gather)
    return lower_index_pair(g, in, leaf, i, j, AI, AJ);
  }
};

// x(i, j) where an indexed axis of x is empty: no element may be read, so the indices are checked
// here, on the host (numpy's messages: the first index of i out of range, then of j; a mismatch of
// their shapes). Returns when they select nothing (an empty result).
// ai, aj: the axes the messages name.
void raise_for_empty_axis(const shape_t& x, const array_base& i, const array_base& j, int ai, int aj);
template <class T, class I, class J>
void raise_for_empty_axis(const array<T>& x, const I& i, const J& j, int ai = 0, int aj = 1) {
  const array<std::int64_t> ii = astype<std::int64_t>(i), jj = astype<std::int64_t>(j);
  raise_for_empty_axis(x.shape(), ii, jj, ai, aj);
}

}  // namespace detail

// numpy.take(x, indices): x flattened (C order); the result has the indices' shape.
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices) {
  return detail::make_take<ir::gather_mode::raise>(x, std::forward<I>(indices), 0, true);
}
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, mode::raise_t) {
  return detail::make_take<ir::gather_mode::raise>(x, std::forward<I>(indices), 0, true);
}
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, mode::wrap_t) {
  return detail::make_take<ir::gather_mode::wrap>(x, std::forward<I>(indices), 0, true);
}
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, mode::clip_t) {
  return detail::make_take<ir::gather_mode::clip>(x, std::forward<I>(indices), 0, true);
}
// numpy.take(x, indices, axis): shape x.shape[:axis] + indices.shape + x.shape[axis + 1:].
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, int axis) {
  return detail::make_take<ir::gather_mode::raise>(x, std::forward<I>(indices), axis, false);
}
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, int axis, mode::raise_t) {
  return detail::make_take<ir::gather_mode::raise>(x, std::forward<I>(indices), axis, false);
}
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, int axis, mode::wrap_t) {
  return detail::make_take<ir::gather_mode::wrap>(x, std::forward<I>(indices), axis, false);
}
template <class T, lazy_operand I> auto take(const array<T>& x, I&& indices, int axis, mode::clip_t) {
  return detail::make_take<ir::gather_mode::clip>(x, std::forward<I>(indices), axis, false);
}

// numpy.take_along_axis(x, indices, axis): indices of x's rank; along `axis` each is a position,
// on the other axes indices and x broadcast against each other (extent 1 or equal). The result has
// the broadcast shape. One gather node, fused like take: take_along_axis(x, jf::argmax(x, 1,
// jf::keepdims), 1) reads each row's maximum in the kernel that finds it. Indices out of range
// raise numpy's IndexError; numpy's ValueError for indices of another rank (jf::value_error).
template <class T, lazy_operand I> auto take_along_axis(const array<T>& x, I&& indices, int axis) {
  return detail::make_take<ir::gather_mode::raise>(x, std::forward<I>(indices), axis, false, true);
}

namespace detail {

// numpy's IndexError "boolean index did not match indexed array along axis 1; size of axis is 4
// but size of corresponding boolean axis is 3" (src/core/index_pair.cpp).
void check_mask_length(std::int64_t mask_length, std::int64_t axis_length, int axis);
// The int64 positions where a 1-d bool mask of extent n along x's axis `axis` holds (defined in
// expr/compaction.hpp, which jetfuse.hpp includes: a count read back, then the compaction).
template <class M>
array<std::int64_t> mask_positions(const M& mask, std::int64_t n, int axis);
// An index operand of x(...) as the gathers take it: a bool mask among other indices is numpy's
// nonzero() of it (evaluated now), any other operand is returned as it is.
template <class I>
decltype(auto) as_index_operand(const I& i, std::int64_t n, int axis) {
  if constexpr (lazy_operand<I> && type_of_v<capture_t<const I&>>.type == dtype::bool_)
    return mask_positions(i, n, axis);
  else
    return (i);
}

// x(i, j) on x, or on a view of the indexed array whose first two axes are the indexed ones (AI
// and AJ: that array's axes, which numpy's IndexError names; expr/mixed_indexing.hpp).
template <int AI, int AJ, class T, class I, class J>
auto make_index_pair(const array<T>& x, const I& i, const J& j) {
  static_assert(lazy_operand<I> && lazy_operand<J>,
                "jetfuse: x(i, j) takes integer arrays or expressions (or integers, jf::range and jf::all for a view)");
  static_assert(is_integer(type_of_v<capture_t<const I&>>.type) && is_integer(type_of_v<capture_t<const J&>>.type),
                "jetfuse: x(i, j) takes integer (or bool) index arrays or expressions");
  using X = term<array<T>>;
  using A = term<std::int64_t>;
  using F = index_pair_fn<AI, AJ>;
  using C = call_node<F, X, capture_t<const I&>, capture_t<const J&>, A>;
  if (x.shape()[0] == 0 || x.shape()[1] == 0) raise_for_empty_axis(x, capture(i), capture(j), AI, AJ);
  // A gather every expression accepts that also takes x(i, j) = v (expr/scatter.hpp).
  return indexed_pair<T, capture_t<const I&>, capture_t<const J&>, AI, AJ>(
      C{hana::tuple<term<F>, X, capture_t<const I&>, capture_t<const J&>, A>(
          term<F>{hana::tuple<F>(F{})}, X{hana::tuple<array<T>>(x)}, capture(i), capture(j),
          A{hana::tuple<std::int64_t>(0)})});
}

}  // namespace detail

template <class T>
template <class I, class J>
  requires(!std::is_convertible_v<I, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<I>> &&
           !std::is_convertible_v<J, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<J>>)
auto array<T>::operator()(const I& i, const J& j) const {
  if (is_null()) throw value_error("jetfuse: x(i, j) of a null array handle");
  if (ndim() < 2)
    throw index_error("too many indices for array: array is " + std::to_string(ndim()) +
                      "-dimensional, but 2 were indexed");
  // Bool masks: their nonzero() positions (numpy's x[mask, j]).
  decltype(auto) ii = detail::as_index_operand(i, shape()[0], 0);
  decltype(auto) jj = detail::as_index_operand(j, shape()[1], 1);
  return detail::make_index_pair<0, 1>(*this, ii, jj);
}

template <class T>
template <class I>
  requires(!std::is_convertible_v<I, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<I>>)
auto array<T>::operator()(const I& indices) const {
  static_assert(lazy_operand<I>, "jetfuse: x(indices) takes integers, jf::range/jf::all, or an integer array or expression");
  if constexpr (type_of_v<capture_t<const I&>>.type == dtype::bool_) {
    return masked_assignment<T, std::remove_cvref_t<I>>(*this, indices);  // x(mask) = value
  } else {
    // numpy's x[indices] along the first axis: a take that also takes x(indices) = v (scatter.hpp).
    return indexed<T, capture_t<const I&>>(take(*this, indices, 0));
  }
}

}  // namespace jf
