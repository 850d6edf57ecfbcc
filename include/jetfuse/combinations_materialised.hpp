// Combinations materialised on request (Awkward's ak.argcombinations, and an expression of
// combination fields assigned to a jf::jagged): count -> scan -> fill on x's backend, as dense
// jetfuse evaluations — the pairs per list C(n, 2) and their running sum (the new offsets), the
// total read back (one synchronisation), then for every pair p its list (a search in the new
// offsets) and its slots (p's rank unranked in Awkward's lexicographic order). A per-list reduction
// of combinations never comes here: it is one fused loop (combinations.hpp).
//
//   auto [i1, i2] = jf::argcombinations(x, 2);   // local indices: [[0, 0, 1], [], ...] and [[1, 2, 2], [], ...]
//   jf::jagged<float> m = jf::sqrt(2 * pt1 * pt2 * (...));   // every pair's mass, Awkward's order
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jetfuse/combinations.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"

namespace jf {

namespace detail {

// The pairs of lists with these offsets: their offsets (from 0) and each pair's two absolute
// content positions j0 < j1. A template only so that it is compiled where it is used.
struct pair_layout {
  array<std::int64_t> offsets, list, j0, j1;  // the pairs' offsets; per pair: its list, its slots
};
template <class = void> pair_layout pairs_of(const array<std::int64_t>& offsets) {
  using i64 = std::int64_t;
  const device dev = offsets.device();
  const i64 lists = offsets.size() - 1;
  const array<i64> start = offsets(range(none, -1));
  const array<i64> n = offsets(range(1, none)) - start;
  array<i64> pair_offsets = zeros<i64>(shape_t{lists + 1}, dev);
  if (lists > 0) pair_offsets(range(1, none)) = cumsum(floor_divide(n * (n - 1), 2));
  const i64 total = lists > 0 ? pair_offsets(range(lists, lists + 1)).to_vector()[0] : 0;
  const array<i64> p = arange<i64>(total, dev);
  const array<i64> list = searchsorted(pair_offsets, p, side::right) - 1;
  const array<i64> r = p - take(pair_offsets, list);
  const array<i64> m = take(n, list);
  // The first slot a: the largest a with S(a) = a (2m - a - 1) / 2 <= r (the pairs before a's),
  // from the quadratic's root in float64, then corrected by one either way.
  const auto s = [&](const auto& a) { return floor_divide(a * (2 * m - a - 1), 2); };
  const array<i64> guess =
      astype<i64>(jf::floor(((2 * m - 1) - jf::sqrt(astype<double>((2 * m - 1) * (2 * m - 1) - 8 * r))) / 2));
  const array<i64> up = where(s(guess + 1) <= r, guess + 1, guess);
  const array<i64> a = where(s(up) > r, up - 1, up);
  const array<i64> first = take(start, list);
  return {pair_offsets, list, array<i64>(first + a), array<i64>(first + r - s(a) + a + 1)};
}

// The expression with every combination field replaced by its materialised values (a jagged array
// over the pairs' offsets): the same expression type over jf::jagged leaves.
template <class E> struct with_materialised_fields {
  using type = E;
  template <class F> static const E& apply(const E& e, const F&) { return e; }
};
template <class T, int S, int A> struct with_materialised_fields<term<combination_field<T, S, A>>> {
  using type = term<jagged<T>>;
  template <class F> static type apply(const term<combination_field<T, S, A>>& e, const F& fill) {
    return type{hana::tuple<jagged<T>>(fill(e.elements[hana::llong_c<0>].x, S, A))};
  }
};
template <class Tag, class... A> struct with_materialised_fields<call_node<Tag, A...>> {
  using type = call_node<Tag, typename with_materialised_fields<A>::type...>;
  template <class F> static type apply(const call_node<Tag, A...>& e, const F& fill) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return type{hana::tuple<term<Tag>, typename with_materialised_fields<A>::type...>(
          e.elements[hana::llong_c<0>], with_materialised_fields<A>::apply(e.elements[hana::llong_c<I + 1>], fill)...)};
    }(std::index_sequence_for<A...>{});
  }
};

// The combinations' size an expression's fields read (0: none).
template <class E> struct pairs_arity : std::integral_constant<int, 0> {};
template <class T, int S, int A> struct pairs_arity<term<combination_field<T, S, A>>> : std::integral_constant<int, A> {};
template <class Tag, class... A> struct pairs_arity<call_node<Tag, A...>> {
  static constexpr int value = std::max({0, pairs_arity<A>::value...});
};

// The offsets of the first combination field (every field's lists are checked against them).
template <class E> const array<std::int64_t>* combination_offsets(const E&) { return nullptr; }
template <class T, int S, int A> const array<std::int64_t>* combination_offsets(const term<combination_field<T, S, A>>& e) {
  return &e.elements[hana::llong_c<0>].x.offsets();
}
template <class Tag, class... A> const array<std::int64_t>* combination_offsets(const call_node<Tag, A...>& e) {
  const array<std::int64_t>* found = nullptr;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((found = found ? found : combination_offsets(e.elements[hana::llong_c<I + 1>])), ...);
  }(std::index_sequence_for<A...>{});
  return found;
}
// src/core/combinations.cpp: jf::value_error for triples (not materialised yet).
void check_materialised_arity(int n);

template <class T, class E> jagged<T> materialise_combinations(const E& e) {
  check_materialised_arity(pairs_arity<typename node_of<std::remove_cvref_t<E>>::type>::value);  // before any work
  const array<std::int64_t>& offsets = *combination_offsets(e);
  const pair_layout pairs = pairs_of(offsets);
  const auto fill = [&]<class U>(const jagged<U>& x, int slot, int) {
    check_same_lists(offsets, x.offsets());
    return jagged<U>(pairs.offsets, array<U>(take(x.content(), slot == 0 ? pairs.j0 : pairs.j1)));
  };
  using M = with_materialised_fields<E>;
  return jagged<T>(M::apply(e, fill));
}

}  // namespace detail

namespace detail {
inline std::tuple<jagged<std::int64_t>, jagged<std::int64_t>> argcombinations_of(const array<std::int64_t>& offsets, int n) {
  check_materialised_arity(n);
  const pair_layout p = pairs_of(offsets);
  const array<std::int64_t> first = take(offsets, p.list);
  return {jagged<std::int64_t>(p.offsets, array<std::int64_t>(p.j0 - first)),
          jagged<std::int64_t>(p.offsets, array<std::int64_t>(p.j1 - first))};
}
}  // namespace detail

// ak.argcombinations(x, 2), unzipped: for each pair of each list the local index of its first and
// of its second element (int64), lists of C(len, 2) in Awkward's order.
template <class T> std::tuple<jagged<std::int64_t>, jagged<std::int64_t>> argcombinations(const jagged<T>& x, int n) {
  return detail::argcombinations_of(x.offsets(), n);
}
inline std::tuple<jagged<std::int64_t>, jagged<std::int64_t>> argcombinations(const jagged_record& x, int n) {
  return detail::argcombinations_of(x.offsets(), n);
}

}  // namespace jf
