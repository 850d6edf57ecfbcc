// Evaluation entry points: array construction/assignment from expressions, jf::eval (several
// results in one kernel), jf::unfused, jf::explain.
#pragma once

#include <array>
#include <string>
#include <tuple>

#include "jetfuse/cpu/eigen_eval.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/expr/casting.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/walk.hpp"
#include "jetfuse/stats.hpp"

namespace jf {

// jf::eval(jf::unfused, e): one kernel per operation with temporaries (what CuPy does unfused).
struct unfused_t {};
inline constexpr unfused_t unfused{};

namespace detail {

template <class... E> struct slot_key {};
template <class Key> kernel_slot* slot_for() {
  static kernel_slot* const slot = new_kernel_slot();  // one per expression type, never freed
  return slot;
}

template <class... E>
void lower_all(ir::graph& g, const lowering_inputs& in, int num_inputs, std::vector<ir::node_id>& roots) {
  std::vector<ir::node_id> input_nodes(static_cast<std::size_t>(num_inputs), ir::no_node);
  int ai = 0, si = 0;
  (roots.push_back(lower_type<E>::run(g, in, ai, si, input_nodes, type_of_v<E>.type)), ...);
}

// Gathers the leaves of every expression (the hot path: no allocation, no strings).
template <class... E> struct gathered {
  static constexpr int A = (0 + ... + leaf_counts<E>::arrays);
  static constexpr int S = (0 + ... + leaf_counts<E>::scalars);
  std::array<const array_base*, (A > 0 ? A : 1)> arrays{};
  std::array<scalar_slot, (S > 0 ? S : 1)> scalars{};
  explicit gathered(const E&... e) {
    int ai = 0, si = 0;
    ((tree<E>::template gather<type_of_v<E>.type>(e, arrays.data() + ai, scalars.data() + si, scalar_use::value),
      ai += leaf_counts<E>::arrays, si += leaf_counts<E>::scalars),
     ...);
  }
};

template <class... E>
void evaluate_into(array_base* outs, const dtype* out_types, const eval_options& opt, const E&... e) {
  gathered<E...> g(e...);
  constexpr int nout = sizeof...(E);
  const device dev = common_device(g.arrays.data(), g.A, outs, nout);
  if (dev.kind == device_kind::cuda) {
    eval_request r;
    r.slot = slot_for<slot_key<E...>>();
    r.lower = &lower_all<E...>;
    r.arrays = g.arrays.data();
    r.narrays = g.A;
    r.scalars = g.scalars.data();
    r.nscalars = g.S;
    r.outputs = outs;
    r.out_types = out_types;
    r.nout = nout;
    r.opt = opt;
    evaluate_cuda(r);
    return;
  }
  // jf::cpu: the Eigen evaluator, one expression at a time. Outputs that overlap a leaf other than
  // element for element are computed into temporaries first, so every expression sees the inputs
  // as they were before the assignment (numpy's answer).
  const shape_t value_shape = broadcast_leaves(g.arrays.data(), g.A);
  const shape_t iter = prepare_outputs(outs, out_types, nout, value_shape, dev);
  std::array<array_base, nout> targets;
  bool staged[nout] = {};
  for (int o = 0; o < nout; ++o) {
    targets[o] = outs[o];
    for (int i = 0; i < g.A && !staged[o]; ++i)
      if (may_overlap(outs[o], *g.arrays[i]) && !same_elements(outs[o], *g.arrays[i], iter)) staged[o] = true;
    for (int p = 0; p < o && !staged[o]; ++p)
      if (staged[p] || may_overlap(outs[o], outs[p])) staged[o] = true;
    if (staged[o]) {
      targets[o] = make_array(dev, out_types[o], outs[o].shape());
      bump(counter::temporaries);
      bump(counter::temporary_bytes, static_cast<std::uint64_t>(targets[o].size() * size_of(out_types[o])));
    }
  }
  int o = 0;
  ((cpu_eval::evaluate(e, targets[o], opt), ++o), ...);
  for (int k = 0; k < nout; ++k)
    if (staged[k]) assign(outs[k], targets[k]);
}

}  // namespace detail

template <class T>
template <class E>
  requires is_lazy_expr<std::remove_cvref_t<E>>::value
array<T>::array(const E& e) {
  dtype_ = dtype_v<T>;
  const jf::dtype t = dtype_v<T>;
  detail::evaluate_into(this, &t, detail::eval_options{}, e);
}

template <class T>
template <class E>
  requires is_lazy_expr<std::remove_cvref_t<E>>::value
array<T>& array<T>::operator=(const E& e) & {
  const jf::dtype t = dtype_v<T>;
  detail::evaluate_into(this, &t, detail::eval_options{}, e);
  return *this;
}

// Evaluates one expression into a new array, or several into a tuple of arrays computed by ONE
// kernel (their shapes broadcast together; each output has its own dtype).
template <class... E>
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...))
auto eval(const E&... e) {
  if constexpr (sizeof...(E) == 1) {
    return array<value_type_t<capture_t<const E&>>...>(capture(e)...);
  } else {
    std::tuple<array<value_type_t<capture_t<const E&>>>...> out;
    std::array<array_base, sizeof...(E)> outs;
    const std::array<dtype, sizeof...(E)> types = {type_of_v<capture_t<const E&>>.type...};
    detail::evaluate_into(outs.data(), types.data(), detail::eval_options{}, capture(e)...);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((std::get<I>(out) = std::tuple_element_t<I, decltype(out)>(outs[I])), ...);
    }(std::index_sequence_for<E...>{});
    return out;
  }
}

