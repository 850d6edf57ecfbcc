// The two per-type walks of an expression: gathering its leaves (the hot path of every evaluation)
// and lowering its type to jf::ir (the miss path, once per kernel variant).
//
// Leaves are numbered in one fixed order (depth first, operands left to right): arrays 0..A-1,
// scalars 0..S-1. The scalar leaves become the kernel's params in that order.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "jetfuse/expr/type_of.hpp"
#include "jetfuse/ir/graph.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf {

template <class E> struct leaf_counts;
template <class T> struct leaf_counts<term<array<T>>> {
  static constexpr int arrays = 1, scalars = 0;
};
template <class S>
  requires std::is_arithmetic_v<S>
struct leaf_counts<term<S>> {
  static constexpr int arrays = 0, scalars = 1;
};
template <class Tag, class... A> struct leaf_counts<call_node<Tag, A...>> {
  static constexpr int arrays = (0 + ... + leaf_counts<A>::arrays);
  static constexpr int scalars = (0 + ... + leaf_counts<A>::scalars);
};

namespace detail {

// A scalar leaf converted on the host to the dtype it is used at (one 8-byte kernel slot).
struct scalar_slot {
  std::uint64_t bits = 0;
  bool exponent = false;  // the exponent of power: small integral values specialise the kernel
  double value = 0;       // the value converted to the target dtype, as a double (for the key)
};

// NEP 50: a weak integer that does not fit the array's integer dtype is an error (numpy raises).
template <dtype Target, class S> std::uint64_t convert_scalar(S v, double* as_double) {
  using T = cpp_type_t<Target>;
  if constexpr (is_integer(Target) && std::is_integral_v<S> && !std::is_same_v<S, bool>) {
    if (v < static_cast<S>(std::numeric_limits<T>::min()) || v > static_cast<S>(std::numeric_limits<T>::max()))
      throw dtype_error("scalar " + std::to_string(v) + " is out of bounds for " + std::string(name(Target)));
  }
  const T t = ops::jf_cast<T>(v);
  *as_double = static_cast<double>(t);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &t, sizeof(T));
  return bits;
}

template <class E> struct tree;  // per-node walks

template <class T> struct tree<term<array<T>>> {
  template <dtype Target> static void gather(const term<array<T>>& e, const array_base** arrays, scalar_slot*, bool) {
    *arrays = &e.elements[hana::llong_c<0>];
  }
};
template <class S>
  requires std::is_arithmetic_v<S>
struct tree<term<S>> {
  template <dtype Target> static void gather(const term<S>& e, const array_base**, scalar_slot* scalars, bool exponent) {
    scalars->bits = convert_scalar<Target>(e.elements[hana::llong_c<0>], &scalars->value);
    scalars->exponent = exponent;
  }
};

template <class Tag, class... A> struct tree<call_node<Tag, A...>> {
  template <std::size_t... I>
  static void gather_args(const call_node<Tag, A...>& e, const array_base** arrays, scalar_slot* scalars,
                          std::index_sequence<I...>) {
    int ai = 0, si = 0;
    (
        [&] {
          using Arg = std::tuple_element_t<I, std::tuple<A...>>;
          constexpr dtype target = arg_target<I>();
          tree<Arg>::template gather<target>(e.elements[hana::llong_c<I + 1>], arrays + ai, scalars + si,
                                             is_power() && I == 1);
          ai += leaf_counts<Arg>::arrays;
          si += leaf_counts<Arg>::scalars;
        }(),
        ...);
  }
  template <dtype Target> static void gather(const call_node<Tag, A...>& e, const array_base** arrays, scalar_slot* scalars, bool) {
    gather_args(e, arrays, scalars, std::index_sequence_for<A...>{});
  }
  static constexpr bool is_power() {
    if constexpr (is_fn_tag<Tag>::value) return Tag::code == op::power;
    else return false;
  }
  template <std::size_t I> static constexpr dtype arg_target() {
    if constexpr (is_fn_tag<Tag>::value) return op_types<Tag::code, A...>::target(static_cast<int>(I));
    else return type_of_v<std::tuple_element_t<I, std::tuple<A...>>>.type;  // cast: operand as it is
  }
};

// What the lowering needs to know about one evaluation's leaves at run time.
struct lowering_inputs {
  const std::int32_t* array_input;     // kernel input index of each array leaf (aliases share one)
  const ir::layout* input_layout;      // layout of each kernel input
  const scalar_slot* scalars;          // for specialisation: exponents with small integer values
  const bool* specialised;             // per scalar leaf: write it as a constant
};

template <class E> struct lower_type;

template <class T> struct lower_type<term<array<T>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, int& ai, int&, std::vector<ir::node_id>& input_nodes,
                         dtype) {
    const std::int32_t k = in.array_input[ai++];
    if (input_nodes[static_cast<std::size_t>(k)] == ir::no_node) {
      ir::node n;
      n.code = op::input;
      n.type = dtype_v<T>;
      n.index = k;
      input_nodes[static_cast<std::size_t>(k)] = g.add(n);
    }
    return input_nodes[static_cast<std::size_t>(k)];
  }
};
template <class S>
  requires std::is_arithmetic_v<S>
struct lower_type<term<S>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, int&, int& si, std::vector<ir::node_id>&, dtype target) {
    const int k = si++;
    if (in.specialised[k]) return g.add_constant(target, ir::scalar_value::of(target, in.scalars[k].value));
    ir::node n;
    n.code = op::param;
    n.type = target;
    n.index = k;
    return g.add(n);
  }
};
template <class Tag, class... A> struct lower_type<call_node<Tag, A...>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, int& ai, int& si, std::vector<ir::node_id>& input_nodes,
                         dtype) {
    ir::node_id args[sizeof...(A) > 0 ? sizeof...(A) : 1] = {};
    lower_args(g, in, ai, si, input_nodes, args, std::index_sequence_for<A...>{});
    if constexpr (is_cast_tag<Tag>::value) {
      return g.add_cast(Tag::type, args[0]);
    } else {
      using types = op_types<Tag::code, A...>;
      ir::node n;
      n.code = Tag::code;
      n.type = types::result;
      n.nargs = static_cast<std::int8_t>(sizeof...(A));
      for (std::size_t i = 0; i < sizeof...(A); ++i) n.args[i] = args[i];
      return g.add(n);
    }
  }
  template <std::size_t... I>
  static void lower_args(ir::graph& g, const lowering_inputs& in, int& ai, int& si, std::vector<ir::node_id>& input_nodes,
                         ir::node_id* args, std::index_sequence<I...>) {
    (
        [&] {
          using Arg = std::tuple_element_t<I, std::tuple<A...>>;
          constexpr dtype target = tree<call_node<Tag, A...>>::template arg_target<I>();
          ir::node_id v = lower_type<Arg>::run(g, in, ai, si, input_nodes, target);
          if (g.nodes[static_cast<std::size_t>(v)].type != target) v = g.add_cast(target, v);
          args[I] = v;
        }(),
        ...);
  }
};

}  // namespace detail
}  // namespace jf
