// The seam between the engine and the CUDA backend for loop-nest steps: the engine binds a step's
// operands (step_bindings) and the backend packs the kernel's arguments and launches it. A build
// without CUDA links src/no_cuda/launch_step.cpp, which throws jf::no_device.
#pragma once

#include "core/step_bindings.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"

namespace jf::detail {

void launch_nest_step(const ir::kernel_source& src, const cuda_rt::kernel& k, const step_bindings& b);

}  // namespace jf::detail
