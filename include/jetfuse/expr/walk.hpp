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

#include "jetfuse/detail/lowering.hpp"
#include "jetfuse/expr/type_of.hpp"
#include "jetfuse/ir/graph.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf {

template <class E> struct leaf_counts;
template <class T> struct is_reduce_tag : std::false_type {};

// Leaves and reductions of an expression type (reductions: jf::sum, jf::mean, ... nodes).
// `nest_only`: nodes only the loop-nest engine evaluates (jf::random's computed leaves, jf::take).
template <class T> struct leaf_counts<term<array<T>>> {
  static constexpr int arrays = 1, scalars = 0, reductions = 0, nest_only = 0;
};
template <class S>
  requires std::is_arithmetic_v<S>
struct leaf_counts<term<S>> {
  static constexpr int arrays = 0, scalars = 1, reductions = 0, nest_only = 0;
};
template <class Tag, class... A> struct leaf_counts<call_node<Tag, A...>> {
  static constexpr int nest_only = (0 + ... + leaf_counts<A>::nest_only);
  static constexpr int arrays = (0 + ... + leaf_counts<A>::arrays);
  static constexpr int scalars = (0 + ... + leaf_counts<A>::scalars);
  static constexpr int reductions = (int(is_reduce_tag<Tag>::value) + ... + leaf_counts<A>::reductions);
};

namespace detail {

template <class S> std::string scalar_text(S v) {
  if constexpr (std::is_same_v<S, bool>) return v ? "True" : "False";
  else return std::to_string(v);
}

// Converts a weak scalar to the dtype it is used at. NEP 50: an integer that does not fit the
// array's integer dtype is an error (numpy: OverflowError) in arithmetic and in where (numpy 2.5;
// 2.4 wrapped it silently), but not in comparisons (the result is known).
template <dtype Target, class S> void convert_scalar(S v, scalar_use use, scalar_slot* slot) {
  using T = cpp_type_t<Target>;
  if constexpr (is_integer(Target) && std::is_integral_v<S> && !std::is_same_v<S, bool>) {
    if (use == scalar_use::compared && !std::in_range<T>(v)) {
      slot->outside = v < 0 ? -1 : 1;
      return;
    }
  }
  const T t = cast_scalar<T>(v);
  slot->value = static_cast<double>(t);
  std::memcpy(&slot->bits, &t, sizeof(T));
  slot->exponent = use == scalar_use::exponent;
}

constexpr bool is_comparison(op o) { return info(o).rule == op_rule::compare; }

// `l OP r` when one side is a weak integer outside the range of the integer dtype both are
// compared in (numpy 2 compares the values exactly): 1 true, 0 false; -1 when not known.
constexpr int known_comparison(op o, bool scalar_on_right, int outside) {
  if (outside == 0) return -1;
  const bool right_greater = scalar_on_right == (outside > 0);
  switch (o) {
  case op::less: case op::less_equal: return right_greater;
  case op::greater: case op::greater_equal: return !right_greater;
  case op::equal: return 0;
  case op::not_equal: return 1;
  default: return -1;
  }
}

template <class E> struct tree;  // per-node walks

// Leaves whose array is computed when an evaluation gathers them (jf::matmul's values, matmul.hpp):
// `compute(e)` gives it for array<T> a = e without a copy. While jf::explain gathers,
// `explain_notes` is set: such leaves append their own account to it and are described, not run.
template <class E> struct computed_leaf : std::false_type {};
inline thread_local std::string* explain_notes = nullptr;
inline thread_local bool explain_notes_cuda = false;  // under jf::explain_cuda: jf::cuda's plans in the notes

template <class T> struct tree<term<array<T>>> {
  template <dtype Target>
  static void gather(const term<array<T>>& e, const array_base** arrays, scalar_slot*, reduce_spec*, scalar_use) {
    *arrays = &e.elements[hana::llong_c<0>];
  }
};
template <class S>
  requires std::is_arithmetic_v<S>
struct tree<term<S>> {
  template <dtype Target>
  static void gather(const term<S>& e, const array_base**, scalar_slot* scalars, reduce_spec*, scalar_use use) {
    convert_scalar<Target>(e.elements[hana::llong_c<0>], use, scalars);
  }
};

// numpy converts a Python int operand of a logical ufunc to a C long whatever the array's dtype
// (np.logical_or(bool_or_float_array, 2**63) raises OverflowError, 2**40 with int32 does not), so a
// weak integer outside int64 raises there, although jetfuse computes logical operations in bool.
template <dtype Loop, class Leaf> void check_logical_scalar(const Leaf& leaf) {
  if constexpr (is_integer(Loop) && requires { leaf.elements[hana::llong_c<0>]; }) {
    using S = std::remove_cvref_t<decltype(leaf.elements[hana::llong_c<0>])>;
    if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
      const S v = leaf.elements[hana::llong_c<0>];
      if (!std::in_range<cpp_type_t<Loop>>(v)) throw_scalar_out_of_bounds(scalar_text(v), Loop);
    }
  }
}

