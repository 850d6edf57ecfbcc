// numpy.einsum: jf::einsum("ij,jk->k", a, b). Like jf::matmul not lazy in this step: the operands
// (arrays, any view, or expressions, evaluated first) are converted to numpy's result dtype, and
// the contraction runs as views and jf::matmul products on their backend: subscripts only one
// operand holds are summed out first (so "ij,jk->k" is a column sum of a, then a vector-matrix
// product: einsum's planner, not a matrix product and a sum), then operands are contracted two at a
// time, the pair with the smallest result first. Design: docs/design.md, "Matrix products".
#pragma once

#include <string>
#include <vector>

#include "jetfuse/matmul.hpp"

namespace jf {

namespace detail {
// The untyped implementation (src/core/einsum.cpp): numpy's parsing and messages, the plan and its
// products; every operand already of the result's dtype.
array_base einsum(const std::string& subscripts, const std::vector<array_base>& operands);

template <class... A>
inline constexpr dtype einsum_result = [] {
  dtype t = dtype::bool_;
  ((t = promote_types(t, dtype_v<sort_element_t<A>>)), ...);
  return t;
}();
}  // namespace detail

// numpy.einsum(subscripts, *operands) without '...': explicit ("ij,jk->ik") or implicit ("ij,jk",
// the letters that appear once, in ASCII order) output; repeated letters in one operand take its
// diagonal ("ii->i", "ii"); extents of 1 broadcast. The result is a new contiguous array of numpy's
// result dtype (numpy sometimes returns a view; this never does).
template <class... A>
requires(sizeof...(A) >= 1) array<cpp_type_t<detail::einsum_result<A...>>> einsum(const std::string& subscripts,
                                                                                  const A&... operands) {
  using R = cpp_type_t<detail::einsum_result<A...>>;
  return array<R>(detail::einsum(subscripts, std::vector<array_base>{detail::matmul_operand<R>(operands)...}));
}

}  // namespace jf
