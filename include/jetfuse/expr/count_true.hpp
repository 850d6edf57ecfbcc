// The count that x(mask) and its relatives read back before they allocate their result, for the
// common mask, a C-contiguous bool array on jf::cuda: one kernel reading 16 bytes a load
// (src/cuda/mask/). Anything else (CPU, expressions, strided or other dtypes) gets none, and the
// caller counts with the fused jf::count_nonzero.
#pragma once

#include <cstdint>
#include <optional>

#include "jetfuse/array.hpp"

namespace jf::detail {

std::optional<std::int64_t> count_true_fast(const array_base& mask);

}  // namespace jf::detail
