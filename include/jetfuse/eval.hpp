// Evaluation entry points: array construction/assignment from expressions, jf::eval (several
// results in one kernel), jf::unfused, jf::explain.
#pragma once

#include <array>
#include <string>
#include <tuple>

#include "jetfuse/detail/engine.hpp"
#include "jetfuse/expr/casting.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/expr/searchsorted.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/expr/value_kind.hpp"
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

// Runs once per kernel variant (a cache miss): compiled cold, for size, to keep user translation
// units cheap.
template <class... E>
[[gnu::cold]] void lower_all(ir::graph& g, const lowering_inputs& in, int num_inputs, std::vector<ir::node_id>& roots) {
  constexpr int regions = 1 + (0 + ... + leaf_counts<E>::reductions);
  std::vector<ir::node_id> input_nodes(static_cast<std::size_t>(num_inputs * regions), ir::no_node);
  lower_cursor c;
  c.regions = regions;
  c.input_nodes = &input_nodes;
  (
      [&] {
        c.guard = ir::no_node;
        roots.push_back(lower_type<E>::run(g, in, c, type_of_v<E>.type));
        if (c.guard != ir::no_node) throw_unreduced_mask();
      }(),
      ...);
}

// The structure of expression types in prefix order (for the shape analysis of reductions).
template <class E> struct program_of;
template <class T> struct program_of<term<array<T>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::array, 0}}};
};
template <class S>
  requires std::is_arithmetic_v<S>
struct program_of<term<S>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::scalar, 0}}};
};
template <std::size_t... N> constexpr auto concat_programs(const std::array<prog_entry, N>&... parts) {
  std::array<prog_entry, (0 + ... + N)> out{};
  std::size_t k = 0;
  ((std::copy(parts.begin(), parts.end(), out.begin() + static_cast<std::ptrdiff_t>(k)), k += parts.size()), ...);
  return out;
}
template <class Tag, class... A> struct program_of<call_node<Tag, A...>> {
  static constexpr prog_entry self{is_reduce_tag<Tag>::value ? prog_entry::reduction : prog_entry::elementwise,
                                   static_cast<std::int8_t>(sizeof...(A))};
  static constexpr auto value = concat_programs(std::array<prog_entry, 1>{self}, program_of<A>::value...);
};
template <ir::gather_mode M, int Msg, class X, class I, class A>
struct program_of<call_node<take_fn<M, Msg>, X, I, A>> {
  static constexpr prog_entry self{prog_entry::gather, 3, static_cast<std::int8_t>(M)};
  static constexpr auto value =
      concat_programs(std::array<prog_entry, 1>{self}, program_of<X>::value, program_of<I>::value, program_of<A>::value);
};
template <int AI, int AJ, class X, class I, class J, class A>
struct program_of<call_node<index_pair_fn<AI, AJ>, X, I, J, A>> {
  static constexpr prog_entry self{prog_entry::gather, index_pair_program_nargs,
                                   static_cast<std::int8_t>(ir::gather_mode::raise)};
  static constexpr auto value = concat_programs(std::array<prog_entry, 1>{self}, program_of<X>::value,
                                                program_of<I>::value, program_of<J>::value, program_of<A>::value);
};
template <int AI, int AJ, class I, class J, class N>
struct program_of<call_node<pair_position_fn<AI, AJ>, I, J, N, N>> {
  static constexpr prog_entry self{prog_entry::elementwise, 4, pair_positions_mode};
  static constexpr auto value = concat_programs(std::array<prog_entry, 1>{self}, program_of<I>::value,
                                                program_of<J>::value, program_of<N>::value, program_of<N>::value);
};
template <bool Right, class X, class V, class A> struct program_of<call_node<search_fn<Right>, X, V, A>> {
  static constexpr prog_entry self{prog_entry::gather, 3, search_program_mode};
  static constexpr auto value =
      concat_programs(std::array<prog_entry, 1>{self}, program_of<X>::value, program_of<V>::value, program_of<A>::value);
};
template <class... E> struct programs {
  static constexpr auto value = concat_programs(program_of<E>::value...);
};

// Gathers the leaves of every expression (the hot path: no allocation, no strings).
template <class... E> struct gathered {
  static constexpr int A = (0 + ... + leaf_counts<E>::arrays);
  static constexpr int S = (0 + ... + leaf_counts<E>::scalars);
  static constexpr int R = (0 + ... + leaf_counts<E>::reductions);
  static constexpr int G = (0 + ... + leaf_counts<E>::nest_only);
  std::array<const array_base*, (A > 0 ? A : 1)> arrays{};
  std::array<scalar_slot, (S > 0 ? S : 1)> scalars{};
  std::array<reduce_spec, (R > 0 ? R : 1)> specs{};
  explicit gathered(const E&... e) {
    int ai = 0, si = 0, ri = 0;
    ((tree<E>::template gather<type_of_v<E>.type>(e, arrays.data() + ai, scalars.data() + si, specs.data() + ri,
                                                  scalar_use::value),
      ai += leaf_counts<E>::arrays, si += leaf_counts<E>::scalars, ri += leaf_counts<E>::reductions),
     ...);
  }
  // The request of this evaluation (expressions with reductions also carry their structure).
  eval_request request(array_base* outs, const dtype* out_types, const eval_options& opt) const {
    eval_request r;
    r.lower = &lower_all<E...>;
    r.arrays = arrays.data();
    r.narrays = A;
    r.scalars = scalars.data();
    r.nscalars = S;
    r.outputs = outs;
    r.out_types = out_types;
    r.nout = static_cast<int>(sizeof...(E));
    r.opt = opt;
    if constexpr (R > 0 || G > 0) {  // random leaves and gathers: the loop-nest engine binds them
      r.program = programs<E...>::value.data();
      r.program_size = static_cast<int>(programs<E...>::value.size());
      r.specs = specs.data();
      r.nspecs = R;
    }
    return r;
  }
};

