// x(mask) = values: numpy's boolean-mask assignment of an array or expression of values, one per
// selected element (x[mask] = v). The count of the mask is read back (the one synchronisation), the
// selected flat positions are one fused compaction (jf::flatnonzero), and the values go in with
// numpy's x[indices] = v along the first axis of x seen as (mask's elements, x's other axes): one
// scatter kernel. numpy's errors come before anything is written.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "jetfuse/expr/compaction.hpp"
#include "jetfuse/expr/masked.hpp"
#include "jetfuse/expr/scatter.hpp"

namespace jf {

template <class T, class M>
template <class V>
requires(!scalar_operand<V>) void masked_assignment<T, M>::operator=(V&& values) && {
  static_assert(operand<V>, JF_UNSUPPORTED_OPERAND_MESSAGE);
  if (target_.is_null()) throw value_error("jetfuse: x(mask) = values into a null array handle");
  const auto m = capture(mask_);
  shape_t ms;
  if (const auto s = detail::shape_of_operand(m))
    ms = *s;
  else
    ms = array<bool>(m).shape();  // a shape its reductions decide: evaluated for its shape only
  detail::check_mask_shape(target_.shape(), ms);
  auto v = capture(std::forward<V>(values));
  shape_t vs;
  if (const auto s = detail::shape_of_operand(v))
    vs = *s;
  else
    vs = eval(v).shape();
  const array<std::int64_t> positions = detail::flat_positions(m);
  const std::int64_t count = positions.size();
  if (ms.size() == target_.ndim()) {  // numpy's rules for a selection of single elements
    if (vs.size() > 1)
      throw shape_error("NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, input has " +
                        std::to_string(vs.size()) + " dimensions");
    if (vs.product() != count && vs.product() != 1)
      throw value_error("NumPy boolean array indexing assignment cannot assign " + std::to_string(vs.product()) +
                        " input values to the " + std::to_string(count) + " output values where the mask is true");
  }
  // x seen as (the mask's elements, x's other axes): a view of x's elements when x is contiguous,
  // else a contiguous copy written back after the scatter.
  shape_t rows{ms.product()};
  for (int k = ms.size(); k < target_.ndim(); ++k) rows.push_back(target_.shape()[k]);
  const bool in_place = target_.is_contiguous();
  const array<T> work = in_place ? target_ : target_.copy();
  const array<T> view = work.reshape(rows);
  view(positions) = v;  // numpy's broadcasting of v to (count, x's other axes) and its message
  if (!in_place) {
    array<T> x = target_;
    std::move(x) = work;
  }
}

}  // namespace jf
