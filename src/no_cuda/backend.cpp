// engine/backend.hpp in a build without CUDA: there is never a device.
#include "engine/backend.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::backend {
namespace {
[[noreturn]] void no_cuda() {
  throw no_device("jetfuse: no CUDA device: jetfuse was built without the CUDA backend (JF_ENABLE_CUDA=OFF or no toolkit)");
}
}  // namespace

void require_cuda() { no_cuda(); }
const cuda_rt::kernel& load_kernel(const ir::kernel_source&, const eval_options&) { no_cuda(); }
void launch_map(const ir::kernel_source&, const cuda_rt::kernel&, const void*, std::size_t, const std::int64_t*, int) {
  no_cuda();
}
void launch_nest(const ir::kernel_source&, const cuda_rt::kernel&, const step_bindings&) { no_cuda(); }
void synchronize_if_present() {}

}  // namespace jf::detail::backend
