// The one lowering -> optimisation -> planning -> code generation pipeline of an evaluation, used
// by the variant cache (which then loads the kernels) and by jf::explain (which prints each stage).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/step_bindings.hpp"
#include "engine/backend.hpp"
#include "engine/variant_cache.hpp"
#include "jetfuse/detail/engine.hpp"

namespace jf::detail {

struct planned {
  ir::graph optimized;
  ir::plan plan;
  std::vector<ir::kernel_source> sources;  // one per plan step
};

// The passes, the plan (map graphs: one step, or one per operation unfused; loop nests: the nest
// planner) and the source of every step.
planned plan_evaluation(ir::graph lowered, const eval_options& opt);
// Fills a variant: on jf::cpu the lowered IR (the CPU executor runs it before any pass); on
// jf::cuda the plan and the loaded kernel of every step.
void build_variant(variant& v, ir::graph lowered, const eval_options& opt, device dev);
// jf::explain's account of the CUDA pipeline: IR before and after the passes, the plan, each step's
// kernel shape and launch, and its source.
std::string describe_cuda(const ir::graph& lowered, const eval_options& opt);
// jf::explain's account after its header: on jf::cpu (unless explain_cuda) the IR the CPU executor
// `executor` runs as lowered and its `cpu_plan`, else describe_cuda.
std::string describe_backend(const ir::graph& lowered, device dev, const eval_options& opt, const char* executor,
                             const char* cpu_plan);
// Launches every step of a built jf::cuda variant on b (its extents set): each step's operands bound
// by bind(const ir::operand_ref&) -> operand_binding (inputs, outputs, the plan's temporaries), its
// params by param(std::int32_t) -> the slot's bits.
// A template: the hot path allocates nothing for the callables.
template <class Bind, class Param> void launch_steps(const variant& v, step_bindings& b, Bind&& bind, Param&& param) {
  for (std::size_t s = 0; s < v.plan.steps.size(); ++s) {
    const ir::plan_step& step = v.plan.steps[s];
    b.inputs.clear();
    b.outputs.clear();
    b.params.clear();
    for (const auto& ref : step.inputs) b.inputs.push_back(bind(ref));
    for (const auto& ref : step.outputs) b.outputs.push_back(bind(ref));
    for (auto p : step.params) b.params.push_back(param(p));
    backend::launch_nest(v.sources[s], *v.kernels[s], b);
  }
}

}  // namespace jf::detail