template <class... E>
[[gnu::noinline]] void evaluate_into(array_base* outs, const dtype* out_types, const eval_options& opt, const E&... e) {
  gathered<E...> g(e...);
  eval_request r = g.request(outs, out_types, opt);
  r.slot = slot_for<slot_key<E...>>();
  evaluate(r);
}

}  // namespace detail

template <class T>
template <class E>
  requires is_lazy_expr<std::remove_cvref_t<E>>::value
array<T>::array(const E& e) {
  static_assert(detail::all_dense<E>, "jetfuse: this expression is over jagged arrays: assign it to a jf::jagged<T> "
                                      "(element-wise) or a jf::option_array<T> (a per-list min, max, mean, argmin or "
                                      "argmax), or use jf::eval");
  dtype_ = dtype_v<T>;
  using N = typename node_of<E>::type;
  if constexpr (detail::computed_leaf<N>::value) {
    if constexpr (detail::computed_leaf<N>::type == dtype_v<T>) {
      static_cast<array_base&>(*this) = detail::computed_leaf<N>::compute(e);
      return;
    }
  }
  if constexpr (detail::reduction_of_lists<N>::value) {
    if (detail::across_lists(e)) {  // Awkward's axis=0: jagged_across.hpp
      static_cast<array_base&>(*this) = detail::reduce_across_lists<T>(e);
      return;
    }
  }
  const jf::dtype t = dtype_v<T>;
  detail::evaluate_into<N>(this, &t, detail::eval_options{}, e);
}

template <class T>
template <class E>
  requires is_lazy_expr<std::remove_cvref_t<E>>::value
array<T>& array<T>::operator=(const E& e) & {
  static_assert(detail::all_dense<E>, "jetfuse: this expression is over jagged arrays: assign it to a jf::jagged<T> "
                                      "(element-wise) or a jf::option_array<T> (a per-list min, max, mean, argmin or "
                                      "argmax), or use jf::eval");
  if constexpr (detail::reduction_of_lists<typename node_of<E>::type>::value) {
    if (detail::across_lists(e)) {  // Awkward's axis=0: jagged_across.hpp
      static_cast<array_base&>(*this) = detail::reduce_across_lists<T>(e);
      return *this;
    }
  }
  const jf::dtype t = dtype_v<T>;
  detail::evaluate_into<typename node_of<E>::type>(this, &t, detail::eval_options{}, e);
  return *this;
}

// Evaluates one expression into a new array, or several into a tuple of arrays computed by ONE
// kernel (their shapes broadcast together; each output has its own dtype).
template <class... E>
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...) && detail::all_dense<E...>)
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
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...) && detail::all_dense<E...>)
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
  std::string notes;  // what computed leaves (jf::matmul's values) would run first
  struct notes_scope {
    std::string* saved = explain_notes;
    bool saved_cuda = explain_notes_cuda;
    notes_scope(std::string* n, bool cuda) {
      explain_notes = n;
      explain_notes_cuda = cuda;
    }
    ~notes_scope() {
      explain_notes = saved;
      explain_notes_cuda = saved_cuda;
    }
  } scope(&notes, opt.explain_cuda);
  gathered<C...> g(c...);
  std::array<array_base, sizeof...(C)> outs;
  const std::array<dtype, sizeof...(C)> types = {type_of_v<C>.type...};
  eval_request r = g.request(outs.data(), types.data(), opt);
  // A per-list result that may be None is evaluated with its validity (a second output of the same
  // kernel): described so too (nothing is allocated while explaining).
  array_base valid_probe;
  if constexpr (sizeof...(C) == 1 && ((value_kind_v<C> == value_kind::option && !has_option_leaf_v<C>) && ...))
    r.result_valid = &valid_probe;
  if constexpr ((detail::computed_leaf<C>::value && ...)) {  // nothing but computed leaves
    (void)r;
    return notes;
  }
  else if constexpr (gathered<C...>::R > 0 || gathered<C...>::G > 0) return notes + explain_nest(r);
  else return notes + explain(r);
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

// What jf::cuda would run for expressions over arrays of these shapes and layouts, whatever
// backend the arrays are on: the IR before and after the passes, the plan, each kernel's shape and
// launch rule, and its source. Runs and compiles nothing (also on a machine without a GPU).
template <class... E>
  requires(sizeof...(E) > 0 && (lazy_operand<E> && ...))
std::string explain_cuda(const E&... e) {
  detail::eval_options opt;
  opt.explain_cuda = true;
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
                                             "negative or subtraction, bitwise operations on "                        \
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

// x(indices) = v and the other scatters (after everything they use).
#include "jetfuse/expr/mixed_indexing.hpp"
#include "jetfuse/expr/scatter.hpp"
