// numpy.matmul: jf::matmul(a, b). Not lazy in this step: each call returns a new contiguous array on
// the operands' backend (the CPU's blocked loop on the thread pool; jf::cuda hands float32/float64
// to cuBLAS, loaded at run time, and integers/bool to an exact, untuned kernel). a and b are arrays
// (any view: strided, transposed, broadcast) or expressions, each evaluated into a contiguous
// temporary first (one fused kernel); element-wise consumers of the product do not fuse with it
// yet. Design: docs/design.md, "Matrix products".
#pragma once

#include "jetfuse/array.hpp"
#include "jetfuse/dtype.hpp"
#include "jetfuse/expr/functions.hpp"  // astype
#include "jetfuse/sorting.hpp"         // detail::sort_operand / sort_element_t: an operand as an array

namespace jf {

namespace detail {
// The untyped implementation (src/core/matmul.cpp): numpy's checks, messages, shapes and dtypes.
array_base matmul(const array_base& a, const array_base& b);

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
}  // namespace detail

// numpy.matmul(a, b) (a @ b): 1-d operands are promoted (a to (1, k), b to (k, 1)) and the added
// axis removed from the result; operands of ndim > 2 are stacks of matrices in the last two axes,
// whose leading (batch) axes broadcast. The result dtype is numpy's promotion of the two (bool @
// bool is bool: OR of ANDs); integers wrap around as numpy's. 0-d operands, core dimensions that
// differ and batch axes that do not broadcast raise numpy's value_error / shape_error.
template <lazy_operand A, lazy_operand B>
array<detail::matmul_result_t<A, B>> matmul(const A& a, const B& b) {
  using R = detail::matmul_result_t<A, B>;
  return array<R>(detail::matmul(detail::matmul_operand<R>(a), detail::matmul_operand<R>(b)));
}

}  // namespace jf
