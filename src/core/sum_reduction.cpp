// Untyped fused sums (detail/matmul_node.hpp): the IR that the typed walk would lower for
// jf::sum(x, axes) and jf::sum(x * y, axis), built here by hand so that src/core (the matmul rewrite,
// jf::einsum's sum-out) runs jetfuse's own reduction kernels without a YAP expression.
#include <utility>
#include <vector>

#include "jetfuse/detail/engine.hpp"
#include "jetfuse/detail/matmul_node.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {

// The IR of sum(x) (Product: sum(x * y)) over array leaves of dtype T: the reduction is number 0 in
// prefix order, its operand region 1 (expr/walk.hpp's lower_cursor conventions).
template <dtype T, bool Product>
void lower_sum(ir::graph& g, const lowering_inputs& in, int num_inputs, std::vector<ir::node_id>& roots) {
  constexpr int regions = 2;
  std::vector<ir::node_id> input_nodes(static_cast<std::size_t>(num_inputs * regions), ir::no_node);
  ir::node_id x = lower_input(g, in, 0, 1, regions, input_nodes, T);
  if constexpr (Product) {
    const ir::node_id args[2] = {x, lower_input(g, in, 1, 1, regions, input_nodes, T)};
    x = lower_operation(g, op::multiply, T, args, 2, home_domain(in, 1));
  }
  roots.push_back(lower_reduction(g, *in.nest, 0, x));
}

template <bool Product, std::size_t... K>
lower_fn lower_for(dtype t, std::index_sequence<K...>) {
  lower_fn f = nullptr;
  ((t == all_dtypes[K] ? (f = &lower_sum<all_dtypes[K], Product>, 0) : 0), ...);
  return f;
}
template <bool Product>
lower_fn lower_for(dtype t) {
  return lower_for<Product>(t, std::make_index_sequence<num_dtypes>{});
}

// One cache slot per (operand dtype, product or not), as the typed path has one per expression type.
kernel_slot* slot_for(dtype t, bool product) {
  static kernel_slot* const* const slots = [] {
    static kernel_slot* s[2 * num_dtypes];
    for (kernel_slot*& k : s) k = new_kernel_slot();
    return s;
  }();
  return slots[(product ? num_dtypes : 0) + static_cast<int>(t)];
}

constexpr prog_entry sum_program[] = {{prog_entry::reduction, 1}, {prog_entry::array, 0}};
constexpr prog_entry product_program[] = {
    {prog_entry::reduction, 1}, {prog_entry::elementwise, 2}, {prog_entry::array, 0}, {prog_entry::array, 0}};

struct sum_request {
  eval_request r;
  reduce_spec spec;
  const array_base* leaves[2] = {};
  dtype out_type = dtype::float64;
  sum_request(const sum_request&) = delete;  // r points into it
  sum_request(const array_base* x, const array_base* y, const int* axes, int naxes, bool keepdims, array_base* out) {
    if (x->is_null() || (y && y->is_null())) throw value_error("jetfuse: a sum of a null array handle");
    if (y && y->dtype() != x->dtype()) throw dtype_error("jetfuse: sum_of_products of two dtypes");
    if (naxes > max_ndim) throw axis_error("jetfuse: more axes than an array can have");
    spec.kind = reducer::sum;
    spec.all_axes = naxes < 0;
    spec.keepdims = keepdims;
    for (int k = 0; k < naxes; ++k) spec.axes[spec.naxes++] = axes[k];
    leaves[0] = x;
    leaves[1] = y;
    out_type = x->dtype();  // numpy's einsum keeps the dtype; integer sums wrap (bool: any)
    const bool product = y != nullptr;
    r.slot = slot_for(x->dtype(), product);
    r.lower = product ? lower_for<true>(x->dtype()) : lower_for<false>(x->dtype());
    r.arrays = leaves;
    r.narrays = product ? 2 : 1;
    r.outputs = out;
    r.out_types = &out_type;
    r.nout = 1;
    r.program = product ? product_program : sum_program;
    r.program_size = product ? 4 : 2;
    r.specs = &spec;
    r.nspecs = 1;
  }
};

}  // namespace

array_base sum_over(const array_base& x, const int* axes, int naxes, bool keepdims) {
  array_base out;
  sum_request s(&x, nullptr, axes, naxes, keepdims, &out);
  evaluate(s.r);
  return out;
}

array_base sum_of_products(const array_base& x, const array_base& y, int axis, bool keepdims) {
  array_base out;
  sum_request s(&x, &y, &axis, 1, keepdims, &out);
  evaluate(s.r);
  return out;
}

std::string explain_sum_over(const array_base& x, const int* axes, int naxes, bool keepdims, bool cuda_plan) {
  array_base out;
  sum_request s(&x, nullptr, axes, naxes, keepdims, &out);
  s.r.opt.explain_cuda = cuda_plan;
  return explain_nest(s.r);
}

std::string explain_sum_of_products(const array_base& x, const array_base& y, int axis, bool keepdims,
                                    bool cuda_plan) {
  array_base out;
  sum_request s(&x, &y, &axis, 1, keepdims, &out);
  s.r.opt.explain_cuda = cuda_plan;
  return explain_nest(s.r);
}

}  // namespace jf::detail
