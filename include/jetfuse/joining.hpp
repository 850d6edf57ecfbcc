// numpy.concatenate and numpy.stack: a new contiguous array on the arrays' backend, each operand
// copied into its part (one strided copy per operand; nothing is copied through the host).
#pragma once

#include <initializer_list>
#include <vector>

#include "jetfuse/array.hpp"

namespace jf {

namespace detail {
// Untyped implementations (src/core/joining.cpp), with numpy's checks and messages.
array_base concatenate(const array_base* arrays, int n, int axis);
array_base concatenate_flat(const array_base* arrays, int n);  // axis=None: the operands raveled
array_base stack(const array_base* arrays, int n, int axis);
}  // namespace detail

// numpy.concatenate(arrays, axis): the same number of dimensions, equal extents except along axis.
// The operands' dtype is the result's (jetfuse does not cast implicitly: use jf::astype first).
template <class T> array<T> concatenate(const std::vector<array<T>>& arrays, int axis = 0) {
  const std::vector<array_base> v(arrays.begin(), arrays.end());
  return array<T>(detail::concatenate(v.data(), static_cast<int>(v.size()), axis));
}
template <class T> array<T> concatenate(std::initializer_list<array<T>> arrays, int axis = 0) {
  return concatenate(std::vector<array<T>>(arrays), axis);
}
// numpy.concatenate(arrays, axis=None): the operands raveled, then joined.
template <class T> array<T> concatenate(const std::vector<array<T>>& arrays, none_t) {
  const std::vector<array_base> v(arrays.begin(), arrays.end());
  return array<T>(detail::concatenate_flat(v.data(), static_cast<int>(v.size())));
}
// numpy.stack(arrays, axis): operands of one shape joined along a new axis.
template <class T> array<T> stack(const std::vector<array<T>>& arrays, int axis = 0) {
  const std::vector<array_base> v(arrays.begin(), arrays.end());
  return array<T>(detail::stack(v.data(), static_cast<int>(v.size()), axis));
}
template <class T> array<T> stack(std::initializer_list<array<T>> arrays, int axis = 0) {
  return stack(std::vector<array<T>>(arrays), axis);
}

}  // namespace jf
