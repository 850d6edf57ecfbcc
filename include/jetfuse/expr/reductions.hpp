// numpy's reductions as expression nodes: jf::sum(x), jf::mean(x, 1, jf::keepdims),
// jf::argmax(x), ... A reduction is a YAP call node whose tag holds its run-time arguments (axes,
// keepdims, ddof); it lowers to reduce nodes of jf::ir in src/ (lower_reduction), so
// `jf::sqrt(jf::sum(x * x))` and `x - jf::mean(x, 1, jf::keepdims)` are one expression each.
#pragma once

#include <initializer_list>

#include "jetfuse/detail/lowering.hpp"
#include "jetfuse/expr/functions.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/walk.hpp"
#include "jetfuse/reducers.hpp"

namespace jf {

template <reducer R> struct reduce_fn {
  static constexpr reducer kind = R;
  detail::reduce_spec spec;
};
template <reducer R> struct is_reduce_tag<reduce_fn<R>> : std::true_type {};

template <reducer R, class X> struct type_of_impl<call_node<reduce_fn<R>, X>> {
  static constexpr operand_type value = strong(reduced_dtype(R, type_of_v<X>.type));
};

namespace detail {

// Operands whose sum is rewritten rather than reduced (jf::matmul's float values: matmul.hpp):
// `apply(x, spec)` returns the rewritten expression.
template <class X> struct sum_rewrite : std::false_type {};

template <reducer R, lazy_operand X>
auto make_reduction(X&& x, std::initializer_list<int> axes, bool all_axes, bool keep, int dd = 0) {
  reduce_fn<R> tag;
  tag.spec.kind = R;
  tag.spec.all_axes = all_axes;
  tag.spec.keepdims = keep;
  tag.spec.ddof = dd;
  if (axes.size() > static_cast<std::size_t>(max_ndim))
    throw axis_error("jetfuse: more axes than an array can have (" + std::to_string(axes.size()) + ")");
  for (int a : axes) tag.spec.axes[tag.spec.naxes++] = a;
  if constexpr (detail::has_option_leaf_v<X>) {
    static_assert(detail::always_false<X>,
                  "jetfuse: a reduction of per-list values that may be None (an evaluated jf::option_array; Awkward "
                  "skips None) is not supported yet; use jf::fill_none first");
    return detail::rejected{};
  } else if constexpr (R == reducer::sum && sum_rewrite<std::remove_cvref_t<X>>::value)
    return sum_rewrite<std::remove_cvref_t<X>>::apply(x, tag.spec);
  else
    return call_node<reduce_fn<R>, capture_t<X>>{hana::tuple<term<reduce_fn<R>>, capture_t<X>>(
      term<reduce_fn<R>>{hana::tuple<reduce_fn<R>>(tag)}, capture(std::forward<X>(x)))};
}

template <reducer R, class X> struct tree<call_node<reduce_fn<R>, X>> {
  template <dtype Target>
  static void gather(const call_node<reduce_fn<R>, X>& e, const array_base** arrays, scalar_slot* scalars,
                     reduce_spec* specs, scalar_use) {
    specs[0] = e.elements[hana::llong_c<0>].elements[hana::llong_c<0>].spec;  // prefix order
    tree<X>::template gather<type_of_v<X>.type>(e.elements[hana::llong_c<1>], arrays, scalars, specs + 1,
                                                 scalar_use::value);
  }
};

template <reducer R, class X> struct lower_type<call_node<reduce_fn<R>, X>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const int r = c.ri++;
    const int outer = c.region;
    c.region = r + 1;
    c.guard = ir::no_node;
    const ir::node_id x = lower_type<X>::run(g, in, c, type_of_v<X>.type);
    const ir::node_id guard = c.guard;  // x(mask): the reduction skips the unselected iterations
    c.guard = ir::no_node;
    c.region = outer;
    return lower_reduction(g, *in.nest, r, x, guard);
  }
};

}  // namespace detail

// sum(x), sum(x, 1), sum(x, {0, 2}), sum(x, jf::keepdims), sum(x, -1, jf::keepdims): numpy's
// axis=None / int / tuple and keepdims=True. Axes are checked against x's rank when it runs.
#define JF_REDUCER_FUNCTION(fname, R)                                                               \
  template <lazy_operand X> auto fname(X&& x) {                                                     \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, false);                 \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, int axis) {                                           \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, false);            \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, std::initializer_list<int> axes) {                    \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), axes, false, false);              \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, keepdims_t) {                                         \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, true);                  \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, int axis, keepdims_t) {                               \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, true);             \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, std::initializer_list<int> axes, keepdims_t) {        \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), axes, false, true);               \
  }

JF_REDUCER_FUNCTION(sum, sum)
JF_REDUCER_FUNCTION(prod, prod)
JF_REDUCER_FUNCTION(min, min)
JF_REDUCER_FUNCTION(max, max)
JF_REDUCER_FUNCTION(amin, min)
JF_REDUCER_FUNCTION(amax, max)
JF_REDUCER_FUNCTION(mean, mean)
JF_REDUCER_FUNCTION(any, any)
JF_REDUCER_FUNCTION(count_nonzero, count_nonzero)
JF_REDUCER_FUNCTION(nansum, nansum)
JF_REDUCER_FUNCTION(nanprod, nanprod)
JF_REDUCER_FUNCTION(nanmin, nanmin)
JF_REDUCER_FUNCTION(nanmax, nanmax)
JF_REDUCER_FUNCTION(nanmean, nanmean)
#undef JF_REDUCER_FUNCTION

