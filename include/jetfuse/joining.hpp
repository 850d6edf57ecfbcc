// New arrays made of pieces of others, as numpy makes them: concatenate, stack, roll, tile, repeat.
// Each result is a new contiguous array on the operands' backend, filled by strided copies (one
// per piece; nothing goes through the host).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "jetfuse/array.hpp"

namespace jf {

namespace detail {
// Untyped implementations (src/core/joining.cpp), with numpy's checks and messages.
array_base concatenate(const array_base* arrays, int n, int axis);
array_base concatenate_flat(const array_base* arrays, int n);  // axis=None: the operands raveled
array_base stack(const array_base* arrays, int n, int axis);
array_base roll(const array_base& a, std::int64_t shift, int axis, bool flat);
array_base tile(const array_base& a, const shape_t& reps);
array_base repeat(const array_base& a, std::int64_t repeats, int axis, bool flat);
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

// numpy.roll(a, shift): the flattened elements rotated by shift (negative: to the left), same
// shape; numpy.roll(a, shift, axis): along one axis.
template <class T> array<T> roll(const array<T>& a, std::int64_t shift) { return array<T>(detail::roll(a, shift, 0, true)); }
template <class T> array<T> roll(const array<T>& a, std::int64_t shift, int axis) {
  return array<T>(detail::roll(a, shift, axis, false));
}
// numpy.tile(a, reps): a repeated reps[k] times along axis k (a gets leading axes of length 1, or
// reps leading 1s, until their lengths agree).
template <class T> array<T> tile(const array<T>& a, const shape_t& reps) { return array<T>(detail::tile(a, reps)); }
// numpy.repeat(a, repeats): every element of the flattened a repeated `repeats` times in a row;
// numpy.repeat(a, repeats, axis): along one axis. (Per-element counts: repeat_counts.hpp.)
template <class T> array<T> repeat(const array<T>& a, std::int64_t repeats) {
  return array<T>(detail::repeat(a, repeats, 0, true));
}
template <class T> array<T> repeat(const array<T>& a, std::int64_t repeats, int axis) {
  return array<T>(detail::repeat(a, repeats, axis, false));
}

}  // namespace jf
