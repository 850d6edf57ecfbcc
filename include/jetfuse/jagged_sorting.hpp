// ak.sort and ak.argsort of jagged arrays: every list sorted on its own (axis=-1), stably, in
// Awkward's order — NaN first in either direction (numpy's jf::sort of dense arrays puts NaN last:
// Awkward's rule wins here, its results are the reference), -0.0 and +0.0 equal. Not lazy: each
// call returns a new jagged array on x's backend (CPU: std::stable_sort per list on the thread
// pool; jf::cuda: CUB's DeviceSegmentedSort). The result has x's list lengths; its offsets are x's
// own when they start at 0. axis=0 (across lists) is refused. Design: docs/design.md, "Sorting".
//
//   jf::jagged<float> leading = jf::sort(jets_pt, -1, jf::sort_order::descending);
//   jf::jagged<std::int64_t> order = jf::argsort(jets_pt, -1, jf::sort_order::descending);
#pragma once

#include <cstdint>
#include <utility>

#include "jetfuse/detail/jagged_access.hpp"
#include "jetfuse/jagged.hpp"

namespace jf {

enum class sort_order : bool { descending = false, ascending = true };  // Awkward's ascending=True/False

namespace detail {
// src/core/sorting_lists.cpp: the result's offsets and its content (values, or local indices).
std::pair<array_base, array_base> sort_lists(const array_base& offsets, const array_base& content, int axis,
                                             bool ascending, bool local_indices);
}  // namespace detail

// ak.sort(x, axis, ascending): each list's values in order.
template <class T>
jagged<T> sort(const jagged<T>& x, int axis = -1, sort_order order = sort_order::ascending) {
  auto [off, content] = detail::sort_lists(x.offsets(), x.content(), axis, order == sort_order::ascending, false);
  return detail::jagged_access::make(array<std::int64_t>(std::move(off)), array<T>(std::move(content)));
}
// ak.argsort(x, axis, ascending): each list's positions (0 .. its length - 1) in that order.
template <class T>
jagged<std::int64_t> argsort(const jagged<T>& x, int axis = -1, sort_order order = sort_order::ascending) {
  auto [off, local] = detail::sort_lists(x.offsets(), x.content(), axis, order == sort_order::ascending, true);
  return detail::jagged_access::make(array<std::int64_t>(std::move(off)), array<std::int64_t>(std::move(local)));
}

}  // namespace jf