template <class Tag, class... A> struct tree<call_node<Tag, A...>> {
  template <std::size_t... I>
  static void gather_args(const call_node<Tag, A...>& e, const array_base** arrays, scalar_slot* scalars,
                          reduce_spec* specs, std::index_sequence<I...>) {
    int ai = 0, si = 0, ri = 0;
    (
        [&] {
          using Arg = std::tuple_element_t<I, std::tuple<A...>>;
          constexpr dtype target = arg_target<I>();
          tree<Arg>::template gather<target>(e.elements[hana::llong_c<I + 1>], arrays + ai, scalars + si,
                                             specs + ri, arg_use<I>());
          if constexpr (is_fn_tag<Tag>::value && leaf_counts<Arg>::arrays == 0 && leaf_counts<Arg>::scalars == 1) {
            if constexpr (info(code()).rule == op_rule::logical)
              check_logical_scalar<dtype::int64>(e.elements[hana::llong_c<I + 1>]);
          }
          ai += leaf_counts<Arg>::arrays;
          si += leaf_counts<Arg>::scalars;
          ri += leaf_counts<Arg>::reductions;
        }(),
        ...);
  }
  template <dtype Target>
  static void gather(const call_node<Tag, A...>& e, const array_base** arrays, scalar_slot* scalars,
                     reduce_spec* specs, scalar_use) {
    gather_args(e, arrays, scalars, specs, std::index_sequence_for<A...>{});
  }
  static constexpr op code() {
    if constexpr (is_fn_tag<Tag>::value) return Tag::code;
    else return op::cast;
  }
  // Comparisons of an integer array with a weak integer: exact (see scalar_use::compared). A bool
  // array is compared in int64 like numpy, which raises for an integer out of int64's range.
  template <std::size_t I> static constexpr bool compared_with_integer_array() {
    if constexpr (!is_comparison(code()) || sizeof...(A) != 2) {
      return false;
    } else {
      constexpr operand_type other = type_of_v<std::tuple_element_t<1 - I, std::tuple<A...>>>;
      return !other.is_weak() && is_integer(other.type);
    }
  }
  template <std::size_t I> static constexpr scalar_use arg_use() {
    if constexpr (code() == op::power && I == 1)
      return scalar_use::exponent;
    else if constexpr (compared_with_integer_array<I>()) return scalar_use::compared;
    else return scalar_use::value;
  }
  template <std::size_t I> static constexpr dtype arg_target() {
    if constexpr (is_fn_tag<Tag>::value) return op_types<Tag::code, A...>::target(static_cast<int>(I));
    else return type_of_v<std::tuple_element_t<I, std::tuple<A...>>>.type;  // cast: operand as it is
  }
  // Operand I is a weak scalar compared with an integer array (a scalar operand is always a leaf).
  template <std::size_t I> static constexpr bool scalar_compared() {
    if constexpr (I >= sizeof...(A)) return false;
    else return leaf_counts<std::tuple_element_t<I, std::tuple<A...>>>::arrays == 0 && compared_with_integer_array<I>();
  }
  // Whether this node may be a comparison whose answer is known from its scalar (the CPU evaluator
  // then carries the answer, the CUDA lowering writes a constant).
  static constexpr bool may_be_known() { return scalar_compared<0>() || scalar_compared<1>(); }
  // The known answer (1, 0) of this comparison, or -1; s: the slot of this node's first scalar leaf.
  static int known_result(const scalar_slot* s) {
    if constexpr (scalar_compared<0>()) {
      return known_comparison(code(), false, s[0].outside);
    } else if constexpr (scalar_compared<1>()) {
      using L = std::tuple_element_t<0, std::tuple<A...>>;
      return known_comparison(code(), true, s[leaf_counts<L>::scalars].outside);
    } else {
      return -1;
    }
  }
};

