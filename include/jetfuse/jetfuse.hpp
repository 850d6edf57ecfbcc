// jetfuse: numpy-like lazy array expressions (element-wise work and reductions) fused into
// generated CUDA kernels, with a CPU backend that executes the same IR. Include this one header.
#pragma once

#include "jetfuse/array.hpp"
#include "jetfuse/awkward_print.hpp"
#include "jetfuse/device.hpp"
#include "jetfuse/dtype.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/einsum.hpp"
#include "jetfuse/eval.hpp"
#include "jetfuse/combinations.hpp"
#include "jetfuse/cartesian.hpp"
#include "jetfuse/expr/closeness.hpp"
#include "jetfuse/expr/compaction.hpp"
#include "jetfuse/expr/expr.hpp"
#include "jetfuse/expr/functions.hpp"
#include "jetfuse/expr/histogram.hpp"
#include "jetfuse/expr/jagged_mask.hpp"
#include "jetfuse/expr/masked_values.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/expr/scans.hpp"
#include "jetfuse/expr/scatter.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/expr/type_of.hpp"
#include "jetfuse/expr/user_function.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/jagged_option.hpp"
#include "jetfuse/jagged_sorting.hpp"
#include "jetfuse/joining.hpp"
#include "jetfuse/matmul.hpp"
#include "jetfuse/option_array.hpp"
#include "jetfuse/option_ops.hpp"
#include "jetfuse/pad_none.hpp"
#include "jetfuse/like.hpp"
#include "jetfuse/random.hpp"
#include "jetfuse/record.hpp"
#include "jetfuse/repeat_counts.hpp"
#include "jetfuse/sorting.hpp"
#include "jetfuse/stats.hpp"
#include "jetfuse/views.hpp"

namespace jf {
// Waits until every kernel this thread launched has finished (host reads do this themselves).
void synchronize();
}  // namespace jf
