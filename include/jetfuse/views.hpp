// numpy's shape-manipulation functions that return views: flip, expand_dims, squeeze,
// broadcast_to, swapaxes, moveaxis, transpose (and ravel, a view when the layout allows, else a copy). None
// of them copies or launches anything; the result shares its array's buffer, as numpy's does.
#pragma once

#include <initializer_list>

#include "jetfuse/array.hpp"

namespace jf {

namespace detail {
// Untyped implementations (src/core/views.cpp); axes are numpy's (negative counts from the end).
array_base flip(const array_base& a, const int* axes, int naxes, bool all_axes);
array_base expand_dims(const array_base& a, const int* axes, int naxes);
array_base squeeze(const array_base& a, const int* axes, int naxes, bool all_axes);
array_base broadcast_to(const array_base& a, const shape_t& shape);  // read-only: writes raise
array_base swapaxes(const array_base& a, int axis1, int axis2);
array_base moveaxis(const array_base& a, int source, int destination);
}  // namespace detail

// numpy.flip: the elements in reverse order along every axis, or along the given ones (a view with
// negative strides).
template <class T> array<T> flip(const array<T>& a) { return array<T>(detail::flip(a, nullptr, 0, true)); }
template <class T> array<T> flip(const array<T>& a, int axis) { return array<T>(detail::flip(a, &axis, 1, false)); }
template <class T> array<T> flip(const array<T>& a, std::initializer_list<int> axes) {
  return array<T>(detail::flip(a, axes.begin(), static_cast<int>(axes.size()), false));
}
// numpy.expand_dims: new axes of length 1 at the given positions of the result.
template <class T> array<T> expand_dims(const array<T>& a, int axis) { return array<T>(detail::expand_dims(a, &axis, 1)); }
template <class T> array<T> expand_dims(const array<T>& a, std::initializer_list<int> axes) {
  return array<T>(detail::expand_dims(a, axes.begin(), static_cast<int>(axes.size())));
}
// numpy.squeeze: without axes removes every axis of length 1; a named axis must have length 1.
template <class T> array<T> squeeze(const array<T>& a) { return array<T>(detail::squeeze(a, nullptr, 0, true)); }
template <class T> array<T> squeeze(const array<T>& a, int axis) { return array<T>(detail::squeeze(a, &axis, 1, false)); }
template <class T> array<T> squeeze(const array<T>& a, std::initializer_list<int> axes) {
  return array<T>(detail::squeeze(a, axes.begin(), static_cast<int>(axes.size()), false));
}
// numpy.broadcast_to: a view of `shape` whose stretched axes have stride 0. Like numpy's, it is
// read-only: writing into it (or into a view of it) raises jf::value_error.
template <class T> array<T> broadcast_to(const array<T>& a, const shape_t& shape) {
  return array<T>(detail::broadcast_to(a, shape));
}
// numpy.swapaxes and numpy.moveaxis (one axis).
template <class T> array<T> swapaxes(const array<T>& a, int axis1, int axis2) {
  return array<T>(detail::swapaxes(a, axis1, axis2));
}
template <class T> array<T> moveaxis(const array<T>& a, int source, int destination) {
  return array<T>(detail::moveaxis(a, source, destination));
}
// numpy.transpose(a): the axes reversed (a view, as a.transpose()).
template <class T> array<T> transpose(const array<T>& a) { return a.transpose(); }
// numpy.ravel (C order): a 1-d view when the elements allow one, else a contiguous copy.
template <class T> array<T> ravel(const array<T>& a) { return a.reshape(shape_t{-1}); }

}  // namespace jf
