// numpy.matmul: jf::matmul(a, b) is a lazy value, a leaf of the expression graph. Its operands are
// taken when it is called (arrays as they are, any view; expressions evaluated into a contiguous
// temporary of the result dtype, one fused kernel) and numpy's shape checks run then; the product
// itself is computed when an evaluation needs it: assigned to an array (the product's own new array,
// no copy) or read by an element-wise expression (the product first, on jf::cpu the blocked loop,
// on jf::cuda cuBLAS for floats and an exact kernel for integers; the expression then reads it).
// jf::sum of a float product is rewritten: sum(a @ b, 0) runs as sum(a, 0) @ b (column sums, fused,
// then a vector-matrix product), never forming the product; jf::explain shows it. Design:
// docs/design.md, "Matrix products".
#pragma once

#include <memory>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/matmul_node.hpp"
#include "jetfuse/dtype.hpp"
#include "jetfuse/expr/functions.hpp"  // astype
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/sorting.hpp"  // detail::sort_operand / sort_element_t: an operand as an array

namespace jf {

// What jf::matmul returns (and jf::sum of a float one, and a float one times, divided by or negated
// a scalar): the node of a @ b, and the array its last evaluation computed (held while the
// expression lives; one expression object is not evaluated from two threads at once). Plus: the
// node also adds (or subtracts) an array (matmul(a, b) + c): matmul_plus_expr, a type of its own so
// that a second addend, a scalar of the sum or its jf::sum stay element-wise consumers.
template <class R, bool Plus = false>
struct matmul_value {
  std::shared_ptr<const detail::matmul_node> node;
  mutable array_base value;
};
template <class R>
using matmul_expr = term<matmul_value<R>>;
template <class R>
using matmul_plus_expr = term<matmul_value<R, true>>;

template <class R, bool P>
struct type_of_impl<term<matmul_value<R, P>>> {
  static constexpr operand_type value = strong(dtype_v<R>);
};
template <class R, bool P>
struct leaf_counts<term<matmul_value<R, P>>> {  // an array leaf, computed when gathered
  static constexpr int arrays = 1, scalars = 0, reductions = 0, nest_only = 0;
};

namespace detail {

template <class A, class B>
using matmul_result_t = cpp_type_t<promote_types(dtype_v<sort_element_t<A>>, dtype_v<sort_element_t<B>>)>;

// An operand of the result's dtype R: an array of R as it is (any view), anything else evaluated
// (converted, fused) into a new contiguous array of R.
template <class R, class X>
array_base matmul_operand(const X& x) {
  if constexpr (std::is_same_v<sort_element_t<X>, R>)
    return sort_operand(x);
  else
    return array<R>(astype<R>(x));
}

template <class R, bool P = false>
term<matmul_value<R, P>> make_matmul_expr(matmul_node n) {
  return term<matmul_value<R, P>>{hana::tuple<matmul_value<R, P>>(
      matmul_value<R, P>{std::make_shared<const matmul_node>(std::move(n)), {}})};
}
template <class R, bool P>
const matmul_node& node_of_expr(const term<matmul_value<R, P>>& e) {
  return *e.elements[hana::llong_c<0>].node;
}

// The value of a node: one evaluation where its scalar steps and addend fold into the gemm (or it
// has none); otherwise the bare product (or rewritten sum), then the steps and the addend
// element-wise in numpy's order (a zero or non-finite factor, a sum, an addend that enlarges the
// shape, ...: matmul_node.hpp's folds).
template <class R>
array_base compute_value(const matmul_node& n) {
  if constexpr (!is_floating(dtype_v<R>)) {
    return evaluate(n);
  } else {
    if (folds(n)) return evaluate(n);
    array<R> x(evaluate(bare(n)));
    for (const scale_step& s : n.steps)
      x = s.op == '-' ? array<R>(-x) : (s.op == '/' ? array<R>(x / s.value) : array<R>(x * s.value));
    if (!n.c.is_null()) {
      const array<R> c(n.c);
      x = n.c_subtracted ? array<R>(x - c) : array<R>(x + c);
    }
    return x;
  }
}

// The product is computed here, once per evaluation (jf::explain: described, not computed).
template <class R, bool P>
const array_base& value_of(const term<matmul_value<R, P>>& e) {
  const matmul_value<R, P>& v = e.elements[hana::llong_c<0>];
  if (explain_notes) {
    *explain_notes += explain(*v.node, explain_notes_cuda);
    v.value = described(*v.node);
  } else {
    v.value = compute_value<R>(*v.node);
  }
  return v.value;
}

template <class R, bool P>
struct tree<term<matmul_value<R, P>>> {
  template <dtype Target>
  static void gather(const term<matmul_value<R, P>>& e, const array_base** arrays, scalar_slot*, reduce_spec*,
                     scalar_use) {
    *arrays = &value_of(e);
  }
};
template <class R, bool P>
struct lower_type<term<matmul_value<R, P>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    return lower_input(g, in, c.ai++, c.region, c.regions, *c.input_nodes, dtype_v<R>);
  }
};
template <class R, bool P>
struct program_of<term<matmul_value<R, P>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::array, 0}}};
};
// array<R> a = jf::matmul(...): the product's own array, without a copy.
template <class R, bool P>
struct computed_leaf<term<matmul_value<R, P>>> : std::true_type {
  static constexpr dtype type = dtype_v<R>;
  static array_base compute(const term<matmul_value<R, P>>& e) { return compute_value<R>(node_of_expr(e)); }
};
// jf::sum(jf::matmul(a, b), axes) of floats: the node rewritten (matmul_node.cpp). Integer products
// are not: numpy's product wraps in its dtype before the sum (in int64) sees it.
template <class R>
requires(is_floating(dtype_v<R>)) struct sum_rewrite<matmul_expr<R>> : std::true_type {
  static matmul_expr<R> apply(const matmul_expr<R>& e, const reduce_spec& spec) {
    return make_matmul_expr<R>(sum_of(node_of_expr(e), spec));
  }
};

