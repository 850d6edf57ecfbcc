// detail::count_true_fast in a build without CUDA: masks are counted by the fused reduction.
#include "jetfuse/expr/count_true.hpp"

namespace jf::detail {

std::optional<std::int64_t> count_true_fast(const array_base&) { return std::nullopt; }

}  // namespace jf::detail
