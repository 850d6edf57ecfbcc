// Reductions of jagged arrays across the lists: Awkward's axis=0 (or -2), jf::sum(x, 0) of
// [[1, 2, 3], [], [4, 5]] is [5, 7, 3] — result j combines element j of every list longer than j,
// in list order; the result has the longest list's length. Included at the end of jagged.hpp.
//
// How: the lists are transposed (list j of the transposition holds element j of every list longer
// than j, in list order: a stable sort of the elements by their local index), then the same
// reducer runs per list (axis=-1) on the transposition, one fused list kernel. All of it on x's
// backend (a local index, a bincount, a scan, a sort, a gather). argmin/argmax give Awkward's
// answer, the position of the list (not the rank in the transposition). See docs/design.md,
// "Reductions across the lists".
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "jetfuse/expr/histogram.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/jagged_structure.hpp"
#include "jetfuse/sorting.hpp"

namespace jf {
namespace detail {

// The transposition of a jagged array's lists.
struct lists_transposed {
  array<std::int64_t> offsets;  // width + 1 offsets from 0: list j holds element j of the lists longer than j
  array<std::int64_t> perm;     // per element of the transposition: its position in flatten(x)
  std::int64_t width = 0;       // the longest list's length (the number of lists of the transposition)
};

template <class T> lists_transposed transpose_lists(const jagged<T>& x) {
  const device dev = x.backend();
  const array<std::int64_t> local = flatten(local_index(x));  // the used range: flatten(x)'s positions
  if (local.size() == 0) return {zeros<std::int64_t>(shape_t{1}, dev), zeros<std::int64_t>(shape_t{0}, dev), 0};
  // counts[j]: the elements of local index j, i.e. the lists longer than j (one read-back: the width).
  const array<std::int64_t> counts = bincount(local);
  lists_transposed t;
  t.width = counts.size();
  t.offsets = offsets_of_counts(counts).first;
  t.perm = argsort(local);  // stable: list order inside each local index
  return t;
}

// The reducer's operand as a jagged array: a jagged leaf as it is, an expression evaluated (x * 2:
// one list kernel; x(m): the selection materialised, so positions are those among the selected,
// as Awkward's x[m] has them).
template <class E> auto operand_of_lists(const E& e) {
  using X = std::remove_cvref_t<decltype(e.elements[hana::llong_c<1>])>;
  using U = value_type_t<X>;
  if constexpr (std::is_same_v<X, term<jagged<U>>>) return e.elements[hana::llong_c<1>].elements[hana::llong_c<0>];
  else return jagged<U>(e.elements[hana::llong_c<1>]);
}

template <class E> const reduce_spec& spec_of_reduction(const E& e) {
  return e.elements[hana::llong_c<0>].elements[hana::llong_c<0>].spec;
}

[[noreturn]] inline void throw_across_keepdims(reducer r) {
  throw value_error("jetfuse: jf::" + std::string(name(r)) +
                    " with keepdims across the lists (axis=0) of a jagged array is not supported (Awkward's result "
                    "is 1 * var * T)");
}

// Applies reducer R with axis=-1 to the transposition of y.
template <reducer R, class U> auto reduce_transposed(const jagged<U>& y, const lists_transposed& tr, int dd) {
  const jagged<U> t = jagged_access::make(tr.offsets, array<U>(take(flatten(y), tr.perm)));
  return make_reduction<R>(t, {-1}, false, false, dd);
}

template <class N> struct reducer_kind;
template <reducer R, class X> struct reducer_kind<call_node<reduce_fn<R>, X>> {
  static constexpr reducer value = R;
};

}  // namespace detail

// ak.count(x, axis): the number of elements — per list (axis -1 or 1: jf::num), across the lists
// (axis 0 or -2: of each local index, the lists longer than it), int64 on x's backend.
template <class T> array<std::int64_t> count(const jagged<T>& x, int axis) {
  if (axis == -1 || axis == 1) return num(x, 1);
  if (axis != 0 && axis != -2)
    throw axis_error("axis=" + std::to_string(axis) + " exceeds the depth of the nested list structure (which is 2)");
  if (flatten(x).size() == 0) return zeros<std::int64_t>(shape_t{0}, x.backend());
  return bincount(flatten(local_index(x)));
}
// ak.count(x, axis=None): every element, a 0-d int64 array on the host (as jf::num(x, 0)).
template <class T> array<std::int64_t> count(const jagged<T>& x) {
  return array<std::int64_t>(std::vector<std::int64_t>{flatten(x).size()}, shape_t{});
}

namespace detail {

// jf::sum(x, 0) and the other reducers giving a plain array (sum, prod, mean, var, std, any, all,
// count_nonzero, nansum, ...): the per-list reducer of the transposition, as T.
template <class T, class E> array<T> reduce_across_lists(const E& e) {
  constexpr reducer R = reducer_kind<typename node_of<E>::type>::value;
  const reduce_spec& sp = spec_of_reduction(e);
  if (sp.keepdims) throw_across_keepdims(R);
  const auto y = operand_of_lists(e);
  const lists_transposed tr = transpose_lists(y);
  if (tr.width == 0) return zeros<T>(shape_t{0}, y.backend());
  return array<T>(reduce_transposed<R>(y, tr, sp.ddof));
}

// min, max (values) and argmin, argmax (the list's position, Awkward's answer) across the lists:
// never None (every position j < width has a list longer than j), Awkward's type ?T all the same.
template <class T, class E> option_array<T> reduce_across_lists_option(const E& e) {
  constexpr reducer R = reducer_kind<typename node_of<E>::type>::value;
  const reduce_spec& sp = spec_of_reduction(e);
  if (sp.keepdims) throw_across_keepdims(R);
  const auto y = operand_of_lists(e);
  const device dev = y.backend();
  const lists_transposed tr = transpose_lists(y);
  if (tr.width == 0) return option_array<T>(zeros<T>(shape_t{0}, dev), zeros<bool>(shape_t{0}, dev));
  if constexpr (R == reducer::argmin || R == reducer::argmax) {
    // The rank r in transposed list j is element perm[offsets[j] + r] of flatten(y): its list.
    const option_array<std::int64_t> rank(reduce_transposed<R>(y, tr, sp.ddof));
    const std::int64_t first = y.offsets()(0);  // flatten(y) starts there
    const array<std::int64_t> at(take(tr.perm, starts_of(tr.offsets) + rank.values()) + first);
    return option_array<T>(array<T>(list_of_elements(y.offsets(), at)), rank.valid());
  } else {
    return option_array<T>(reduce_transposed<R>(y, tr, sp.ddof));
  }
}

}  // namespace detail
}  // namespace jf
