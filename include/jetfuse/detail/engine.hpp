// The non-template evaluation engine (src/engine/) and the analysis shared by both
// backends: broadcasting, effective strides, layouts, aliasing and overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/lowering.hpp"
#include "jetfuse/ir/graph.hpp"

namespace jf::detail {

enum class eval_mode : std::uint8_t { fused, unfused };

struct eval_options {
  eval_mode mode = eval_mode::fused;
  bool fast_math = false;
  bool explain_cuda = false;  // jf::explain_cuda: describe jf::cuda's plan whatever the arrays' backend
};

// ---- analysis ----------------------------------------------------------------------------------
// The backend of the leaves; throws backend_mismatch naming both when they differ, value_error
// naming a leaf that is a null handle (null outputs are allowed: they are allocated).
device common_device(const array_base* const* arrays, int n, const array_base* outputs, int nout);
// The broadcast shape of the leaves; throws shape_error naming the shapes that do not broadcast.
shape_t broadcast_leaves(const array_base* const* arrays, int n);
// Strides (in elements) of `a` seen on the iteration space `iter` (0 on broadcast axes).
strides_t effective_strides(const array_base& a, const shape_t& iter);
ir::layout classify(const strides_t& eff, const shape_t& iter);
// Whether the memory of two arrays may overlap (same buffer and intersecting element ranges).
bool may_overlap(const array_base& a, const array_base& b);
// Whether two arrays address the same elements in the same order on `iter`.
bool same_elements(const array_base& a, const array_base& b, const shape_t& iter);
// Which scalar leaves the kernel specialises (small integral exponents of power, written as
// constants), and their part of the variant key (the exponent, or whether a compared integer lies
// outside the compared dtype).
void specialise_scalars(const scalar_slot* scalars, int n, std::vector<bool>& specialised, std::vector<std::int32_t>& key);
// numpy's checks of x[mask] for a mask of shape m (jf::index_error with its messages): rank at most
// x's, the extents of x's leading axes (src/engine/lower_nodes.cpp).
void check_mask_shape(const shape_t& x, const shape_t& m);
// jf::explain describes outputs without allocating them: null ones become unallocated contiguous
// arrays of `shape` (the analysis reads only their shape, dtype and strides).
std::vector<array_base> described_outputs(const array_base* outputs, const dtype* out_types, int nout, const shape_t& shape);
// Allocates null outputs with `shape`, checks that non-null ones can receive it (numpy's
// `out[...] = value` broadcasting; shape_error otherwise). Returns the iteration space.
shape_t prepare_outputs(array_base* outputs, const dtype* out_types, int nout, const shape_t& value_shape,
                        device dev);

// ---- the CUDA evaluation engine ----------------------------------------------------------------
// One cache slot per expression type (a function-local static in slot_for<>): its kernel
// variants keyed by what changes the generated code.
struct kernel_slot;
kernel_slot* new_kernel_slot();

// A scatter (expr/scatter.hpp: jf::put, x(indices) = v, jf::add_at, ...): the request's program
// holds two expressions, the indices then the values, whose elements go into `target` in place.
enum class scatter_kind : std::uint8_t {
  put,       // numpy.put: the target flattened, values repeated cyclically, mode raise / wrap / clip
  setitem,   // numpy's x[indices] = v along the first axis, v broadcast to indices.shape + x.shape[1:]
  ufunc_at,  // numpy's np.add.at(x, indices, v) and its siblings: every index counts
};
struct scatter_spec {
  array_base target;  // a handle of the array written
  scatter_kind kind = scatter_kind::setitem;
  ir::put_rule rule = ir::put_rule::store;
  ir::gather_mode mode = ir::gather_mode::raise;
  dtype value_type = dtype::float64;  // the values' dtype at the put (the target's when stored)
  int index_arrays = 0;               // array leaves of the indices (the values' follow)
  int index_program = 0;              // entries of the indices' program (the values' follow)
  int axis = 0;  // the axis numpy's IndexError names (the target's first; x(jf::all, i) = v: x's axis 1)
  // Set by the engine, not the front end: what is remembered about the index array (src/engine/
  // remembered_indices.hpp; ir::put_known_in_bounds, ir::put_known_repeats, ir::winners_of_put),
  // and the winners' bitmap the kernel reads or fills (device memory, the kernel's aux pointer).
  std::uint8_t remembered = 0;
  void* winners = nullptr;
};

// Builds the IR of the expression type(s) for one variant; pushes one root per expression.
using lower_fn = void (*)(ir::graph& g, const lowering_inputs& in, int num_inputs, std::vector<ir::node_id>& roots);

struct eval_request {
  kernel_slot* slot = nullptr;
  lower_fn lower = nullptr;
  const array_base* const* arrays = nullptr;  // array leaves in walk order
  int narrays = 0;
  const scalar_slot* scalars = nullptr;      // scalar leaves in walk order
  int nscalars = 0;
  array_base* outputs = nullptr;              // one per expression; null handles are allocated
  const dtype* out_types = nullptr;           // dtype of each output
  int nout = 0;
  eval_options opt{};
  // Expressions with reductions: their structure in prefix order and each reduction's arguments.
  const prog_entry* program = nullptr;
  int program_size = 0;
  const reduce_spec* specs = nullptr;
  int nspecs = 0;
  // Scatters: the target and how values go into it (roots: the indices, then the values).
  const scatter_spec* scatter = nullptr;
  // Expressions over jagged arrays (expr/jagged_expr.hpp): where a jagged result's offsets go (its
  // content is outputs[0]) and an option result's validity (its values are outputs[0]).
  array_base* result_offsets = nullptr;
  array_base* result_valid = nullptr;
  // Expressions over nested lists: the result's outer offsets (the first nested operand's, from 0).
  array_base* result_outer_offsets = nullptr;
};

// Runs an evaluation on its arrays' backend: element-wise ones on jf::cuda as generated kernels,
// on jf::cpu by the CPU executor running the lowered IR; with reductions (r.program set) one IR of
// loop nests, executed as lowered on jf::cpu, optimised, planned and launched on jf::cuda.
void evaluate(const eval_request& r);
void evaluate_nest(const eval_request& r);
// An expression with jf::jagged leaves (a program entry prog_entry::jagged): src/engine/evaluate_lists.cpp.
void evaluate_lists(const eval_request& r);
std::string explain_lists(const eval_request& r);
bool has_jagged_leaves(const eval_request& r);
// A scatter (r.scatter set): numpy's errors, then one loop nest writing the target in place.
void evaluate_scatter(const eval_request& r);
// What a scatter runs (jf::explain's account; r.opt.explain_cuda: jf::cuda's plan whatever the backend).
std::string explain_scatter(const eval_request& r);
std::string explain_nest(const eval_request& r);
// jf::explain: on jf::cuda the IR before and after the passes, the plan and the generated
// source(s); on jf::cpu the IR the CPU executor runs as lowered and how it addresses the operands.
std::string explain(const eval_request& r);

}  // namespace jf::detail
