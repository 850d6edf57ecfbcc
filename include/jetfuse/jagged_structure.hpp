// Awkward's structure functions on jf::jagged<T>, built from fused jetfuse array operations on the
// array's backend (take, searchsorted, cumsum, flatnonzero, where): ak.firsts, x[:, k],
// ak.local_index, x[lists] (an integer array) and x[mask] (a boolean array of lists), and
// ak.concatenate(..., axis=1). The offsets of every result are computed, so they are valid by
// construction (no validity read-back). Included at the end of jagged.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/detail/jagged_access.hpp"
#include "jetfuse/detail/jagged_checks.hpp"
#include "jetfuse/expr/compaction.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/option_array.hpp"

namespace jf {

namespace detail {
// The starts of the lists: offsets[:-1], a view.
inline array<std::int64_t> starts_of(const array<std::int64_t>& offsets) { return offsets(range(none, -1)); }

// Offsets [0, cumsum(counts)] of lists with these counts (int64, on their backend) and the total.
// A template only so that it is compiled where it is used (its expressions cost every includer).
template <class = void>
std::pair<array<std::int64_t>, std::int64_t> offsets_of_counts(const array<std::int64_t>& counts) {
  array<std::int64_t> offsets = zeros<std::int64_t>(shape_t{counts.size() + 1}, counts.device());
  if (counts.size() == 0) return {offsets, 0};
  offsets(range(1, none)) = cumsum(counts);
  return {offsets, offsets(counts.size()).value()};
}

// For every element j of lists with these offsets (starting at 0, `total` elements in all): the
// list it belongs to, searchsorted(offsets, j, 'right') - 1 (empty lists never match).
template <class = void>
auto list_of_elements(const array<std::int64_t>& offsets, const array<std::int64_t>& j) {
  return searchsorted(offsets, j, side::right) - std::int64_t{1};
}
}  // namespace detail

// ak.firsts(x): the first element of every list, None for an empty one.
template <class T>
option_array<T> firsts(const jagged<T>& x) {
  const array<std::int64_t> counts = num(x, 1);
  array<bool> valid(counts > std::int64_t{0});
  if (x.content().size() == 0) return option_array<T>(zeros<T>(shape_t{x.size()}, x.backend()), valid);
  // The value under a None is content[0] (any in-range position does).
  array<T> values(take(x.content(), where(counts > std::int64_t{0}, detail::starts_of(x.offsets()), std::int64_t{0})));
  return option_array<T>(std::move(values), std::move(valid));
}

// Awkward's x[:, k]: element k of every list (k < 0 counts from each list's end), a dense array of
// size() values. Awkward's IndexError when some list is too short (one reduction read back).
template <class T>
array<T> jagged<T>::operator()(all_t, std::int64_t k) const {
  if (size() == 0) return zeros<T>(shape_t{0}, backend());
  const array<std::int64_t> counts = num(*this, 1);
  const std::int64_t need = k >= 0 ? k + 1 : -k;
  if (min(counts).item() < need) detail::throw_list_index(size(), k);
  if (k >= 0) return array<T>(take(content_, detail::starts_of(offsets()) + k));
  return array<T>(take(content_, offsets()(range(1, none)) + k));
}

// ak.local_index(x) (axis -1): the position of every element inside its list, int64 lists sharing
// x's offsets. One fused kernel over the content: j - offsets[list of j] (a binary search).
template <class T>
jagged<std::int64_t> local_index(const jagged<T>& x) {
  const device dev = x.backend();
  const std::int64_t len = x.content().size();
  if (x.size() == 0 || len == 0)
    return detail::jagged_access::make(x.offsets(), zeros<std::int64_t>(shape_t{len}, dev));
  const array<std::int64_t> j = arange<std::int64_t>(0, len, 1, dev);
  // Elements outside [offsets[0], offsets[n]) belong to no list: their (unused) index is clipped.
  array<std::int64_t> local(j - take(x.offsets(), detail::list_of_elements(x.offsets(), j), mode::clip));
  return detail::jagged_access::make(x.offsets(), std::move(local));
}

// Awkward's x[lists]: the lists at these positions (negative ones from the end), in that order,
// repeats allowed; new offsets and the gathered content (one fused gather).
template <class T>
jagged<T> jagged<T>::operator()(const array<std::int64_t>& lists) const {
  detail::check_list_selection(lists, size(), backend(), false);
  const device dev = backend();
  const std::int64_t n = size();
  if (lists.size() > 0) {
    auto [lo, hi] = eval(min(lists), max(lists));
    if (lo.item() < -n || hi.item() >= n) detail::throw_list_positions(lists, n);
  }
  const array<std::int64_t> pos(where(lists < std::int64_t{0}, lists + n, lists));
  const array<std::int64_t> counts(take(num(*this, 1), pos));
  auto [off, total] = detail::offsets_of_counts(counts);
  if (total == 0) return detail::jagged_access::make(off, zeros<T>(shape_t{0}, dev));
  const array<std::int64_t> j = arange<std::int64_t>(0, total, 1, dev);
  const array<std::int64_t> l(detail::list_of_elements(off, j));
  array<T> content(take(content_, take(detail::starts_of(offsets()), take(pos, l)) + (j - take(off, l))));
  return detail::jagged_access::make(std::move(off), std::move(content));
}

// Awkward's x[mask] with a boolean array of one entry per list: the lists where it holds.
template <class T>
jagged<T> jagged<T>::operator()(const array<bool>& mask) const {
  detail::check_list_selection(mask, size(), backend(), true);
  return (*this)(flatnonzero(mask));
}

// ak.concatenate([a, b], axis=1): list i of the result is a's list i followed by b's list i.
template <class T>
jagged<T> concatenate(const jagged<T>& a, const jagged<T>& b, int axis) {
  if (axis != 1 && axis != -1) {
    if (axis == 0) throw value_error("jf::concatenate of jagged arrays: only axis=1 (or -1) in this version");
    throw axis_error("axis=" + std::to_string(axis) +
                     " is beyond the depth of this array or the depth of this array is ambiguous");  // Awkward's words
  }
  detail::check_concatenate(a.size(), b.size(), a.backend(), b.backend());
  const device dev = a.backend();
  const array<std::int64_t> ca = num(a, 1);
  const array<std::int64_t> cb = num(b, 1);
  auto [off, total] = detail::offsets_of_counts(array<std::int64_t>(ca + cb));
  if (total == 0) return detail::jagged_access::make(off, zeros<T>(shape_t{0}, dev));
  const array<std::int64_t> j = arange<std::int64_t>(0, total, 1, dev);
  const array<std::int64_t> l(detail::list_of_elements(off, j));
  const array<std::int64_t> in_list(j - take(off, l));  // position inside the result's list
  const array<std::int64_t> from_a(take(ca, l));        // how many of it come from a
  // Each side is read only where it supplies the element; elsewhere its position is clipped.
  const auto pa = take(detail::starts_of(a.offsets()), l) + in_list;
  const auto pb = take(detail::starts_of(b.offsets()), l) + (in_list - from_a);
  array<T> content;
  if (a.content().size() == 0)
    content = array<T>(take(b.content(), pb));
  else if (b.content().size() == 0)
    content = array<T>(take(a.content(), pa));
  else
    content = array<T>(where(in_list < from_a, take(a.content(), pa, mode::clip), take(b.content(), pb, mode::clip)));
  return detail::jagged_access::make(std::move(off), std::move(content));
}

}  // namespace jf
