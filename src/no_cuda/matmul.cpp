// The GPU matrix products of a CPU-only build: no jf::cuda array can exist, so this is never
// reached; it says so if it is.
#include "core/matmul_backends.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::matmul_impl {

void cuda_gemm(const problem&) {
  throw no_device(
      "jetfuse: no CUDA device: jetfuse was built without the CUDA backend (JF_ENABLE_CUDA=OFF or no toolkit)");
}

}  // namespace jf::detail::matmul_impl
