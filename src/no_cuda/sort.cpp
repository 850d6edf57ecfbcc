// The GPU sorts of a CPU-only build: no jf::cuda array can exist, so these are never reached; they
// say so if they are.
#include "core/sort_backends.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::sorting {
namespace {

[[noreturn]] void no_cuda() {
  throw no_device(
      "jetfuse: no CUDA device: jetfuse was built without the CUDA backend (JF_ENABLE_CUDA=OFF or no toolkit)");
}

}  // namespace

void cuda_sort_rows(const array_base&, const array_base&) { no_cuda(); }
void cuda_argsort_rows(const array_base&, const array_base&) { no_cuda(); }
unique_parts cuda_unique(const array_base&, bool, bool, bool, bool) { no_cuda(); }
void cuda_sort_lists(const array_base&, const array_base&, const array_base&, bool, bool) { no_cuda(); }

}  // namespace jf::detail::sorting
