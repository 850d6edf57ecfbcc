// Combinations materialised on request (Awkward's ak.argcombinations, and an expression of
// combination fields assigned to a jf::jagged), pairs and triples: count -> scan -> fill on x's
// backend, as dense jetfuse evaluations — the combinations per list C(len, n) and their running sum
// (the new offsets), the total read back (one synchronisation), then for every combination p its
// list (a search in the new offsets) and its slots (p's rank unranked in Awkward's lexicographic
// order: a float64 root corrected by exact int64 checks). A per-list reduction
// of combinations never comes here: it is one fused loop (combinations.hpp).
//
//   auto [i1, i2] = jf::unzip(jf::argcombinations(x, 2));   // [[0, 0, 1], [], ...] and [[1, 2, 2], [], ...]
//   jf::jagged<float> m = jf::sqrt(2 * pt1 * pt2 * (...));   // every pair's mass, Awkward's order
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "jetfuse/combinations.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/jagged_tuple.hpp"

namespace jf {

namespace detail {

// The n-element combinations (n = 2, 3) of lists with these offsets: their offsets (from 0), each
// combination's list and, per slot, its absolute content position (j0 < j1 [< j2]). A template
// only so that it is compiled where it is used.
struct combination_layout {
  array<std::int64_t> offsets, list;  // the combinations' offsets; per combination: its list
  std::vector<array<std::int64_t>> at;  // per slot: every combination's content position
};
template <class = void> combination_layout combinations_layout(const array<std::int64_t>& offsets, int k) {
  using i64 = std::int64_t;
  const device dev = offsets.device();
  const i64 lists = offsets.size() - 1;
  const array<i64> start = offsets(range(none, -1));
  const array<i64> n = offsets(range(1, none)) - start;
  array<i64> combo_offsets = zeros<i64>(shape_t{lists + 1}, dev);
  if (lists > 0 && k == 2) combo_offsets(range(1, none)) = cumsum(floor_divide(n * (n - 1), 2));  // one fused scan
  if (lists > 0 && k == 3) combo_offsets(range(1, none)) = cumsum(floor_divide(n * (n - 1) * (n - 2), 6));
  const i64 total = lists > 0 ? combo_offsets(range(lists, lists + 1)).to_vector()[0] : 0;
  const array<i64> p = arange<i64>(total, dev);
  const array<i64> list = searchsorted(combo_offsets, p, side::right) - 1;
  const array<i64> r = p - take(combo_offsets, list);  // the rank within the list
  const array<i64> m = take(n, list);
  const array<i64> first = take(start, list);
  if (k == 2) {
    // The first slot a: the largest a with S(a) = a (2m - a - 1) / 2 <= r (the pairs before a's),
    // from the quadratic's root in float64, then corrected by one either way.
    const auto s = [&](const auto& a) { return floor_divide(a * (2 * m - a - 1), 2); };
    const array<i64> guess =
        astype<i64>(jf::floor(((2 * m - 1) - jf::sqrt(astype<double>((2 * m - 1) * (2 * m - 1) - 8 * r))) / 2));
    const array<i64> up = where(s(guess + 1) <= r, guess + 1, guess);
    const array<i64> a = where(s(up) > r, up - 1, up);
    return {combo_offsets, list, {array<i64>(first + a), array<i64>(first + r - s(a) + a + 1)}};
  }
  // Triples, through the combinatorial number system: with c = m - 1 - j (slots reversed), the
  // reversed rank N = C(m, 3) - 1 - r is C(c0, 3) + C(c1, 2) + c2 with c0 > c1 > c2. c0 is the
  // largest c with C(c, 3) <= N: cbrt(6N) lies in [c0 - 1, c0) up to rounding, so floor + 1 is c0
  // or c0 - 1, corrected exactly in int64 (two steps up, one down); then c1 from the pairs' root.
  const auto c3 = [](const auto& c) { return floor_divide(c * (c - 1) * (c - 2), 6); };
  const auto c2 = [](const auto& c) { return floor_divide(c * (c - 1), 2); };
  const array<i64> big_n = floor_divide(m * (m - 1) * (m - 2), 6) - 1 - r;
  array<i64> g = astype<i64>(jf::floor(jf::cbrt(astype<double>(6 * big_n)))) + 1;
  g = where(c3(g + 1) <= big_n, g + 1, g);
  g = where(c3(g + 1) <= big_n, g + 1, g);
  const array<i64> s0 = where(c3(g) > big_n, g - 1, g);
  const array<i64> rest = big_n - c3(s0);  // < C(s0, 2)
  array<i64> h = astype<i64>(jf::floor((1 + jf::sqrt(astype<double>(8 * rest + 1))) / 2));
  h = where(c2(h + 1) <= rest, h + 1, h);
  const array<i64> s1 = where(c2(h) > rest, h - 1, h);
  const array<i64> last = first + m - 1;
  return {combo_offsets, list, {array<i64>(last - s0), array<i64>(last - s1), array<i64>(last - (rest - c2(s1)))}};
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
// check_same_arity: detail/combinations_checks.hpp.

template <class T, class E> jagged<T> materialise_combinations(const E& e) {
  const int arity = pairs_arity<typename node_of<std::remove_cvref_t<E>>::type>::value;
  const array<std::int64_t>& offsets = *combination_offsets(e);
  const combination_layout combos = combinations_layout(offsets, arity);
  const auto fill = [&]<class U>(const jagged<U>& x, int slot, int field_arity) {
    check_same_arity(arity, field_arity);
    check_same_lists(offsets, x.offsets());
    return jagged<U>(combos.offsets, array<U>(take(x.content(), combos.at[static_cast<std::size_t>(slot)])));
  };
  using M = with_materialised_fields<E>;
  return jagged<T>(M::apply(e, fill));
}

}  // namespace detail

namespace detail {
// A template, as combinations_layout, so that neither is compiled in a translation unit that does
// not call them (an inline function here cost every includer of jetfuse.hpp about 0.8 s).
template <class V = void>
jagged_tuple<std::int64_t> argcombinations_of(const array<std::int64_t>& offsets, int n) {
  check_combinations_arity(n);
  const combination_layout c = combinations_layout<V>(offsets, n);
  const array<std::int64_t> first = take(offsets, c.list);
  std::vector<array<std::int64_t>> local;
  for (const array<std::int64_t>& at : c.at) local.push_back(array<std::int64_t>(at - first));
  return jagged_tuple<std::int64_t>(c.offsets, std::move(local));
}
}  // namespace detail

// ak.argcombinations(x, n) (n = 2, 3): for each combination of each list the local indices of its
// elements (int64), lists of C(len, n) tuples in Awkward's order; jf::unzip<n> gives the slots:
//   auto [i1, i2] = jf::unzip(jf::argcombinations(x, 2));
//   auto [i, j, k] = jf::unzip<3>(jf::argcombinations(x, 3));
template <class T> jagged_tuple<std::int64_t> argcombinations(const jagged<T>& x, int n) {
  return detail::argcombinations_of(x.offsets(), n);
}
template <class V = void>
jagged_tuple<std::int64_t> argcombinations(const jagged_record& x, int n) {
  return detail::argcombinations_of<V>(x.offsets(), n);
}

}  // namespace jf
