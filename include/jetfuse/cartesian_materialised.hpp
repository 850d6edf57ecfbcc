// The cartesian product materialised on request (Awkward's ak.argcartesian, and an expression of
// cartesian fields assigned to a jf::jagged): count -> scan -> fill on the operands' backend, as
// dense jetfuse evaluations (as combinations_materialised.hpp does for combinations) — the pairs
// per list len_a * len_b and their running sum (the new offsets), the total read back (one
// synchronisation), then for every pair p its list (a search in the new offsets) and its local
// indices (p's rank r in the list: r // len_b, r % len_b). A per-list reduction of the product
// never comes here: it is one fused loop (cartesian.hpp).
//
//   auto [ia, ib] = jf::unzip(jf::argcartesian(a, b));   // local indices, Awkward's order (ia slowest)
//   jf::jagged<float> m = p.field<float>("pt") * q.field<float>("pt");   // every pair's value
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jetfuse/cartesian.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/jagged_tuple.hpp"

namespace jf {

namespace detail {

// The pairs of the lists of a and b: their offsets (from 0), each pair's list and the local
// indices of its two elements. A template only so that it is compiled where it is used.
struct product_layout {
  array<std::int64_t> offsets, list, local_a, local_b;
};
template <class = void>
product_layout product_of(const array<std::int64_t>& offsets_a, const array<std::int64_t>& offsets_b) {
  using i64 = std::int64_t;
  check_cartesian_operands(offsets_a, offsets_b);
  const device dev = offsets_a.device();
  const i64 lists = offsets_a.size() - 1;
  const array<i64> na = offsets_a(range(1, none)) - offsets_a(range(none, -1));
  const array<i64> nb = offsets_b(range(1, none)) - offsets_b(range(none, -1));
  array<i64> pair_offsets = zeros<i64>(shape_t{lists + 1}, dev);
  if (lists > 0) pair_offsets(range(1, none)) = cumsum(na * nb);
  const i64 total = lists > 0 ? pair_offsets(range(lists, lists + 1)).to_vector()[0] : 0;
  const array<i64> p = arange<i64>(total, dev);
  const array<i64> list = searchsorted(pair_offsets, p, side::right) - 1;
  const array<i64> r = p - take(pair_offsets, list);
  const array<i64> m = take(nb, list);  // > 0 for every list that has a pair
  const array<i64> la = floor_divide(r, m);
  return {pair_offsets, list, la, array<i64>(r - la * m)};
}

// The expression with every cartesian field replaced by its materialised values (a jagged array
// over the pairs' offsets): the same expression type over jf::jagged leaves.
template <class E>
struct with_materialised_product {
  using type = E;
  template <class F>
  static const E& apply(const E& e, const F&) {
    return e;
  }
};
template <class T, int S>
struct with_materialised_product<term<cartesian_field<T, S>>> {
  using type = term<jagged<T>>;
  template <class F>
  static type apply(const term<cartesian_field<T, S>>& e, const F& fill) {
    return type{hana::tuple<jagged<T>>(fill(e.elements[hana::llong_c<0>].x, S))};
  }
};
template <class Tag, class... A>
struct with_materialised_product<call_node<Tag, A...>> {
  using type = call_node<Tag, typename with_materialised_product<A>::type...>;
  template <class F>
  static type apply(const call_node<Tag, A...>& e, const F& fill) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return type{hana::tuple<term<Tag>, typename with_materialised_product<A>::type...>(
          e.elements[hana::llong_c<0>],
          with_materialised_product<A>::apply(e.elements[hana::llong_c<I + 1>], fill)...)};
    }
    (std::index_sequence_for<A...>{});
  }
};

// The first cartesian field's (a's offsets, b's offsets); every field is checked against its side.
template <class E>
bool product_offsets(const E&, const array<std::int64_t>**, const array<std::int64_t>**) {
  return false;
}
template <class T, int S>
bool product_offsets(const term<cartesian_field<T, S>>& e, const array<std::int64_t>** a,
                     const array<std::int64_t>** b) {
  const cartesian_field<T, S>& f = e.elements[hana::llong_c<0>];
  *a = S == 0 ? &f.x.offsets() : &f.other_offsets;
  *b = S == 0 ? &f.other_offsets : &f.x.offsets();
  return true;
}
template <class Tag, class... A>
bool product_offsets(const call_node<Tag, A...>& e, const array<std::int64_t>** a, const array<std::int64_t>** b) {
  bool found = false;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((found = found || product_offsets(e.elements[hana::llong_c<I + 1>], a, b)), ...);
  }
  (std::index_sequence_for<A...>{});
  return found;
}

template <class T, class E>
jagged<T> materialise_cartesian(const E& e) {
  const array<std::int64_t>*a = nullptr, *b = nullptr;
  product_offsets(e, &a, &b);
  const product_layout pairs = product_of(*a, *b);
  const auto fill = [&]<class U>(const jagged<U>& x, int slot) {
    check_same_lists(slot == 0 ? *a : *b, x.offsets());
    const array<std::int64_t>& local = slot == 0 ? pairs.local_a : pairs.local_b;
    return jagged<U>(pairs.offsets, array<U>(take(x.content(), take(x.offsets(), pairs.list) + local)));
  };
  using M = with_materialised_product<E>;
  return jagged<T>(M::apply(e, fill));
}

// A template, as product_of, so that neither is compiled where it is not called.
template <class V = void>
jagged_tuple<std::int64_t> argcartesian_of(const array<std::int64_t>& a, const array<std::int64_t>& b) {
  const product_layout p = product_of<V>(a, b);
  return jagged_tuple<std::int64_t>(p.offsets, {p.local_a, p.local_b});
}

}  // namespace detail

// ak.argcartesian([a, b], axis=1): for each pair of each list the local index of its element of a
// and of its element of b (int64), lists of len_a * len_b tuples in Awkward's order;
// auto [ia, ib] = jf::unzip(jf::argcartesian(a, b)) gives the two slots.
template <cartesian_operand A, cartesian_operand B>
jagged_tuple<std::int64_t> argcartesian(const A& a, const B& b) {
  return detail::argcartesian_of(a.offsets(), b.offsets());
}

}  // namespace jf
