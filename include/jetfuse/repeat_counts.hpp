// numpy.repeat(a, repeats) with one count per element (or per slice along an axis): composed from
// fused pieces — the counts' min and sum in one reduction (read back once: the result's length),
// their running sum (jf::cumsum), then ONE gather whose positions are binary searches of the output
// index in that running sum (jf::take of jf::searchsorted). The scalar-count repeat is in
// joining.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/scans.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/joining.hpp"

namespace jf {
namespace detail {

template <class T, class R> array<T> repeat_counts(const array<T>& a, const array<R>& repeats, int axis, bool flat) {
  static_assert(std::is_integral_v<R> && !std::is_same_v<R, bool>,
                "jf::repeat: numpy raises \"Cannot cast array data from dtype('float64') to dtype('int64') according to "
                "the rule 'safe'\": the counts must be an integer array");
  if (a.is_null() || repeats.is_null()) throw value_error("jf::repeat: an operand is a null handle (default-constructed)");
  if (repeats.ndim() > 1) throw value_error("object too deep for desired array");
  const array<T> src = flat ? a.reshape(shape_t{-1}) : a;
  const int ax = take_axis(flat ? 0 : axis, src.ndim());
  const std::int64_t len = src.shape()[ax];
  const auto counts = astype<std::int64_t>(repeats);
  if (repeats.size() == 1) {  // one count for every element, as numpy broadcasts it
    const std::int64_t r = sum(counts).item();
    if (r < 0) throw value_error("repeats may not contain negative values.");
    return repeat(src, r, ax);
  }
  if (repeats.size() != len)
    throw value_error("operands could not be broadcast together with shape (" + std::to_string(len) + ",) (" +
                      std::to_string(repeats.size()) + ",)");
  if (len == 0) return repeat(src, 0, ax);
  auto [lowest, total] = eval(min(counts), sum(counts));
  if (lowest.item() < 0) throw value_error("repeats may not contain negative values.");
  const array<std::int64_t> ends = cumsum(counts);  // element i fills [ends[i] - repeats[i], ends[i])
  const array<std::int64_t> j = arange<std::int64_t>(0, total.item(), 1, src.device());
  return array<T>(take(src, searchsorted(ends, j, side::right), ax));
}

}  // namespace detail

// numpy.repeat(a, repeats): element i of the flattened a repeated repeats[i] times (repeats: a 1-d
// integer array of a.size() counts, or of one count); numpy's ValueErrors for negative counts or
// a length that does not match.
template <class T, class R> array<T> repeat(const array<T>& a, const array<R>& repeats) {
  return detail::repeat_counts(a, repeats, 0, true);
}
// numpy.repeat(a, repeats, axis): slice i along `axis` repeated repeats[i] times.
template <class T, class R> array<T> repeat(const array<T>& a, const array<R>& repeats, int axis) {
  return detail::repeat_counts(a, repeats, axis, false);
}

}  // namespace jf