// var and std with numpy's ddof (var(x, 1, jf::ddof(1)) is the sample variance along axis 1).
#define JF_MOMENT_FUNCTION(fname, R)                                                                    \
  template <lazy_operand X> auto fname(X&& x, ddof d = ddof(0)) {                                       \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, false, d.value);            \
  }                                                                                                     \
  template <lazy_operand X> auto fname(X&& x, int axis, ddof d = ddof(0)) {                             \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, false, d.value);       \
  }                                                                                                     \
  template <lazy_operand X> auto fname(X&& x, std::initializer_list<int> axes, ddof d = ddof(0)) {      \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), axes, false, false, d.value);         \
  }                                                                                                     \
  template <lazy_operand X> auto fname(X&& x, keepdims_t, ddof d = ddof(0)) {                           \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, true, d.value);             \
  }                                                                                                     \
  template <lazy_operand X> auto fname(X&& x, int axis, keepdims_t, ddof d = ddof(0)) {                 \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, true, d.value);        \
  }                                                                                                     \
  template <lazy_operand X> auto fname(X&& x, std::initializer_list<int> axes, keepdims_t, ddof d = ddof(0)) { \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), axes, false, true, d.value);          \
  }
JF_MOMENT_FUNCTION(var, var)
JF_MOMENT_FUNCTION(std, std)
#undef JF_MOMENT_FUNCTION

// argmin/argmax: numpy allows axis=None (the flat index) or one axis.
#define JF_ARG_FUNCTION(fname, R)                                                                   \
  template <lazy_operand X> auto fname(X&& x) {                                                     \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, false);                 \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, int axis) {                                           \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, false);            \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, keepdims_t) {                                         \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, true);                  \
  }                                                                                                 \
  template <lazy_operand X> auto fname(X&& x, int axis, keepdims_t) {                               \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, true);             \
  }
JF_ARG_FUNCTION(argmin, argmin)
JF_ARG_FUNCTION(argmax, argmax)
#undef JF_ARG_FUNCTION

// numpy.vdot of two arrays, as one fused reduction: sum(a * b) in numpy's result dtype
// (result_type(a, b): int32 stays int32, wrapping as numpy's; bool is "any(a and b)"), for any two
// arrays of one shape (numpy flattens both; arrays of equal size but different shapes are not
// supported: jf::shape_error). Shapes are checked when called. numpy.dot is jf::dot (matmul.hpp).
namespace detail {
void check_dot_shapes(const array_base& a, const array_base& b, bool flatten);
template <class T, class U> auto dot_expression(const array<T>& a, const array<U>& b) {
  constexpr dtype r = promote_types(dtype_v<T>, dtype_v<U>);
  if constexpr (r == dtype::bool_) return any(logical_and(a, b));
  else return astype<cpp_type_t<r>>(sum(a * b));
}
}  // namespace detail
template <class T, class U> auto vdot(const array<T>& a, const array<U>& b) {
  detail::check_dot_shapes(a, b, true);
  return detail::dot_expression(a, b);
}

// numpy.linalg.norm of a vector or, for n-d operands, of all elements flattened: norm<2> (the
// default) is sqrt(sum(x*x)), norm<1> sum(|x|), norm<inf_norm> max(|x|). Integers are converted to
// float64 first, as numpy does.
inline constexpr int inf_norm = -1;
template <int Ord = 2, lazy_operand X> auto norm(X&& x) {
  static_assert(Ord == 1 || Ord == 2 || Ord == inf_norm, "jetfuse: jf::norm<Ord> supports Ord = 1, 2 and jf::inf_norm");
  constexpr dtype t = type_of_v<capture_t<X>>.type;
  auto xf = [&] {
    if constexpr (is_floating(t)) return capture(std::forward<X>(x));
    else return astype<double>(std::forward<X>(x));
  }();
  if constexpr (Ord == 2) return sqrt(sum(xf * xf));
  else if constexpr (Ord == 1) return sum(abs(xf));
  else return max(abs(xf));
}

// jf::all(x, ...) is numpy's all; jf::all alone stays the slicing argument ':' (slicing.hpp).
#define JF_ALL_REDUCTION(params, args)                                                        \
  template <class X> auto all_t::operator() params const {                                   \
    static_assert(lazy_operand<X>, "jetfuse: jf::all(x, ...) reduces an array or an expression"); \
    return detail::make_reduction<reducer::all> args;                                         \
  }
JF_ALL_REDUCTION((X && x), (std::forward<X>(x), {}, true, false))
JF_ALL_REDUCTION((X && x, int axis), (std::forward<X>(x), {axis}, false, false))
JF_ALL_REDUCTION((X && x, std::initializer_list<int> axes), (std::forward<X>(x), axes, false, false))
JF_ALL_REDUCTION((X && x, keepdims_t), (std::forward<X>(x), {}, true, true))
JF_ALL_REDUCTION((X && x, int axis, keepdims_t), (std::forward<X>(x), {axis}, false, true))
JF_ALL_REDUCTION((X && x, std::initializer_list<int> axes, keepdims_t), (std::forward<X>(x), axes, false, true))
#undef JF_ALL_REDUCTION

}  // namespace jf
