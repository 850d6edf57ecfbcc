// Element-wise copy between two CUDA arrays of equal shape and dtype with any strides (src may
// have stride 0 on broadcast axes). Implemented by the engine with a generated kernel.
#pragma once

#include "jetfuse/array.hpp"

namespace jf::detail {
void cuda_strided_copy(const array_base& dst, const array_base& src);
}  // namespace jf::detail
