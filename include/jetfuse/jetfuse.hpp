// jetfuse: numpy-like lazy array expressions fused into one generated CUDA kernel, with an Eigen
// CPU backend. Include this one header.
#pragma once

#include "jetfuse/array.hpp"
#include "jetfuse/device.hpp"
#include "jetfuse/dtype.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/eval.hpp"
#include "jetfuse/expr/expr.hpp"
#include "jetfuse/expr/functions.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/type_of.hpp"
#include "jetfuse/stats.hpp"

namespace jf {
// Waits until every kernel this thread launched has finished (host reads do this themselves).
void synchronize();
}  // namespace jf
