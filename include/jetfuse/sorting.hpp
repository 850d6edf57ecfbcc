// numpy's sort, argsort and unique: jf::sort(x), jf::argsort(x, axis), jf::unique(x),
// jf::unique_counts / unique_inverse / unique_all (numpy 2). Not lazy: each call returns new arrays
// on x's backend (the CPU sorts with std::stable_sort; jf::cuda runs CUB's device sorts). x is any
// array (any dtype, any view) or any expression, which is evaluated into a contiguous temporary
// first (one fused kernel). Orders are numpy's: NaN after everything else; argsort is stable
// (numpy's kind='stable'). Design: docs/design.md, "Sorting".
#pragma once

#include <cstdint>
#include <type_traits>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/sorting_untyped.hpp"
#include "jetfuse/eval.hpp"
#include "jetfuse/expr/expr.hpp"
#include "jetfuse/expr/type_of.hpp"

namespace jf {

namespace detail {
// Dense operands; jf::jagged has its own sort and argsort (jagged_sorting.hpp).
template <class X>
concept dense_sort_operand = lazy_operand<X> && !is_jagged_v<X>;

// The element type of an operand: an array's, or an expression's result dtype.
template <class X>
struct sort_element {
  using type = value_type_t<X>;
};
template <class T>
struct sort_element<array<T>> {
  using type = T;
};
template <class X>
using sort_element_t = typename sort_element<std::remove_cvref_t<X>>::type;

// An array operand as it is (any view); an expression evaluated into a new contiguous array.
template <class X>
array_base sort_operand(const X& x) {
  if constexpr (is_array_v<X>)
    return x;
  else
    return array<sort_element_t<X>>(x);
}
}  // namespace detail

// numpy.sort(x, axis=-1): a new array of x's dtype and shape, sorted along axis (negative counts
// from the end), NaN last. Equal values are indistinguishable except -0.0 and +0.0, which numpy
// orders either way (jf::cuda puts -0.0 first); a NaN keeps its payload but may lose its sign.
template <detail::dense_sort_operand X>
array<detail::sort_element_t<X>> sort(const X& x, int axis = -1) {
  return array<detail::sort_element_t<X>>(detail::sort(detail::sort_operand(x), axis, false));
}
// numpy.sort(x, axis=None): the flattened elements (C order), sorted: a 1-d array.
template <detail::dense_sort_operand X>
array<detail::sort_element_t<X>> sort(const X& x, none_t) {
  return array<detail::sort_element_t<X>>(detail::sort(detail::sort_operand(x), 0, true));
}

// numpy.argsort(x, axis=-1, kind='stable'): int64 indices along axis that sort x; equal elements
// (-0.0 and +0.0 included, and every NaN) keep their order. A 0-d x counts as 1-d (numpy).
template <detail::dense_sort_operand X>
array<std::int64_t> argsort(const X& x, int axis = -1) {
  return array<std::int64_t>(detail::argsort(detail::sort_operand(x), axis, false));
}
// numpy.argsort(x, axis=None, kind='stable'): flat (C-order) indices of the flattened x.
template <detail::dense_sort_operand X>
array<std::int64_t> argsort(const X& x, none_t) {
  return array<std::int64_t>(detail::argsort(detail::sort_operand(x), 0, true));
}

// numpy.unique(x): the sorted distinct values of the flattened x, a 1-d array. As numpy's default
// (equal_nan=True), all NaNs are one value, and -0.0 equals +0.0 (both backends return +0.0 and
// the default quiet NaN for them; numpy returns whichever its sort put first).
template <detail::dense_sort_operand X>
array<detail::sort_element_t<X>> unique(const X& x) {
  using T = detail::sort_element_t<X>;
  return array<T>(detail::unique(detail::sort_operand(x), true, false, false, false).values);
}

// numpy 2's unique_counts(x), unique_inverse(x), unique_all(x): as numpy's, every NaN is a value
// of its own (equal_nan=False); `auto [values, counts] = jf::unique_counts(x);`.
template <class T>
struct unique_counts_result {
  array<T> values;
  array<std::int64_t> counts;  // occurrences of each value
};
template <class T>
struct unique_inverse_result {
  array<T> values;
  array<std::int64_t> inverse_indices;  // x's shape: the index into values of each element
};
template <class T>
struct unique_all_result {
  array<T> values;
  array<std::int64_t> indices;          // the flat index of each value's first occurrence
  array<std::int64_t> inverse_indices;  // x's shape
  array<std::int64_t> counts;
};

template <detail::dense_sort_operand X>
unique_counts_result<detail::sort_element_t<X>> unique_counts(const X& x) {
  using T = detail::sort_element_t<X>;
  detail::unique_parts p = detail::unique(detail::sort_operand(x), false, false, false, true);
  return {array<T>(p.values), array<std::int64_t>(p.counts)};
}
template <detail::dense_sort_operand X>
unique_inverse_result<detail::sort_element_t<X>> unique_inverse(const X& x) {
  using T = detail::sort_element_t<X>;
  detail::unique_parts p = detail::unique(detail::sort_operand(x), false, false, true, false);
  return {array<T>(p.values), array<std::int64_t>(p.inverse)};
}
template <detail::dense_sort_operand X>
unique_all_result<detail::sort_element_t<X>> unique_all(const X& x) {
  using T = detail::sort_element_t<X>;
  detail::unique_parts p = detail::unique(detail::sort_operand(x), false, true, true, true);
  return {array<T>(p.values), array<std::int64_t>(p.indices), array<std::int64_t>(p.inverse),
          array<std::int64_t>(p.counts)};
}

}  // namespace jf