// The operands of the alpha and beta rewrites: a float product (not one with an addend), a C++
// arithmetic scalar other than bool (numpy's weak Python int / float: the product's dtype stays),
// and an addend c that is a jf::array of the product's dtype (numpy adds without promotion).
template <class M>
struct float_product : std::false_type {};
template <class R>
requires(is_floating(dtype_v<R>)) struct float_product<matmul_expr<R>> : std::true_type {
  using type = R;
};
template <class M>
concept scalable_product = float_product<std::remove_cvref_t<M>>::value;
template <class S>
concept product_factor = std::is_arithmetic_v<std::remove_cvref_t<S>> && !std::is_same_v<std::remove_cvref_t<S>, bool>;
template <class C, class M>
concept product_addend = scalable_product<M> && is_array_v<C> &&
                         std::is_same_v<typename std::remove_cvref_t<C>::value_type,
                                        typename float_product<std::remove_cvref_t<M>>::type>;
template <class L, class R>
concept factor_times_product = (product_factor<L> && scalable_product<R>) || (scalable_product<L> && product_factor<R>);

template <class M>
auto scaled_expr(const M& m, char op, double s) {
  using R = typename float_product<std::remove_cvref_t<M>>::type;
  return make_matmul_expr<R>(scaled(node_of_expr(m), op, s));
}
template <class M>
auto plus_expr(const M& m, const array_base& c, bool subtract) {
  using R = typename float_product<std::remove_cvref_t<M>>::type;
  return make_matmul_expr<R, true>(plus(node_of_expr(m), c, subtract));
}

}  // namespace detail

// numpy.matmul(a, b) (a @ b): 1-d operands are promoted (a to (1, k), b to (k, 1)) and the added
// axis removed from the result; operands of ndim > 2 are stacks of matrices in the last two axes,
// whose leading (batch) axes broadcast. The result dtype is numpy's promotion of the two (bool @
// bool is bool: OR of ANDs); integers wrap around as numpy's. 0-d operands, core dimensions that
// differ and batch axes that do not broadcast raise numpy's value_error / shape_error here.
template <lazy_operand A, lazy_operand B>
matmul_expr<detail::matmul_result_t<A, B>> matmul(const A& a, const B& b) {
  using R = detail::matmul_result_t<A, B>;
  return detail::make_matmul_expr<R>(
      detail::make_matmul_node(detail::matmul_operand<R>(a), detail::matmul_operand<R>(b)));
}

