// numpy's cumsum and cumprod as expression nodes, fused with the expression they scan:
// jf::cumsum(x * 2 + 1) is one kernel on jf::cuda (the producer computed as the scan reads it).
// A scan is an IR node scan(monoid, x) along one axis of x's domain, or along all of them in
// row-major order without an axis (numpy's axis=None, a 1-d result); src/engine/lower_reduction.cpp
// lowers it, src/cuda/codegen/shape_scan.cpp is its kernel.
//
// Result dtypes are numpy's (Linux): bool and int32 accumulate in int64, int64 stays int64 (wrapping
// as numpy's), float32 and float64 stay. An axis out of range raises jf::axis_error with numpy's
// message when the expression runs. A scan without an axis of a 2-d or larger operand must be the
// whole expression (jf::array<T> c = jf::cumsum(m);): inside a larger one give an axis.
#pragma once

#include "jetfuse/expr/reductions.hpp"

namespace jf {

#define JF_SCAN_FUNCTION(fname, R)                                                         \
  template <lazy_operand X> auto fname(X&& x) {                                            \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {}, true, false);        \
  }                                                                                        \
  template <lazy_operand X> auto fname(X&& x, int axis) {                                  \
    return detail::make_reduction<reducer::R>(std::forward<X>(x), {axis}, false, false);   \
  }
// numpy.cumsum(x): the running sums of the flattened x (C order); numpy.cumsum(x, axis).
JF_SCAN_FUNCTION(cumsum, cumsum)
// numpy.cumprod(x), numpy.cumprod(x, axis): running products.
JF_SCAN_FUNCTION(cumprod, cumprod)
#undef JF_SCAN_FUNCTION

}  // namespace jf
