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

// What jf::matmul returns (and jf::sum of a float one): the node of a @ b, and the array its last
// evaluation computed (held while the expression lives; one expression object is not evaluated
// from two threads at once).
template <class R>
struct matmul_value {
  std::shared_ptr<const detail::matmul_node> node;
  mutable array_base value;
};
template <class R>
using matmul_expr = term<matmul_value<R>>;

template <class R>
struct type_of_impl<matmul_expr<R>> {
  static constexpr operand_type value = strong(dtype_v<R>);
};
template <class R>
struct leaf_counts<matmul_expr<R>> {  // an array leaf, computed when gathered
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

template <class R>
matmul_expr<R> make_matmul_expr(matmul_node n) {
  return matmul_expr<R>{
      hana::tuple<matmul_value<R>>(matmul_value<R>{std::make_shared<const matmul_node>(std::move(n)), {}})};
}

// The product is computed here, once per evaluation (jf::explain: described, not computed).
template <class R>
const array_base& value_of(const matmul_expr<R>& e) {
  const matmul_value<R>& v = e.elements[hana::llong_c<0>];
  if (explain_notes) {
    *explain_notes += explain(*v.node);
    v.value = described(*v.node);
  } else {
    v.value = evaluate(*v.node);
  }
  return v.value;
}

template <class R>
struct tree<matmul_expr<R>> {
  template <dtype Target>
  static void gather(const matmul_expr<R>& e, const array_base** arrays, scalar_slot*, reduce_spec*, scalar_use) {
    *arrays = &value_of(e);
  }
};
template <class R>
struct lower_type<matmul_expr<R>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    return lower_input(g, in, c.ai++, c.region, c.regions, *c.input_nodes, dtype_v<R>);
  }
};
template <class R>
struct program_of<matmul_expr<R>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::array, 0}}};
};
// array<R> a = jf::matmul(...): the product's own array, without a copy.
template <class R>
struct computed_leaf<matmul_expr<R>> : std::true_type {
  static constexpr dtype type = dtype_v<R>;
  static array_base compute(const matmul_expr<R>& e) { return evaluate(*e.elements[hana::llong_c<0>].node); }
};
// jf::sum(jf::matmul(a, b), axes) of floats: the node rewritten (matmul_node.cpp). Integer products
// are not: numpy's product wraps in its dtype before the sum (in int64) sees it.
template <class R>
requires(is_floating(dtype_v<R>)) struct sum_rewrite<matmul_expr<R>> : std::true_type {
  static matmul_expr<R> apply(const matmul_expr<R>& e, const reduce_spec& spec) {
    return make_matmul_expr<R>(sum_of(*e.elements[hana::llong_c<0>].node, spec));
  }
};

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

// numpy.transpose of a product ((a @ b).T): for 2-d operands the product b.T @ a.T, which
// jf::cuda's cuBLAS call reads through its transpose flags: no transposed copy of the operands,
// and the result is written in the transposed order (C-contiguous). A product of at most one axis
// is returned as it is; a batched or summed one raises jf::value_error (transpose its array).
template <class R>
matmul_expr<R> transpose(const matmul_expr<R>& e) {
  return detail::make_matmul_expr<R>(detail::transposed(*e.elements[hana::llong_c<0>].node));
}

}  // namespace jf