// Scalar factors of a float product are gemm's alpha: s * matmul(a, b), matmul(a, b) * s,
// matmul(a, b) / s and -matmul(a, b) are one gemm (matmul_expr again, so factors chain and jf::sum
// still rewrites). An array c of the product's dtype added or subtracted is gemm's beta: c is
// copied (broadcast) into the result's buffer and the gemm adds the product to it
// (matmul_plus_expr). Where a rewrite cannot be exact-safe (a zero, non-finite or subnormal factor,
// an empty product, a sum of the product, c enlarging the shape) the value is the bare product and
// the same operations element-wise, numpy's order. jf::explain says which.
template <operand L, operand R>
  requires((lazy_operand<L> || lazy_operand<R>) && detail::factor_times_product<L, R>)
auto operator*(L&& l, R&& r) {
  if constexpr (detail::scalable_product<L>)
    return detail::scaled_expr(l, '*', static_cast<double>(r));
  else
    return detail::scaled_expr(r, '*', static_cast<double>(l));
}
template <operand L, operand R>
  requires((lazy_operand<L> || lazy_operand<R>) && detail::scalable_product<L> && detail::product_factor<R>)
auto operator/(L&& l, R&& r) {
  return detail::scaled_expr(l, '/', static_cast<double>(r));
}
template <lazy_operand A>
  requires detail::scalable_product<A>
auto operator-(A&& a) {
  return detail::scaled_expr(a, '-', -1.0);
}
template <operand L, operand R>
  requires((lazy_operand<L> || lazy_operand<R>) && (detail::product_addend<L, R> || detail::product_addend<R, L>))
auto operator+(L&& l, R&& r) {
  if constexpr (detail::scalable_product<L>)
    return detail::plus_expr(l, r, false);
  else
    return detail::plus_expr(r, l, false);
}
template <operand L, operand R>
  requires((lazy_operand<L> || lazy_operand<R>) && (detail::product_addend<L, R> || detail::product_addend<R, L>))
auto operator-(L&& l, R&& r) {
  if constexpr (detail::scalable_product<L>)
    return detail::plus_expr(l, r, true);  // a @ b - c: beta = -1
  else
    return detail::plus_expr(detail::scaled_expr(r, '-', -1.0), l, false);  // c - a @ b = -(a @ b) + c, exactly
}

// numpy.dot(a, b): for 2-d operands matmul; a 2-d (or N-d) and a 1-d operand the sum over their
// last axes; N-d operands numpy's rule dot(a, b)[i..., j..., m] = sum(a[i..., :] * b[j..., :, m])
// (one 2-d product of a as (P, k) and b with its k axis first as (k, Q * m), reshaped); two
// vectors sum(a * b), one fused multiply-reduction (int32 wraps as numpy's; bool is any(a and b)).
// A lazy value like jf::matmul's (the same rewrites apply). numpy's "shapes (2,3) and (4,5) not
// aligned: 3 (dim 1) != 4 (dim 0)" is a jf::shape_error when called; 0-d operands (numpy
// multiplies) a jf::value_error.
template <lazy_operand A, lazy_operand B>
matmul_expr<detail::matmul_result_t<A, B>> dot(const A& a, const B& b) {
  using R = detail::matmul_result_t<A, B>;
  return detail::make_matmul_expr<R>(
      detail::make_dot_node(detail::matmul_operand<R>(a), detail::matmul_operand<R>(b)));
}

// numpy.transpose of a product ((a @ b).T): for 2-d operands the product b.T @ a.T, which
// jf::cuda's cuBLAS call reads through its transpose flags: no transposed copy of the operands,
// and the result is written in the transposed order (C-contiguous). A product of at most one axis
// is returned as it is; a batched or summed one raises jf::value_error (transpose its array).
template <class R>
matmul_expr<R> transpose(const matmul_expr<R>& e) {
  return detail::make_matmul_expr<R>(detail::transposed(detail::node_of_expr(e)));
}

}  // namespace jf
