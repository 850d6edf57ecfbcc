// numpy's scatters, in place and fused with the expressions that compute the indices and the values:
//
//   jf::put(x, indices, values[, jf::mode::wrap])   numpy.put: x flattened, values repeated cyclically
//   jf::put(x, indices, values[, mode], jf::unique_indices)   the caller promises no repeated index
//   x(indices) = v;  x(indices) += v;               numpy's x[indices] = v along the first axis
//   jf::add_at(x, indices, values[, jf::mode::wrap])  numpy.add.at (and subtract_at, multiply_at,
//                                                   minimum_at, maximum_at): every index counts
//
// Each is one evaluation (on jf::cuda two launches of one kernel: the indices are checked and, for
// stores, each element's last writer claimed first; then the values are written). Duplicate indices:
// the last one in numpy's order wins for put and x(indices) = v (deterministically on both
// backends); ufunc.at combines every one. An index out of bounds raises jf::index_error with numpy's
// message and leaves x untouched; the ufuncs also take numpy take's wrap and clip (as JAX's
// scatters take a mode, clip among them): no check, one launch. docs/design.md, "Scatter".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "jetfuse/eval.hpp"

namespace jf {

// The compound assignments of an assignable index expression class `cls` (x(indices), x(i, j),
// expr/mixed_indexing.hpp's x(..., indices)):
// `x(...) op= v` is numpy's buffered x[...] = x[...] op v, with numpy's dtype rules (`what` names
// the expression in the compile-time messages).
#define JF_INDEXED_COMPOUND(cls, what, sym, code)                                                                      \
  template <class V>                                                                                                   \
  const cls& operator sym##=(V&& v) const {                                                                            \
    if constexpr (!operand<V>) {                                                                                       \
      static_assert(operand<V>, JF_UNSUPPORTED_OPERAND_MESSAGE);                                                       \
      return *this;                                                                                                    \
    } else {                                                                                                           \
      static_assert(detail::compound_types<op::code, T, V>::defined,                                                   \
                    "jetfuse: `" what " " #sym "= v` is not defined for these dtypes; convert with jf::astype first"); \
      static_assert(can_cast_same_kind(detail::compound_types<op::code, T, V>::result, dtype_v<T>),                    \
                    "jetfuse: `" what " " #sym                                                                         \
                    "= v` would cast the result to x's dtype of a lower kind: numpy's "                                \
                    "same_kind rule raises UFuncTypeError");                                                           \
      return assign(static_cast<const node_type&>(*this) sym std::forward<V>(v));                                      \
    }                                                                                                                  \
  }
#define JF_INDEXED_COMPOUND_ASSIGNMENTS(cls, what) \
  JF_INDEXED_COMPOUND(cls, what, +, add)           \
  JF_INDEXED_COMPOUND(cls, what, -, subtract)      \
  JF_INDEXED_COMPOUND(cls, what, *, multiply)      \
  JF_INDEXED_COMPOUND(cls, what, /, true_divide)   \
  JF_INDEXED_COMPOUND(cls, what, %, remainder)     \
  JF_INDEXED_COMPOUND(cls, what, &, bitwise_and)   \
  JF_INDEXED_COMPOUND(cls, what, |, bitwise_or)    \
  JF_INDEXED_COMPOUND(cls, what, ^, bitwise_xor)   \
  JF_INDEXED_COMPOUND(cls, what, <<, left_shift)   \
  JF_INDEXED_COMPOUND(cls, what, >>, right_shift)

namespace detail {

template <class I>
constexpr void check_scatter_indices() {
  constexpr dtype t = type_of_v<capture_t<I>>.type;
  static_assert(t != dtype::bool_,
                "jetfuse: bool indices of a scatter: numpy's x[mask] = v is x(mask) = v; convert with "
                "jf::astype<std::int64_t> if positions 0 and 1 are meant");
  static_assert(is_integer(t), "jetfuse: the indices of a scatter must be an integer array, expression or scalar");
}

// The two expressions of a scatter lowered to the IR: the indices over the claim domain (region
// 1), then the values at dtype C (region 0). Compiled cold: once per kernel variant.
template <class I, class V, dtype C>
[[gnu::cold]] void lower_scatter(ir::graph& g, const lowering_inputs& in, int num_inputs,
                                 std::vector<ir::node_id>& roots) {
  std::vector<ir::node_id> input_nodes(static_cast<std::size_t>(num_inputs * 2), ir::no_node);
  lower_cursor c;
  c.regions = 2;
  c.input_nodes = &input_nodes;
  c.region = 1;
  roots.push_back(lower_type<I>::run(g, in, c, type_of_v<I>.type));
  c.region = 0;
  roots.push_back(lower_type<V>::run(g, in, c, C));
}

template <scatter_kind K, ir::put_rule R, ir::gather_mode M, dtype C, class I, class V>
struct scatter_slot_key {};

// The scatter of indices and values without reductions: their leaves gathered, one evaluation. The
// values' scalars are converted to C as numpy converts them (an integer outside C's range raises).
template <scatter_kind K, ir::put_rule R, ir::gather_mode M, dtype C, class I, class V>
[[gnu::noinline]] void scatter_leaves(const array_base& x, const I& indices, const V& values, std::string* explained,
                                      int message_axis) {
  constexpr int A = leaf_counts<I>::arrays + leaf_counts<V>::arrays;
  constexpr int S = leaf_counts<I>::scalars + leaf_counts<V>::scalars;
  std::array<const array_base*, (A > 0 ? A : 1)> arrays{};
  std::array<scalar_slot, (S > 0 ? S : 1)> scalars{};
  reduce_spec specs[1];
  tree<I>::template gather<type_of_v<I>.type>(indices, arrays.data(), scalars.data(), specs, scalar_use::value);
  tree<V>::template gather<C>(values, arrays.data() + leaf_counts<I>::arrays, scalars.data() + leaf_counts<I>::scalars,
                              specs, scalar_use::value);
  scatter_spec sp;
  sp.target = x;
  sp.kind = K;
  sp.rule = R;
  sp.mode = M;
  sp.value_type = C;
  sp.index_arrays = leaf_counts<I>::arrays;
  sp.index_program = static_cast<int>(program_of<I>::value.size());
  sp.axis = message_axis;
  eval_request r;
  r.slot = slot_for<scatter_slot_key<K, R, M, C, I, V>>();
  r.lower = &lower_scatter<I, V, C>;
  r.arrays = arrays.data();
  r.narrays = A;
  r.scalars = scalars.data();
  r.nscalars = S;
  r.program = programs<I, V>::value.data();
  r.program_size = static_cast<int>(programs<I, V>::value.size());
  r.scatter = &sp;
  if (explained) {
    r.opt.explain_cuda = true;
    *explained = explain_scatter(r);
  } else {
    evaluate_scatter(r);
  }
}

// Runs the scatter of the (captured) indices and values into x (or, with `explained`, describes it
// there: jf::cuda's plan). Indices or values computed by a reduction (x(jf::argmax(y, 1)) = 0,
// jf::put(x, i, jf::sum(y, 0))) are evaluated into an array first, in their own dtype, as numpy
// evaluates both operands before it writes (so a reduction of x itself sees x before the scatter);
// the scatter then reads that array. (jf::explain of such a scatter evaluates the reduction and
// describes the scatter of its array.) message_axis: the axis numpy's IndexError names (x's, when
// x is a view of the indexed array with that axis moved first).
template <scatter_kind K, ir::put_rule R, ir::gather_mode M, dtype C, class I, class V>
[[gnu::noinline]] void scatter_into(const array_base& x, const I& indices, const V& values,
                                    std::string* explained = nullptr, int message_axis = 0) {
  if constexpr (leaf_counts<I>::reductions > 0) {
    const array<cpp_type_t<type_of_v<I>.type>> evaluated(indices);
    scatter_into<K, R, M, C>(x, capture(evaluated), values, explained, message_axis);
  } else if constexpr (leaf_counts<V>::reductions > 0) {
    const array<cpp_type_t<type_of_v<V>.type>> evaluated(values);
    scatter_into<K, R, M, C>(x, indices, capture(evaluated), explained, message_axis);
  } else {
    scatter_leaves<K, R, M, C>(x, indices, values, explained, message_axis);
  }
}

template <ir::gather_mode M, ir::put_rule R = ir::put_rule::store, class T, class I, class V>
void put_values(const array<T>& x, I&& indices, V&& values, std::string* explained = nullptr) {
  check_scatter_indices<I>();
  static_assert(operand<V>, JF_UNSUPPORTED_OPERAND_MESSAGE);
  scatter_into<scatter_kind::put, R, M, dtype_v<T>>(x, capture(std::forward<I>(indices)),
                                                    capture(std::forward<V>(values)), explained);
}

// The gather_mode of jf::mode's tags.
template <class M>
struct mode_of_tag;
template <>
struct mode_of_tag<mode::raise_t> {
  static constexpr ir::gather_mode value = ir::gather_mode::raise;
};
template <>
struct mode_of_tag<mode::wrap_t> {
  static constexpr ir::gather_mode value = ir::gather_mode::wrap;
};
template <>
struct mode_of_tag<mode::clip_t> {
  static constexpr ir::gather_mode value = ir::gather_mode::clip;
};
template <class M>
concept mode_tag = requires {
  mode_of_tag<std::remove_cvref_t<M>>::value;
};

// The dtype numpy's ufunc.at(x, indices, values) computes in: x's dtype promoted with the values'.
// numpy converts the values with np.asarray, so a C++ scalar counts as a strong int64, float64 or
// bool (no NEP 50 weak scalar: np.add.at(float32_x, i, 0.1) adds in float64).
template <op O, class T, class V>
struct ufunc_at_types {
  static constexpr operand_type v = type_of_v<capture_t<V>>;
  static constexpr op_rule rule = info(O).rule;
  static constexpr dtype compute = compute_dtype(rule, resolve(promote(strong(dtype_v<T>), strong(v.type))));
  static constexpr bool defined = accepts(rule, compute);
};

// numpy's ufunc.at(x, indices, values): x's element combined with each value in that dtype (and
// converted back: numpy casts the result unsafely).
template <op O, ir::put_rule R, ir::gather_mode M = ir::gather_mode::raise, class T, class I, class V>
void ufunc_at(const array<T>& x, I&& indices, V&& values, std::string* explained = nullptr) {
  check_scatter_indices<I>();
  static_assert(operand<V>, JF_UNSUPPORTED_OPERAND_MESSAGE);
  if constexpr (operand<V>) {
    using types = ufunc_at_types<O, T, V>;
    static_assert(types::defined,
                  "jetfuse: this ufunc.at is not defined for these dtypes (numpy's boolean subtract "
                  "raises TypeError; use jf::astype first)");
    scatter_into<scatter_kind::ufunc_at, R, M, types::compute>(x, capture(std::forward<I>(indices)),
                                                               capture(std::forward<V>(values)), explained);
  }
}

}  // namespace detail

// numpy.put(x, indices, values, mode='raise'): x.flat[indices] = values in place (x of any shape is
// written flattened, in C order; a non-contiguous x through a copy written back). values repeat
// cyclically when shorter than the indices (an array; an expression must have the indices' shape,
// or be a scalar); empty values put nothing. Duplicate indices: the last one wins. mode raise: an
// index outside [-x.size, x.size) raises jf::index_error and x is untouched; jf::mode::wrap and
// jf::mode::clip as numpy's.
template <class T, class I, class V>
void put(const array<T>& x, I&& indices, V&& values) {
  detail::put_values<ir::gather_mode::raise>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V>
void put(const array<T>& x, I&& indices, V&& values, mode::raise_t) {
  detail::put_values<ir::gather_mode::raise>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V>
void put(const array<T>& x, I&& indices, V&& values, mode::wrap_t) {
  detail::put_values<ir::gather_mode::wrap>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V>
void put(const array<T>& x, I&& indices, V&& values, mode::clip_t) {
  detail::put_values<ir::gather_mode::clip>(x, std::forward<I>(indices), std::forward<V>(values));
}

// JAX's unique_indices=True: the caller promises that no element is named twice (after the mode's
// wrapping or clipping), so no element needs claiming for numpy's last write. On jf::cuda the
// values go out in one scattered pass instead of two (mode wrap or clip: one launch; raise: the
// check, then the stores). If an index repeats after all, one of its values is written, which one
// undefined (as CuPy's and PyTorch's x[p] = v); nothing outside x is written and mode raise still
// checks every index first.
struct unique_indices_t {};
inline constexpr unique_indices_t unique_indices{};
template <class T, class I, class V>
void put(const array<T>& x, I&& indices, V&& values, unique_indices_t) {
  detail::put_values<ir::gather_mode::raise, ir::put_rule::store_any>(x, std::forward<I>(indices),
                                                                      std::forward<V>(values));
}
template <class T, class I, class V, detail::mode_tag M>
void put(const array<T>& x, I&& indices, V&& values, M, unique_indices_t) {
  detail::put_values<detail::mode_of_tag<std::remove_cvref_t<M>>::value, ir::put_rule::store_any>(
      x, std::forward<I>(indices), std::forward<V>(values));
}

// numpy.add.at(x, indices, values): x[indices] += values unbuffered, every duplicate index adding
// its value (along x's first axis; values broadcast to indices.shape + x.shape[1:]). On jf::cuda by
// atomics: integer results are exact, floating-point ones may differ in the last bits between runs
// (the order of additions into one element is not fixed). Out-of-bounds: jf::index_error, x
// untouched. With jf::mode::wrap or jf::mode::clip (numpy take's modes; JAX's .at[].add takes a
// mode too, clip among them): indices wrapped or clipped, nothing checked first, one launch.
template <class T, class I, class V>
void add_at(const array<T>& x, I&& indices, V&& values) {
  detail::ufunc_at<op::add, ir::put_rule::add>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V, detail::mode_tag M>
void add_at(const array<T>& x, I&& indices, V&& values, M) {
  detail::ufunc_at<op::add, ir::put_rule::add, detail::mode_of_tag<std::remove_cvref_t<M>>::value>(
      x, std::forward<I>(indices), std::forward<V>(values));
}
// numpy.subtract.at (bool: compile-time error, numpy raises TypeError).
template <class T, class I, class V>
void subtract_at(const array<T>& x, I&& indices, V&& values) {
  detail::ufunc_at<op::subtract, ir::put_rule::subtract>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V, detail::mode_tag M>
void subtract_at(const array<T>& x, I&& indices, V&& values, M) {
  detail::ufunc_at<op::subtract, ir::put_rule::subtract, detail::mode_of_tag<std::remove_cvref_t<M>>::value>(
      x, std::forward<I>(indices), std::forward<V>(values));
}
// numpy.multiply.at.
template <class T, class I, class V>
void multiply_at(const array<T>& x, I&& indices, V&& values) {
  detail::ufunc_at<op::multiply, ir::put_rule::multiply>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V, detail::mode_tag M>
void multiply_at(const array<T>& x, I&& indices, V&& values, M) {
  detail::ufunc_at<op::multiply, ir::put_rule::multiply, detail::mode_of_tag<std::remove_cvref_t<M>>::value>(
      x, std::forward<I>(indices), std::forward<V>(values));
}
// numpy.minimum.at / numpy.maximum.at (NaN propagates, as numpy's minimum / maximum).
template <class T, class I, class V>
void minimum_at(const array<T>& x, I&& indices, V&& values) {
  detail::ufunc_at<op::minimum, ir::put_rule::minimum>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V, detail::mode_tag M>
void minimum_at(const array<T>& x, I&& indices, V&& values, M) {
  detail::ufunc_at<op::minimum, ir::put_rule::minimum, detail::mode_of_tag<std::remove_cvref_t<M>>::value>(
      x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V>
void maximum_at(const array<T>& x, I&& indices, V&& values) {
  detail::ufunc_at<op::maximum, ir::put_rule::maximum>(x, std::forward<I>(indices), std::forward<V>(values));
}
template <class T, class I, class V, detail::mode_tag M>
void maximum_at(const array<T>& x, I&& indices, V&& values, M) {
  detail::ufunc_at<op::maximum, ir::put_rule::maximum, detail::mode_of_tag<std::remove_cvref_t<M>>::value>(
      x, std::forward<I>(indices), std::forward<V>(values));
}

// What jf::put and jf::add_at would run on jf::cuda for these arrays' shapes and layouts, whatever
// their backend (the IR, the plan, the kernel's shape and launch, its source). Runs and compiles
// nothing; x is not written.
template <class T, class I, class V>
std::string explain_put(const array<T>& x, I&& indices, V&& values) {
  std::string s;
  detail::put_values<ir::gather_mode::raise>(x, std::forward<I>(indices), std::forward<V>(values), &s);
  return s;
}
template <class T, class I, class V>
std::string explain_add_at(const array<T>& x, I&& indices, V&& values) {
  std::string s;
  detail::ufunc_at<op::add, ir::put_rule::add>(x, std::forward<I>(indices), std::forward<V>(values), &s);
  return s;
}

namespace detail {

// What the assignable index expressions share (x(indices), x(i, j) below, x(..., indices) of
// expr/mixed_indexing.hpp): each reads as its gather node `Node` and takes `x(...) = v`, which
// Derived::assign runs (a scatter); Derived adds its copy assignment (x(p) = y(q) assigns y(q)'s
// values, not the expression) and the compound assignments (JF_INDEXED_COMPOUND_ASSIGNMENTS).
template <class Derived, class Node>
class assignable_index : public Node {
 public:
  using node_type = Node;
  explicit assignable_index(Node n) : Node(std::move(n)) {}
  assignable_index(const assignable_index&) = default;
  assignable_index(assignable_index&&) noexcept = default;
  // Derived's own copy assignment is the one that runs (no implicit move assignment here to
  // compete with it once Derived brings these operators in).
  const assignable_index& operator=(const assignable_index&) const = delete;

  template <class V>
    requires(!std::is_same_v<std::remove_cvref_t<V>, Derived>)
  const Derived& operator=(V&& v) const {
    if constexpr (!operand<V>) {
      static_assert(operand<V>, JF_UNSUPPORTED_OPERAND_MESSAGE);
      return self();
    } else {
      return self().assign(std::forward<V>(v));
    }
  }

  // What `x(...) = v` would run on jf::cuda; writes nothing (x(jf::all, i) = expression evaluates
  // the expression to describe it).
  template <class V>
  std::string explain_assignment(V&& v) const {
    std::string s;
    self().assign(std::forward<V>(v), &s);
    return s;
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace detail

// What x(indices) gives for integer indices: numpy's x[indices] along the first axis. It reads as
// jf::take(x, indices, 0), a lazy gather every expression accepts, and takes assignments:
//   x(indices) = v    numpy's x[indices] = v: v broadcast to indices.shape + x.shape[1:] and cast
//                     to x's dtype; of duplicate indices the last one wins
//   x(indices) += v   numpy's x[indices] += v, i.e. x[indices] = x[indices] + v: buffered, so a
//                     duplicate index adds once (the last one's value), unlike jf::add_at
// (Msg >= 0: x is a view of the indexed array with the indexed axis first, and numpy's IndexError
// names that array's axis Msg: expr/mixed_indexing.hpp.)
template <class T, class I, int Msg>
class indexed
    : public detail::assignable_index<
          indexed<T, I, Msg>, call_node<take_fn<ir::gather_mode::raise, Msg>, term<array<T>>, I, term<std::int64_t>>> {
  using base =
      detail::assignable_index<indexed<T, I, Msg>,
                               call_node<take_fn<ir::gather_mode::raise, Msg>, term<array<T>>, I, term<std::int64_t>>>;
  friend base;

 public:
  using base::base;
  using typename base::node_type;
  indexed(const indexed&) = default;
  indexed(indexed&&) noexcept = default;
  using base::operator=;
  // x(p) = y(q): assigns the values (not the expression).
  const indexed& operator=(const indexed& v) const { return assign(static_cast<const node_type&>(v)); }
  JF_INDEXED_COMPOUND_ASSIGNMENTS(indexed, "x(indices)")

 private:
  template <class V>
  const indexed& assign(V&& v, std::string* explained = nullptr) const {
    const array<T>& x = this->elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    detail::scatter_into<detail::scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(
        x, this->elements[hana::llong_c<2>], capture(std::forward<V>(v)), explained, Msg < 0 ? 0 : Msg);
    return *this;
  }
};

// x(indices) is an operand like the take node it derives from (captured as that node).
template <class T, class I, int Msg>
struct is_lazy_expr<indexed<T, I, Msg>> : std::true_type {};
template <class T, class I, int Msg>
struct node_of<indexed<T, I, Msg>> {
  using type = typename indexed<T, I, Msg>::node_type;
};

namespace detail {

// x viewed with its first two axes merged into one of n0 * n1 elements (a view when their strides
// allow it: src/core/index_pair.cpp), or a null handle.
array_base merged_leading_axes(const array_base& x);
// x viewed with its axes first .. first + count - 1 merged into one (a view when their strides
// allow it), or a null handle.
array_base merged_axes(const array_base& x, int first, int count);

// x(i, j) = v: numpy's x[i, j] = v as a scatter along the first axis of x with axes 0 and 1 merged,
// at positions i * n1 + j checked along each axis (i's failures first). An x whose two axes do not
// merge as a view is scattered in a contiguous copy written back. Indices computed by a reduction
// are evaluated first (numpy evaluates the operands before it assigns).
template <int AI, int AJ, class T, class I, class J, class V>
void scatter_through_pair(const array<T>& x, const I& i, const J& j, const V& values, std::string* explained) {
  if constexpr (leaf_counts<I>::reductions > 0) {
    const array<cpp_type_t<type_of_v<I>.type>> evaluated(i);
    scatter_through_pair<AI, AJ>(x, capture(evaluated), j, values, explained);
  } else if constexpr (leaf_counts<J>::reductions > 0) {
    const array<cpp_type_t<type_of_v<J>.type>> evaluated(j);
    scatter_through_pair<AI, AJ>(x, i, capture(evaluated), values, explained);
  } else {
    require_writable(x);
    if (x.shape()[0] == 0 || x.shape()[1] == 0) return raise_for_empty_axis(x, i, j, AI, AJ);  // nothing to write
    using N = term<std::int64_t>;
    using F = pair_position_fn<AI, AJ>;
    using P = call_node<F, I, J, N, N>;
    const P positions{hana::tuple<term<F>, I, J, N, N>(term<F>{hana::tuple<F>(F{})}, i, j,
                                                       N{hana::tuple<std::int64_t>(x.shape()[0])},
                                                       N{hana::tuple<std::int64_t>(x.shape()[1])})};
    const array_base merged = merged_leading_axes(x);
    if (!merged.is_null()) {
      scatter_into<scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(merged, positions,
                                                                                                   values, explained);
      return;
    }
    const array<T> copy = x.copy();  // numpy's WRITEBACKIFCOPY
    scatter_into<scatter_kind::setitem, ir::put_rule::store, ir::gather_mode::raise, dtype_v<T>>(
        merged_leading_axes(copy), positions, values, explained);
    if (!explained) assign(x, copy);
  }
}

}  // namespace detail

// What x(i, j) gives for integer index arrays or expressions: numpy's x[i, j], a lazy gather every
// expression accepts (expr/take.hpp), which takes assignments:
//   x(i, j) = v    numpy's x[i, j] = v: v broadcast to the indices' broadcast shape + x.shape[2:]
//                  and cast to x's dtype; of duplicate (i, j) pairs the last one wins
//   x(i, j) += v   numpy's x[i, j] = x[i, j] + v (buffered: a duplicate pair adds once)
// An index out of range raises jf::index_error with numpy's message (i's before j's) and leaves x
// untouched.
template <class T, class I, class J, int AI, int AJ>
class indexed_pair
    : public detail::assignable_index<indexed_pair<T, I, J, AI, AJ>,
                                      call_node<index_pair_fn<AI, AJ>, term<array<T>>, I, J, term<std::int64_t>>> {
  using base = detail::assignable_index<indexed_pair<T, I, J, AI, AJ>,
                                        call_node<index_pair_fn<AI, AJ>, term<array<T>>, I, J, term<std::int64_t>>>;
  friend base;

 public:
  using base::base;
  using typename base::node_type;
  indexed_pair(const indexed_pair&) = default;
  indexed_pair(indexed_pair&&) noexcept = default;
  using base::operator=;
  // x(p) = y(q): assigns the values (not the expression).
  const indexed_pair& operator=(const indexed_pair& v) const { return assign(static_cast<const node_type&>(v)); }
  JF_INDEXED_COMPOUND_ASSIGNMENTS(indexed_pair, "x(i, j)")

 private:
  template <class V>
  const indexed_pair& assign(V&& v, std::string* explained = nullptr) const {
    const array<T>& x = this->elements[hana::llong_c<1>].elements[hana::llong_c<0>];
    detail::scatter_through_pair<AI, AJ>(x, this->elements[hana::llong_c<2>], this->elements[hana::llong_c<3>],
                                         capture(std::forward<V>(v)), explained);
    return *this;
  }
};

template <class T, class I, class J, int AI, int AJ>
struct is_lazy_expr<indexed_pair<T, I, J, AI, AJ>> : std::true_type {};
template <class T, class I, class J, int AI, int AJ>
struct node_of<indexed_pair<T, I, J, AI, AJ>> {
  using type = typename indexed_pair<T, I, J, AI, AJ>::node_type;
};

}  // namespace jf
