// Printing lists of tuples as Awkward Array 2.14 prints them: jf::combinations(x, n) and
// jf::cartesian(a, b) (virtual: never materialised) and the jf::jagged_tuple that
// jf::argcombinations and jf::argcartesian give — str (jf::to_string, operator<<), repr
// (jf::awkward_repr) and the type (jf::type_string):
//
//   std::cout << jf::combinations(x, 2);   // [[(1.1, 2.2), (1.1, 3.3), (2.2, 3.3)], [], ...]
//   jf::type_string(jf::combinations(x, 2));   // "3 * var * (float64, float64)"
//   std::cout << jf::combinations(ev, 2);  // [[({pt: 1, eta: 2}, {pt: 3, ...}), ...], ...]
//
// Only the shown window travels, as for jagged arrays (awkward_print.hpp): the shown lists'
// offsets are gathered and copied once, the shown tuples' element positions computed on the host
// (detail/tuple_window.hpp: each shown rank unranked exactly), then the shown elements gathered
// (one take per content: per record field) and copied once.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jetfuse/awkward_print.hpp"
#include "jetfuse/cartesian.hpp"
#include "jetfuse/combinations.hpp"
#include "jetfuse/detail/tuple_window.hpp"
#include "jetfuse/jagged_tuple.hpp"

namespace jf {

namespace detail {

// The shown lists' offsets[l] and offsets[l + 1], on the host. (Templates here and below only so
// that the gathers are compiled where something is printed.)
template <class = void>
std::vector<std::int64_t> shown_bounds(const array<std::int64_t>& offsets) {
  return gather_to_host(offsets, shown_bounds_positions(offsets.size() - 1));
}

// One item per content position of a jagged array's elements or a jagged record's records.
template <class T>
std::vector<pp_item> items_of(const jagged<T>& x, const std::vector<std::int64_t>& positions) {
  return formatted(gather_to_host(x.content(), positions));
}
template <class = void>
std::vector<pp_item> items_of(const jagged_record& x, const std::vector<std::int64_t>& positions) {
  return records_at(x, positions);
}

template <class T>
slot_type slot_type_of(const jagged<T>&) {
  return {std::string(name(dtype_v<T>)), {}, false};
}
inline slot_type slot_type_of(const jagged_record& x) {
  slot_type t{{}, {}, true};
  for (const auto& [n, c] : x.contents()) t.fields.emplace_back(n, std::string(name(c.dtype())));
  return t;
}

// The items of every slot of x's k-combinations, gathered at once (one take per content).
template <class R>
std::vector<std::vector<pp_item>> slot_items(const R& x, const tuple_window& w) {
  std::vector<std::int64_t> all;
  for (const auto& p : w.positions) all.insert(all.end(), p.begin(), p.end());
  std::vector<pp_item> items = items_of(x, all);
  std::vector<std::vector<pp_item>> out;
  std::size_t at = 0;
  for (const auto& p : w.positions) {
    out.emplace_back(std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(at)),
                     std::make_move_iterator(items.begin() + static_cast<std::ptrdiff_t>(at + p.size())));
    at += p.size();
  }
  return out;
}

template <class R>
pp_item tuples_window_of(const combinations_of<R>& c) {
  const tuple_window w = combinations_window(c.lists().size(), shown_bounds(c.lists().offsets()), c.n());
  return w.tree(slot_items(c.lists(), w));
}
template <class A, class B>
pp_item tuples_window_of(const cartesian_of<A, B>& c) {
  const tuple_window w =
      cartesian_window(c.first().size(), shown_bounds(c.first().offsets()), shown_bounds(c.second().offsets()));
  return w.tree({items_of(c.first(), w.positions[0]), items_of(c.second(), w.positions[1])});
}
template <class T>
pp_item tuples_window_of(const jagged_tuple<T>& t) {
  const tuple_window w = tuples_window(t.size(), shown_bounds(t.offsets()), t.arity());
  std::vector<std::vector<pp_item>> items;
  for (std::size_t s = 0; s < t.contents().size(); ++s)
    items.push_back(formatted(gather_to_host(t.contents()[s], w.positions[s])));
  return w.tree(items);
}

template <class R>
std::string tuples_type_of(const combinations_of<R>& c, bool compact) {
  return std::to_string(c.lists().size()) + " * var * " +
         tuple_type_string(std::vector<slot_type>(static_cast<std::size_t>(c.n()), slot_type_of(c.lists())), compact);
}
template <class A, class B>
std::string tuples_type_of(const cartesian_of<A, B>& c, bool compact) {
  return std::to_string(c.first().size()) + " * var * " +
         tuple_type_string({slot_type_of(c.first()), slot_type_of(c.second())}, compact);
}
template <class T>
std::string tuples_type_of(const jagged_tuple<T>& t, bool compact) {
  return std::to_string(t.size()) + " * var * " +
         tuple_type_string(
             std::vector<slot_type>(static_cast<std::size_t>(t.arity()), slot_type{std::string(name(dtype_v<T>)), {}, false}),
             compact);
}

template <class X>
struct is_awkward_tuples : std::false_type {};
template <class R>
struct is_awkward_tuples<combinations_of<R>> : std::true_type {};
template <class A, class B>
struct is_awkward_tuples<cartesian_of<A, B>> : std::true_type {};
template <class T>
struct is_awkward_tuples<jagged_tuple<T>> : std::true_type {};

}  // namespace detail

// Lists of tuples as Awkward prints them: combinations, cartesian products, jagged tuples.
template <class X>
concept awkward_tuples = detail::is_awkward_tuples<std::remove_cvref_t<X>>::value;

// str(ak.combinations(x, n)) and the like.
template <awkward_tuples X>
std::string awkward_str(const X& x) {
  return detail::awkward_str(detail::tuples_window_of(x));
}
// repr: "<Array [[(1.1, 2.2), ...], ...] type='3 * var * (float64, float64)'>".
template <awkward_tuples X>
std::string awkward_repr(const X& x) {
  return detail::awkward_repr(detail::tuples_window_of(x), detail::tuples_type_of(x, true));
}
template <awkward_tuples X>
std::string to_string(const X& x) {
  return awkward_str(x);
}
template <awkward_tuples X>
std::ostream& operator<<(std::ostream& os, const X& x) {
  return os << awkward_str(x);
}
// Awkward's type: "3 * var * (float64, float64)", "3 * var * ({pt: float32}, {pt: float32})".
template <awkward_tuples X>
std::string type_string(const X& x) {
  return detail::tuples_type_of(x, true);
}

// A jf::jagged_tuple is materialised: Awkward's show() and the notebook view too (nbytes: the
// offsets and every slot's content, as Awkward counts them).
template <class T>
std::string show(const jagged_tuple<T>& x, const detail::show_options& o = {}) {
  std::int64_t nbytes = detail::nbytes_of(x.offsets());
  for (const array<T>& c : x.contents()) nbytes += detail::nbytes_of(c);
  return detail::awkward_show(detail::tuples_window_of(x), detail::tuples_type_of(x, false), nbytes, x.backend(), o);
}

}  // namespace jf
