// jf::combinations (Awkward's ak.combinations): the n-element combinations (n = 2 or 3) of each
// list, in Awkward's lexicographic order, as a virtual iteration space — never materialised. The
// fields of each slot are leaves of expressions over the combinations; a per-list reduction of
// such an expression is ONE loop nest (one CUDA kernel) over each list's combinations with the
// values in registers (docs/design.md, "Pairs domains (contract)"):
//
//   auto [e1, e2] = jf::unzip(jf::combinations(electrons, 2));      // electrons: a jf::jagged_record
//   auto pt1 = e1.field<float>("pt"), pt2 = e2.field<float>("pt");   // ...
//   auto m = jf::sqrt(2 * pt1 * pt2 * (jf::cosh(eta1 - eta2) - jf::cos(phi1 - phi2)));
//   jf::option_array<float> best = jf::max(m, -1);                   // ?float32 per event
//   jf::option_array<float> best_os = jf::max(m(q1 != q2), -1);      // opposite-charge pairs only
//
// For a jf::jagged<T>, unzip gives the slots' values directly: auto [a, b] = jf::unzip(jf::combinations(x, 2)).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "jetfuse/detail/combinations_checks.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/expr/jagged_expr.hpp"
#include "jetfuse/expr/jagged_mask.hpp"
#include "jetfuse/record.hpp"

namespace jf {

// Slot `Slot` of the `Arity`-element combinations of x's lists: a leaf of expressions (a
// jf::expr terminal), read at the slot's element of each combination. The slot is part of the
// type (the engine reads it from the expression's program; kernels are cached per type).
template <class T, int Slot, int Arity> struct combination_field {
  jagged<T> x;
};
template <class T, int Slot, int Arity> using combination_leaf = term<combination_field<T, Slot, Arity>>;

template <class T, int S, int A> struct leaf_counts<term<combination_field<T, S, A>>> {
  static constexpr int arrays = 2, scalars = 0, reductions = 0, nest_only = 1;
};
template <class T, int S, int A> struct type_of_impl<term<combination_field<T, S, A>>> {
  static constexpr operand_type value = strong(dtype_v<T>);
};

namespace detail {

template <class T, int S, int A> struct value_kind_of<term<combination_field<T, S, A>>> {
  static constexpr value_kind value = value_kind::jagged;
};
template <class T, int S, int A> struct tree<term<combination_field<T, S, A>>> {
  template <dtype Target>
  static void gather(const term<combination_field<T, S, A>>& e, const array_base** arrays, scalar_slot*, reduce_spec*,
                     scalar_use) {
    const jagged<T>& x = e.elements[hana::llong_c<0>].x;
    arrays[0] = &x.content();
    arrays[1] = &x.stored_offsets();  // int64 or int32, read as they are
  }
};
template <class T, int S, int A> struct lower_type<term<combination_field<T, S, A>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    return lower_type<term<jagged<T>>>::run(g, in, c, dtype_v<T>);
  }
};
// Whether a combination field is read outside every reduction (one value per pair: assigning it
// to a jf::jagged materialises the pairs, combinations_materialised.hpp).
template <class T, int S, int A> struct pairs_at_root<term<combination_field<T, S, A>>> : std::true_type {};
template <class Tag, class... A> struct pairs_at_root<call_node<Tag, A...>> {
  static constexpr bool value = !is_reduce_tag<Tag>::value && (pairs_at_root<A>::value || ...);
};
// A jagged leaf read at a combination's slot: nargs = the arity, mode = the slot.
template <class T, int S, int A> struct program_of<term<combination_field<T, S, A>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::jagged, A, S}}};
};
// check_combinations_arity, throw_unzip_arity: detail/combinations_checks.hpp.

}  // namespace detail

// The n-element combinations of each list of x (a jf::jagged<T> or a jf::jagged_record).
template <class R> class combinations_of {
 public:
  combinations_of(R x, int n) : x_(std::move(x)), n_(n) { detail::check_combinations_arity(n); }
  const R& lists() const { return x_; }
  int n() const { return n_; }

 private:
  R x_;
  int n_;
};

// Slot `Slot` of combinations of records: its fields are expression leaves (field<T>("pt")).
template <int Slot, int Arity> class combination_slot {
 public:
  explicit combination_slot(jagged_record x) : x_(std::move(x)) {}
  template <class T> combination_leaf<T, Slot, Arity> field(const std::string& name) const {
    return combination_leaf<T, Slot, Arity>{hana::tuple<combination_field<T, Slot, Arity>>({x_.field<T>(name)})};
  }

 private:
  jagged_record x_;
};

template <class T> combinations_of<jagged<T>> combinations(const jagged<T>& x, int n) { return {x, n}; }
inline combinations_of<jagged_record> combinations(const jagged_record& x, int n) { return {x, n}; }

// ak.unzip: the N slots (N = the combinations' n: 2 by default, unzip<3> for triples), a
// std::tuple for structured bindings.
template <int N = 2, class T> auto unzip(const combinations_of<jagged<T>>& c) {
  if (c.n() != N) detail::throw_unzip_arity(c.n(), N);
  return [&]<int... K>(std::integer_sequence<int, K...>) {
    return std::make_tuple(combination_leaf<T, K, N>{hana::tuple<combination_field<T, K, N>>({c.lists()})}...);
  }(std::make_integer_sequence<int, N>{});
}
template <int N = 2> auto unzip(const combinations_of<jagged_record>& c) {
  if (c.n() != N) detail::throw_unzip_arity(c.n(), N);
  return [&]<int... K>(std::integer_sequence<int, K...>) {
    return std::make_tuple(combination_slot<K, N>(c.lists())...);
  }(std::make_integer_sequence<int, N>{});
}

}  // namespace jf

#include "jetfuse/combinations_materialised.hpp"  // NOLINT: needs the declarations above
