// The seam between the engine and the CUDA backend: the engine plans and binds; the backend loads
// kernels (memory cache, disk cache, NVRTC), owns launch geometry (configure_launch of each kernel
// shape) and argument packing of loop nests, and launches. src/cuda/backend.cpp implements it;
// a build without CUDA links src/no_cuda/backend.cpp, whose functions throw jf::no_device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/step_bindings.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/ir/codegen.hpp"

namespace jf::detail::backend {

// Throws jf::no_device with the reason when there is no usable GPU.
void require_cuda();
// The loaded kernel of a generated source (compiled with the evaluation's math options).
const cuda_rt::kernel& load_kernel(const ir::kernel_source& src, const eval_options& opt);
// A map step: the packed argument struct (the map ABI of graph.hpp) and the iteration space.
void launch_map(const ir::kernel_source& src, const cuda_rt::kernel& k, const void* args, std::size_t bytes,
                const std::int64_t* extents, int ndim);
// A loop-nest step: the backend packs the loop-nest ABI from the bindings.
void launch_nest(const ir::kernel_source& src, const cuda_rt::kernel& k, const step_bindings& b);
// jf::synchronize(): waits for the calling thread's stream when a GPU is present.
void synchronize_if_present();

}  // namespace jf::detail::backend
