// The CUDA side of engine/backend.hpp.
#include "engine/backend.hpp"

#include "cuda/launch_nest.hpp"

namespace jf::detail::backend {

void require_cuda() { cuda_rt::require(); }

const cuda_rt::kernel& load_kernel(const ir::kernel_source& src, const eval_options& opt) {
  cuda_rt::compile_options ko;
  ko.fast_math = opt.fast_math;
  return cuda_rt::get_kernel(src.name, src.source, ko);
}

void launch_map(const ir::kernel_source& src, const cuda_rt::kernel& k, const void* args, std::size_t bytes,
                const std::int64_t* extents, int ndim) {
  const ir::launch_config c = ir::configure_launch(src, extents, ndim, cuda_rt::nest_device_limits());
  if (c.empty()) return;
  cuda_rt::launch(k, c.grid[0], c.block[0], args, bytes);
}

void launch_nest(const ir::kernel_source& src, const cuda_rt::kernel& k, const step_bindings& b) {
  cuda_rt::launch_nest(src, k, b);
}

void synchronize_if_present() {
  if (cuda_rt::available()) cuda_rt::synchronize();
}

}  // namespace jf::detail::backend