template <class E> struct lower_type;

// The walk's position: array, scalar and reduction leaves numbered in walk order (reductions
// before their operand: prefix order), and the region the node is in (0: the result; r + 1: the
// operand of reduction r). input_nodes holds one node per (kernel input, region).
struct lower_cursor {
  int ai = 0, si = 0, ri = 0;
  int region = 0;
  int regions = 1;
  std::vector<ir::node_id>* input_nodes = nullptr;
  // The guard of the value just lowered: the mask of x(mask) over jagged values (no_node: every
  // iteration counts), carried up through element-wise operations to the reduction that skips
  // the iterations where it is false (expr/jagged_mask.hpp).
  ir::node_id guard = ir::no_node;
};

template <class T> struct lower_type<term<array<T>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    return lower_input(g, in, c.ai++, c.region, c.regions, *c.input_nodes, dtype_v<T>);
  }
};
template <class S>
  requires std::is_arithmetic_v<S>
struct lower_type<term<S>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype target) {
    return lower_scalar(g, in, c.si++, target);
  }
};
template <class Tag, class... A> struct lower_type<call_node<Tag, A...>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    ir::node_id args[sizeof...(A) > 0 ? sizeof...(A) : 1] = {};
    ir::node_id guards[sizeof...(A) > 0 ? sizeof...(A) : 1] = {};
    const int first_scalar = c.si;
    lower_args(g, in, c, args, guards, std::index_sequence_for<A...>{});
    c.guard = merge_guards(g, args, guards, static_cast<int>(sizeof...(A)));
    if constexpr (tree<call_node<Tag, A...>>::may_be_known()) {
      const int known = tree<call_node<Tag, A...>>::known_result(in.scalars + first_scalar);
      if (known >= 0) return g.add_constant(dtype::bool_, ir::scalar_value::of(dtype::bool_, known));
    }
    if constexpr (is_cast_tag<Tag>::value) {
      return lower_cast(g, args[0], Tag::type, home_domain(in, c.region));
    } else {
      return lower_operation(g, Tag::code, op_types<Tag::code, A...>::result, args, static_cast<int>(sizeof...(A)),
                             home_domain(in, c.region));
    }
  }
  template <std::size_t... I>
  static void lower_args(ir::graph& g, const lowering_inputs& in, lower_cursor& c, ir::node_id* args,
                         ir::node_id* guards, std::index_sequence<I...>) {
    (
        [&] {
          using Arg = std::tuple_element_t<I, std::tuple<A...>>;
          constexpr dtype target = tree<call_node<Tag, A...>>::template arg_target<I>();
          c.guard = ir::no_node;
          args[I] = lower_cast(g, lower_type<Arg>::run(g, in, c, target), target, home_domain(in, c.region));
          guards[I] = c.guard;
        }(),
        ...);
  }
};

}  // namespace detail
}  // namespace jf
