// x(mask) = value: numpy's boolean-mask assignment (x[mask] = v) of a scalar without compaction, as
// one fused kernel x = where(mask, v, x) that writes x in place; x(mask) = values (an array or
// expression: one value per selected element) in expr/masked_values.hpp. Reading x(mask) (numpy's x[mask], a
// compaction) converts the same proxy to an array: jf::array<T> y = x(mask); (expr/compaction.hpp).
#pragma once

#include <string>

#include "jetfuse/detail/assigned_value.hpp"
#include "jetfuse/expr/functions.hpp"

namespace jf {

// What x(mask) gives for a bool mask: something to assign a scalar to.
template <class T, class M> class masked_assignment {
public:
  masked_assignment(array<T> target, M mask) : target_(std::move(target)), mask_(std::move(mask)) {}
  // numpy's conversion to x's dtype (detail::assigned_value: 1.5 into int32 is 1; an integer
  // outside an integer x's dtype is numpy's OverflowError, jf::dtype_error, x untouched).
  template <class V>
    requires scalar_operand<V>
  void operator=(V value) && {
    const T v = detail::assigned_value<T>(static_cast<scalar_value_of_t<V>>(value));
    array<T> x = target_;  // a handle: the assignment writes target's elements
    if constexpr (is_array_v<M>) {
      x = where(padded(mask_), v, x);
    } else {
      x = where(mask_, v, x);  // an expression mask: broadcast like where (it should have x's shape)
    }
  }
  // Reading: the selected elements, 1-d in C order (numpy's x[mask]; defined in expr/compaction.hpp).
  operator array<T>() const;

  // numpy's x[mask] = values: one value per selected element in C order (a mask of x's rank: values
  // 0-d or 1-d, of the count or of size 1), or values broadcast to (count, rest of x's axes) (a mask
  // of lower rank selects rows). The count is read back (one synchronisation, as reading x(mask));
  // then the selected positions (one fused compaction) and x(positions) = values (one scatter).
  // Defined in expr/masked_values.hpp.
  template <class V>
    requires(!scalar_operand<V>)
  void operator=(V&& values) &&;

private:
  // numpy: a mask of rank k selects along x's first k axes, whose extents it must have.
  array<bool> padded(const array<bool>& m) const {
    if (m.ndim() > target_.ndim())
      throw index_error("too many indices for array: array is " + std::to_string(target_.ndim()) + "-dimensional, but " +
                        std::to_string(m.ndim()) + " were indexed");
    for (int k = 0; k < m.ndim(); ++k)
      if (m.shape()[k] != target_.shape()[k])
        throw index_error("boolean index did not match indexed array along axis " + std::to_string(k) + "; size of axis is " +
                          std::to_string(target_.shape()[k]) + " but size of corresponding boolean axis is " +
                          std::to_string(m.shape()[k]));
    shape_t s = m.shape();
    while (s.size() < target_.ndim()) s.push_back(1);
    return m.reshape(s);
  }
  array<T> target_;
  M mask_;
};

}  // namespace jf
