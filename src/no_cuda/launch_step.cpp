// The launch of a loop-nest step in a CPU-only build: there is never a device.
#include "engine/backend.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

void launch_nest_step(const ir::kernel_source&, const cuda_rt::kernel&, const step_bindings&) {
  throw no_device("jetfuse: no CUDA device: jetfuse was built without the CUDA backend (JF_ENABLE_CUDA=OFF or no toolkit)");
}

}  // namespace jf::detail