// The same, one kernel per operation with a temporary array per intermediate result.
template <class... E>
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...))
auto eval(unfused_t, const E&... e) {
  std::array<array_base, sizeof...(E)> outs;
  const std::array<dtype, sizeof...(E)> types = {type_of_v<capture_t<const E&>>.type...};
  detail::eval_options opt;
  opt.mode = detail::eval_mode::unfused;
  detail::evaluate_into(outs.data(), types.data(), opt, capture(e)...);
  if constexpr (sizeof...(E) == 1) {
    return array<value_type_t<capture_t<const E&>>...>(outs[0]);
  } else {
    std::tuple<array<value_type_t<capture_t<const E&>>>...> out;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((std::get<I>(out) = std::tuple_element_t<I, decltype(out)>(outs[I])), ...);
    }(std::index_sequence_for<E...>{});
    return out;
  }
}

// What jetfuse does with an expression on its arrays' backend: the IR before and after the
// passes, the launch plan and the generated CUDA source. Runs nothing.
namespace detail {
template <class... C> std::string explain_captured(const eval_options& opt, const C&... c) {
  gathered<C...> g(c...);
  std::array<array_base, sizeof...(C)> outs;
  const std::array<dtype, sizeof...(C)> types = {type_of_v<C>.type...};
  eval_request r;
  r.lower = &lower_all<C...>;
  r.arrays = g.arrays.data();
  r.narrays = g.A;
  r.scalars = g.scalars.data();
  r.nscalars = g.S;
  r.outputs = outs.data();
  r.out_types = types.data();
  r.nout = static_cast<int>(sizeof...(C));
  r.opt = opt;
  return explain(r);
}
template <class... E> std::string explain_with(const eval_options& opt, const E&... e) {
  return explain_captured(opt, capture(e)...);
}
}  // namespace detail

template <class... E>
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...))
std::string explain(const E&... e) {
  return detail::explain_with(detail::eval_options{}, e...);
}
template <class... E>
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...))
std::string explain(unfused_t, const E&... e) {
  detail::eval_options opt;
  opt.mode = detail::eval_mode::unfused;
  return detail::explain_with(opt, e...);
}

// Compound assignment evaluates in place: numpy's `x += e`, also into a temporary view
// (`x(jf::range(1, -1)) -= e`, numpy's x[1:-1] -= e). The result is cast to x's dtype only when
// numpy's same_kind rule allows it (casting.hpp); x must not be a null handle.
#define JF_COMPOUND_ASSIGNMENT(sym, code)                                                                           \
  template <class X, class E>                                                                                       \
    requires(is_array_v<X> && !std::is_const_v<std::remove_reference_t<X>>)                                         \
  std::remove_cvref_t<X>& operator sym## = (X && x, E && e) {                                                       \
    if constexpr (!operand<E>) {                                                                                    \
      static_assert(operand<E>, JF_UNSUPPORTED_OPERAND_MESSAGE);                                                    \
    } else if constexpr (!detail::compound_types<op::code, typename std::remove_cvref_t<X>::value_type,             \
                                                 E>::defined) {                                                     \
      static_assert(detail::always_false<E>, "jetfuse: `x " #sym "= e` is not defined for these dtypes (bool "      \
                                             "arithmetic that numpy would give int8, bitwise operations on "        \
                                             "floats, shifts of non-integers); convert with jf::astype<T> first");  \
    } else {                                                                                                        \
      static_assert(can_compound_assign<op::code, X, E>,                                                            \
                    "jetfuse: `x " #sym "= e` would cast the result to x's dtype of a lower kind (float to int or " \
                    "bool, int to bool): numpy's same_kind rule raises UFuncTypeError; write "                      \
                    "x = jf::astype<T>(x " #sym " e) to convert on purpose");                                       \
      if (x.is_null())                                                                                              \
        throw value_error("jetfuse: `x " #sym "= e` with x a null array handle; create x first (jf::zeros, ...)");  \
      x = x sym std::forward<E>(e);                                                                                 \
    }                                                                                                               \
    return x;                                                                                                       \
  }
JF_COMPOUND_ASSIGNMENT(+, add)
JF_COMPOUND_ASSIGNMENT(-, subtract)
JF_COMPOUND_ASSIGNMENT(*, multiply)
JF_COMPOUND_ASSIGNMENT(/, true_divide)
JF_COMPOUND_ASSIGNMENT(%, remainder)
JF_COMPOUND_ASSIGNMENT(&, bitwise_and)
JF_COMPOUND_ASSIGNMENT(|, bitwise_or)
JF_COMPOUND_ASSIGNMENT(^, bitwise_xor)
JF_COMPOUND_ASSIGNMENT(<<, left_shift)
JF_COMPOUND_ASSIGNMENT(>>, right_shift)
#undef JF_COMPOUND_ASSIGNMENT

// Printing an expression evaluates it, then prints the result as numpy would (array.hpp).
template <class E>
  requires is_lazy_expr<std::remove_cvref_t<E>>::value
std::ostream& operator<<(std::ostream& os, const E& e) {
  return os << eval(e);
}

}  // namespace jf
