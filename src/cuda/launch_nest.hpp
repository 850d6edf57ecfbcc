// The launch of a loop-nest kernel (jf::ir kernel shapes other than map): packs the argument struct
// of the loop-nest ABI (jf::ir::graph), provides the zeroed scratch buffer, launches on the calling
// thread's stream. Compiled only with the CUDA backend.
#pragma once

#include "core/step_bindings.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"

namespace jf::cuda_rt {

// Launches kernel `k` (compiled from `src`, a loop-nest kernel_source) on the bindings `b`: one
// pointer and one stride per global axis for every operand, the extents, the params. Asynchronous
// (stream-ordered scratch allocation, zeroing, launch and free). Throws jf::error when the bindings
// do not match the kernel or an int-indexed kernel's offsets do not fit int32; jf::cuda_error when
// the launch fails. Nothing is launched when the output domains have no iteration.
void launch_nest(const ir::kernel_source& src, const kernel& k, const detail::step_bindings& b);

// The facts about device 0 that launch_nest passes to ir::configure_launch (SMs, threads and
// shared memory per SM and per block), read from the driver once. Exposed for tests and explain.
const ir::device_limits& nest_device_limits();

// The argument struct's slots for these bindings (exposed for tests): outputs' pointers, inputs'
// pointers, params, extents, strides per operand, and `scratch` last.
std::vector<std::uint64_t> pack_nest_args(const ir::kernel_source& src, const detail::step_bindings& b, void* scratch);

}  // namespace jf::cuda_rt
