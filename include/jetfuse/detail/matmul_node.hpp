// The untyped matrix-product node behind jf::matmul's lazy value (matmul.hpp): the product of two
// operands, or a sum of it that src/core/matmul_node.cpp may rewrite (sum(a @ b, 0) -> sum(a, 0) @ b),
// evaluated when an evaluation gathers it. No YAP here: src/ implements it.
#pragma once

#include <string>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/reducers.hpp"

namespace jf::detail {

// A scalar step applied to the value: '*' times value, '/' divided by value, '-' negated. value is
// the scalar as numpy's weak-scalar rule converts it (rounded to the node's dtype).
struct scale_step {
  char op = '*';
  double value = 1;
};

struct matmul_node {
  array_base a, b;      // operands, of one dtype (any views), as jf::matmul got them
  shape_t product;      // numpy's shape of a @ b (of numpy.dot(a, b) when `dot`)
  bool dot = false;     // numpy.dot's rule: a's last axis with b's second-to-last (N-d), 1-d . 1-d fused
  bool summed = false;  // the value is sum(a @ b, axes, keepdims) (floats only: see matmul.hpp)
  reduce_spec sum;      // its axes (normalised, ascending) and keepdims
  shape_t shape;        // the value's shape
  // Float products only (matmul.hpp's operators): the value's scalar steps, in numpy's order, then
  // an addend (value + c, or value - c). One gemm computes them as its alpha and beta where
  // `folds` says so; otherwise the header applies them element-wise after `evaluate(bare(n))`.
  std::vector<scale_step> steps;
  array_base c;  // null: none
  bool c_subtracted = false;
};

// The problem's alpha and beta terms for the untyped matmul: value = alpha * (a @ b) + beta * c,
// with c broadcast to `shape` (the value's shape, a reshape of the product's contiguous result).
struct gemm_terms {
  double alpha = 1, beta = 0;
  const array_base* c = nullptr;
  shape_t shape;
};

// The untyped matmul (src/core/matmul.cpp): a new array; and numpy's checks alone, the shape.
array_base matmul(const array_base& a, const array_base& b);
array_base matmul(const array_base& a, const array_base& b, const gemm_terms& t);  // floats, k > 0, not empty
shape_t matmul_shape(const array_base& a, const array_base& b);
// numpy's checks of matmul(a, b) without computing: the node of a @ b.
matmul_node make_matmul_node(const array_base& a, const array_base& b);
// numpy.dot's checks (its "shapes (2,3) and (4,5) not aligned: ..." shape_error; 0-d operands:
// jf::value_error, numpy multiplies) and shape: the node of dot(a, b).
matmul_node make_dot_node(const array_base& a, const array_base& b);
// The node of the value times / divided by s (op '*' or '/'), or negated (op '-').
matmul_node scaled(const matmul_node& n, char op, double s);
// The node of value + c (value - c when subtract); c of the node's dtype.
matmul_node plus(const matmul_node& n, const array_base& c, bool subtract);
// Whether evaluate(n) computes n's steps and addend in its one gemm (alpha, beta): float, not
// summed, neither empty nor k = 0, every step and the combined alpha a finite, nonzero, normal
// number of the dtype, c on the operands' device and broadcastable to the product's shape without
// enlarging it. A node without steps or addend folds trivially.
bool folds(const matmul_node& n);
// n without its steps and addend (what the element-wise fallback multiplies first).
matmul_node bare(const matmul_node& n);
// The node of sum(n, axes): numpy's axis checks (axis_error, "duplicate value in 'axis'") now, the
// value's shape; of a summed node, the sum of the sum.
matmul_node sum_of(const matmul_node& n, const reduce_spec& spec);
// numpy's transpose of the product (a.T @ ... as (a @ b).T = b.T @ a.T): for two 2-d operands the
// node of b.T @ a.T (transposed views: cuBLAS's op flags, no copy), for a product of at most one
// axis the node itself; batched or summed products: jf::value_error.
matmul_node transposed(const matmul_node& n);
// The value: a new array (a rewritten sum runs as reductions and at most one small product).
// Requires folds(n); matmul.hpp evaluates other nodes as bare(n), then their steps element-wise.
array_base evaluate(const matmul_node& n);
// What evaluate runs, and why (jf::explain's account); runs nothing. cuda_plan: jf::explain_cuda's
// plan of the fused steps whatever the arrays' backend.
std::string explain(const matmul_node& n, bool cuda_plan = false);
// An unallocated array of the value's dtype and shape on its backend, for jf::explain's analysis.
array_base described(const matmul_node& n);

// The fused sums the rewrite and jf::einsum run (src/core/sum_reduction.cpp: one reduction
// evaluation of jetfuse's engine, a generated kernel on jf::cuda, without YAP), each a new array
// of x's dtype (integer sums wrap around in it; bool: any):
// sum(x, axes) over `naxes` axes (naxes < 0: all), keepdims as numpy's.
array_base sum_over(const array_base& x, const int* axes, int naxes, bool keepdims);
// sum(x * y, axis) with x and y broadcast together (one fused multiply-reduction).
array_base sum_of_products(const array_base& x, const array_base& y, int axis, bool keepdims);
// jf::explain's account of sum_over's / sum_of_products' evaluation (the reduction's IR and kernel
// plan; cuda_plan: jf::cuda's whatever the backend).
std::string explain_sum_over(const array_base& x, const int* axes, int naxes, bool keepdims, bool cuda_plan = false);
std::string explain_sum_of_products(const array_base& x, const array_base& y, int axis, bool keepdims,
                                    bool cuda_plan = false);

// How a rewrite (and jf::einsum) forms a vector-matrix product, sum(a, 0) @ b, and a matrix-vector
// product, a @ sum(b, 1). automatic: the first through the matmul backend (cuBLAS's gemv on
// jf::cuda: a fused column multiply-reduction with a broadcast vector measured at 30 % of the copy
// bandwidth, cuBLAS at 80 %), the second as jetfuse's fused row multiply-reduction (86 %).
// matmul / fused: both one way. A switch for benchmarks and tests (bench_matmul.cpp measures
// each); not meant to change while evaluations run.
enum class product_route : unsigned char { automatic, matmul, fused };
void set_product_route(product_route r);
product_route get_product_route();
// Under the current route: whether a vector-matrix (columns) / matrix-vector product uses matmul.
bool product_through_matmul(bool columns);

}  // namespace jf::detail
