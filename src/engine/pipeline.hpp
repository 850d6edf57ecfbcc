// The one lowering -> optimisation -> planning -> code generation pipeline of an evaluation, used
// by the variant cache (which then loads the kernels) and by jf::explain (which prints each stage).
#pragma once

#include <string>
#include <vector>

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

}  // namespace jf::detail
