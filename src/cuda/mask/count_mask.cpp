// detail::count_true_fast on jf::cuda: a C-contiguous bool array counted by count_true.cu's kernel
// (16 bytes a load) on the calling thread's stream, read back at once.
#include "cuda/context.hpp"
#include "cuda/mask/count_true.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/expr/count_true.hpp"

namespace jf::detail {

std::optional<std::int64_t> count_true_fast(const array_base& mask) {
  if (mask.device().kind != device_kind::cuda || mask.dtype() != dtype::bool_ || !mask.is_contiguous())
    return std::nullopt;
  cuda_rt::context::enter();
  void* total = cuda_rt::allocate(sizeof(unsigned long long));
  const int code = cuda_mask::count_true(detail::address_of(mask), mask.size(), static_cast<unsigned long long*>(total),
                                         cuda_rt::props().sm_count, cuda_rt::current_stream());
  unsigned long long count = 0;
  if (code == 0) cuda_rt::copy_dtoh(&count, total, sizeof count);  // the count's one synchronisation
  cuda_rt::deallocate(total);
  if (code != 0) throw cuda_error(std::string("jetfuse: counting a mask failed: ") + cuda_mask::error_text(code));
  return static_cast<std::int64_t>(count);
}

}  // namespace jf::detail
