// The evaluation pipeline (pipeline.hpp).
#include "engine/pipeline.hpp"

#include <sstream>

#include "engine/backend.hpp"

namespace jf::detail {

planned plan_evaluation(ir::graph lowered, const eval_options& opt) {
  planned p;
  p.optimized = std::move(lowered);
  ir::pass_options po;
  po.fast_math = opt.fast_math;
  ir::optimize(p.optimized, po);
  const ir::fusion_mode mode = opt.mode == eval_mode::fused ? ir::fusion_mode::fused : ir::fusion_mode::unfused;
  p.plan = p.optimized.loop_nest ? ir::make_nest_plan(p.optimized, mode) : ir::make_plan(p.optimized, mode);
  ir::codegen_options co;
  co.fast_math = opt.fast_math;
  for (const auto& step : p.plan.steps) p.sources.push_back(ir::generate_cuda(step.kernel, co));
  return p;
}

void build_variant(variant& v, ir::graph lowered, const eval_options& opt, device dev) {
  if (dev.kind == device_kind::cpu) {
    v.lowered = std::move(lowered);
    return;
  }
  planned p = plan_evaluation(std::move(lowered), opt);
  v.plan = std::move(p.plan);
  v.sources = std::move(p.sources);
  for (const auto& src : v.sources) v.kernels.push_back(&backend::load_kernel(src, opt));
}

std::string describe_cuda(const ir::graph& lowered, const eval_options& opt) {
  std::ostringstream os;
  os << "--- IR before the passes ---\n" << lowered.to_string();
  const planned p = plan_evaluation(lowered, opt);
  os << "--- IR after the passes ---\n" << p.optimized.to_string();
  os << "--- plan: " << p.plan.steps.size() << " kernel(s), " << p.plan.temporaries.size() << " temporaries";
  if (p.optimized.loop_nest && !p.plan.temporaries.empty())
    os << " (values read by a later reduction or scan, carried into a domain they do not enclose, or scans read by "
          "later work)";
  os << " ---\n";
  for (const auto& src : p.sources) {
    os << "--- kernel " << src.name << ": " << ir::describe_launch(src) << " ---\n";
    const auto pos = src.source.find("// ---- jetfuse kernel");
    os << "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n"
       << (pos == std::string::npos ? src.source : src.source.substr(pos));
  }
  return os.str();
}

std::string describe_backend(const ir::graph& lowered, device dev, const eval_options& opt, const char* executor,
                             const char* cpu_plan) {
  if (dev.kind == device_kind::cpu && !opt.explain_cuda)
    return std::string("--- IR (run as lowered by the CPU executor, ") + executor + ") ---\n" + lowered.to_string() +
           "--- CPU plan: " + cpu_plan + " ---\n";
  return describe_cuda(lowered, opt);
}

}  // namespace jf::detail
