// The launch of a loop-nest step: the CUDA backend's side of engine/backend.hpp.
#include "cuda/launch_nest.hpp"
#include "engine/backend.hpp"

namespace jf::detail {

void launch_nest_step(const ir::kernel_source& src, const cuda_rt::kernel& k, const step_bindings& b) {
  cuda_rt::launch_nest(src, k, b);
}

}  // namespace jf::detail
