// Optimisation passes over jf::ir::graph, each its own unit (src/passes/*.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "jetfuse/ir/graph.hpp"

namespace jf::ir {

struct pass_options {
  bool fast_math = false;  // allows rewrites that are not bit-identical (x**3 -> x*x*x, ...)
};

// Identical nodes (same opcode, dtype, arguments, index / value) become one.
void eliminate_common_subexpressions(graph& g);
// Nodes whose arguments are all constants are evaluated on the host (with jf::ops, so the result
// is what the kernel would have computed) and become constants.
void fold_constants(graph& g);
// Algebraic rewrites that keep results bit-identical: integer powers -> multiplications,
// x*1, 1*x, x-0, x+0 (integers, or x+(-0.0)), -(-x), casts to the same dtype; more with fast_math.
void simplify(graph& g, const pass_options& opt);
// Removes nodes no output depends on and renumbers the rest (inputs and params keep their
// indices: they are the kernel's ABI).
void remove_dead_code(graph& g);
// All of the above, to a fixed point.
void optimize(graph& g, const pass_options& opt);

// ---- fusion grouping ---------------------------------------------------------------------------
enum class fusion_mode : std::uint8_t { fused, unfused };

// Where a kernel operand of one step comes from.
struct operand_ref {
  enum class kind : std::uint8_t { input, output, temporary } k = kind::input;
  std::int32_t index = 0;  // into the original graph's inputs / outputs, or the plan's temporaries
};

// One kernel launch: its own graph, and what its inputs, params and outputs are bound to.
struct plan_step {
  graph kernel;
  std::vector<operand_ref> inputs;     // one per kernel.inputs
  std::vector<std::int32_t> params;    // original param index, one per kernel.params
  std::vector<operand_ref> outputs;    // one per kernel.outputs
};

// How one evaluation runs: fused, one step holds all element-wise work (every output in one
// kernel); unfused, one step per operation with a contiguous temporary (of the iteration space's
// shape) per intermediate, as CuPy does without fusion.
struct plan {
  std::vector<plan_step> steps;
  std::vector<dtype> temporaries;
  // Loop-nest plans: the domain each temporary holds one value per iteration of (row-major over
  // graph::chain_axes of that domain). Empty for map plans (temporaries of the iteration space).
  std::vector<domain_id> temporary_domain;
};
plan make_plan(const graph& optimized, fusion_mode mode);

// The plan of a loop-nest graph (src/passes/plan_nest.cpp). Fused: producers are fused into the
// reductions that consume them and a reduction into the element-wise work that uses it where one
// kernel can hold both; a value is stored to a temporary only when a later reduction depends on it
// or it is carried into a domain it does not enclose. Unfused: every operation is its own step.
plan make_nest_plan(const graph& optimized, fusion_mode mode);

}  // namespace jf::ir
