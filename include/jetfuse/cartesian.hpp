// jf::cartesian (Awkward's ak.cartesian([a, b], axis=1), nested=False): per list i, every pair
// (j_a, j_b) of list i of a and list i of b, j_a slowest — a virtual iteration space (the IR's
// `product` domain), never materialised. A per-list reduction of an expression of the two slots'
// fields is ONE loop nest (one CUDA kernel) per list over the product, the values in registers
// (docs/design.md, "Product domains (contract)"):
//
//   auto [p, q] = jf::unzip(jf::cartesian(muons, electrons));        // jf::jagged_record each
//   auto m = jf::sqrt(2 * p.field<float>("pt") * q.field<float>("pt") * (...));
//   jf::option_array<float> best = jf::max(m, -1);                    // ?float32 per event
//
// For jf::jagged<T> operands unzip gives the slots' values directly. a and b must have the same
// number of lists on the same backend (jf::value_error / jf::backend_mismatch, raised here).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "jetfuse/combinations.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/expr/jagged_expr.hpp"
#include "jetfuse/expr/jagged_mask.hpp"
#include "jetfuse/record.hpp"

namespace jf {

// Slot `Slot` (0: a, 1: b) of the cartesian product of a's and b's lists: a leaf of expressions,
// read at the slot's element of each pair. It holds its own lists and the other slot's offsets (the
// product domain walks both).
template <class T, int Slot>
struct cartesian_field {
  jagged<T> x;
  array<std::int64_t> other_offsets;
};
template <class T, int Slot>
using cartesian_leaf = term<cartesian_field<T, Slot>>;

template <class T, int S>
struct leaf_counts<term<cartesian_field<T, S>>> {
  static constexpr int arrays = 3, scalars = 0, reductions = 0, nest_only = 1;
};
template <class T, int S>
struct type_of_impl<term<cartesian_field<T, S>>> {
  static constexpr operand_type value = strong(dtype_v<T>);
};

namespace detail {

template <class T, int S>
struct value_kind_of<term<cartesian_field<T, S>>> {
  static constexpr value_kind value = value_kind::jagged;
};
// The three arrays: the slot's content, then a's offsets, then b's offsets.
template <class T, int S>
struct tree<term<cartesian_field<T, S>>> {
  template <dtype Target>
  static void gather(const term<cartesian_field<T, S>>& e, const array_base** arrays, scalar_slot*, reduce_spec*,
                     scalar_use) {
    const cartesian_field<T, S>& f = e.elements[hana::llong_c<0>];
    arrays[0] = &f.x.content();
    const array_base* own = &f.x.stored_offsets();  // int64 or int32, read as they are
    const array_base* other = &f.other_offsets;
    arrays[1] = S == 0 ? own : other;
    arrays[2] = S == 0 ? other : own;
  }
};
template <class T, int S>
struct lower_type<term<cartesian_field<T, S>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    const ir::node_id content = lower_input(g, in, c.ai, c.region, c.regions, *c.input_nodes, dtype_v<T>);
    c.ai += 3;  // the offsets are the list and product domains', read by no node
    return content;
  }
};
template <class T, int S>
struct program_of<term<cartesian_field<T, S>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::jagged, product_leaf, S}}};
};
// Read outside every reduction: one value per pair (assigning it to a jf::jagged materialises the
// pairs, cartesian_materialised.hpp).
template <class T, int S>
struct cartesian_at_root<term<cartesian_field<T, S>>> : std::true_type {};
template <class Tag, class... A>
struct cartesian_at_root<call_node<Tag, A...>> {
  static constexpr bool value = !is_reduce_tag<Tag>::value && (cartesian_at_root<A>::value || ...);
};

// check_cartesian_operands: detail/combinations_checks.hpp.

}  // namespace detail

// What jf::cartesian takes: a jf::jagged<T> or a jf::jagged_record.
template <class X>
concept cartesian_operand = is_jagged_v<X> || std::is_same_v<std::remove_cvref_t<X>, jagged_record>;

// The pairs of each list of a and the same list of b (jf::jagged<T> or jf::jagged_record each).
template <class A, class B>
class cartesian_of {
 public:
  cartesian_of(A a, B b) : a_(std::move(a)), b_(std::move(b)) {
    detail::check_cartesian_operands(a_.offsets(), b_.offsets());
  }
  const A& first() const { return a_; }
  const B& second() const { return b_; }

 private:
  A a_;
  B b_;
};

// Slot `Slot` of the product of records: its fields are expression leaves (field<T>("pt")).
template <int Slot>
class cartesian_slot {
 public:
  cartesian_slot(jagged_record x, array<std::int64_t> other_offsets)
      : x_(std::move(x)), other_(std::move(other_offsets)) {}
  template <class T>
  cartesian_leaf<T, Slot> field(const std::string& name) const {
    return cartesian_leaf<T, Slot>{hana::tuple<cartesian_field<T, Slot>>({x_.field<T>(name), other_})};
  }

 private:
  jagged_record x_;
  array<std::int64_t> other_;
};

template <cartesian_operand A, cartesian_operand B>
cartesian_of<A, B> cartesian(const A& a, const B& b) {
  return {a, b};
}

namespace detail {
template <int Slot, class X>
auto cartesian_slot_of(const X& x, const array<std::int64_t>& other) {
  if constexpr (std::is_same_v<X, jagged_record>) {
    return cartesian_slot<Slot>(x, other);
  } else {
    using T = typename X::value_type;
    return cartesian_leaf<T, Slot>{hana::tuple<cartesian_field<T, Slot>>({x, other})};
  }
}
}  // namespace detail

// ak.unzip of the product: its two slots (a std::tuple for structured bindings).
template <int N = 2, class A, class B>
auto unzip(const cartesian_of<A, B>& c) {
  static_assert(N == 2, "jf::unzip of jf::cartesian(a, b) gives two slots");
  return std::make_tuple(detail::cartesian_slot_of<0>(c.first(), c.second().offsets()),
                         detail::cartesian_slot_of<1>(c.second(), c.first().offsets()));
}

}  // namespace jf

#include "jetfuse/cartesian_materialised.hpp"  // NOLINT: needs the declarations above
