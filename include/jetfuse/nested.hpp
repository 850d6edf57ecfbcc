// jf::jagged<jf::jagged<T>>: lists of lists, Awkward's ListOffsetArray over a ListOffsetArray
// (`3 * var * var * float64`). Outer int64 offsets (n + 1, not necessarily from 0) index the inner
// lists, a jf::jagged<T> (or, deeper, a nested array again). Construction (nested vectors, outer
// offsets + inner jagged with Awkward's checks, jf::unflatten of a jagged array), num at every
// axis, flatten at axis 1 and 2, ravel, zero-copy slicing of the outer lists, x(all, k); the
// expression front end reads the innermost content (expr/jagged_expr.hpp). Included at the end of
// jagged.hpp; docs/design.md, "Nested lists".
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/detail/jagged_access.hpp"
#include "jetfuse/jagged.hpp"

namespace jf {

namespace detail {
// How many `var` dimensions: 1 for jagged<T>, 2 for jagged<jagged<T>>, ...
template <class T> struct list_depth : std::integral_constant<int, 0> {};
template <class T> struct list_depth<jagged<T>> : std::integral_constant<int, 1 + list_depth<T>::value> {};
}  // namespace detail

template <class U>
class jagged<jagged<U>> {
 public:
  using inner_type = jagged<U>;
  using value_type = typename inner_type::value_type;  // the innermost element type
  using list_vector = std::vector<typename inner_type::list_vector>;
  static constexpr int depth = detail::list_depth<jagged>::value;  // the number of var dimensions

  // Zero lists on jf::cpu.
  jagged() : jagged(list_vector{}) {}
  // Copies nested vectors: list i is lists[i] (itself a list of lists).
  explicit jagged(const list_vector& lists, device dev = cpu) {
    std::vector<std::int64_t> sizes;
    sizes.reserve(lists.size());
    typename inner_type::list_vector all;
    for (const auto& l : lists) {
      sizes.push_back(static_cast<std::int64_t>(l.size()));
      all.insert(all.end(), l.begin(), l.end());
    }
    offsets_ = array<std::int64_t>(detail::offsets_of_sizes(sizes, dev));
    content_ = inner_type(all, dev);
    used_ = content_.offsets();  // every inner list is used
  }
  // Shares both (no copy) after Awkward's validity check of the outer offsets against the number
  // of inner lists (the offsets read back once).
  jagged(array<std::int64_t> offsets, inner_type content) : offsets_(std::move(offsets)), content_(std::move(content)) {
    detail::check_nested(offsets_, content_.size(), content_.backend());
    used_ = array<std::int64_t>(detail::used_lists(offsets_, content_.offsets()));
  }
  // int32 outer offsets are converted to int64 on their backend (one fused cast).
  jagged(const array<std::int32_t>& offsets, inner_type content)
      : jagged(offsets.is_null() ? array<std::int64_t>() : array<std::int64_t>(astype<std::int64_t>(offsets)),
               std::move(content)) {}
  // An element-wise expression over nested arrays (`jf::sqrt(x) * 2`): one loop nest over the
  // innermost elements; the result has the operand's lists (its outer offsets shared when the
  // inner lists in use start at the first).
  template <class E>
    requires(is_lazy_expr<std::remove_cvref_t<E>>::value && detail::value_kind_v<E> == detail::value_kind::nested)
  jagged(const E& e) {  // NOLINT(google-explicit-constructor): jf::jagged<jf::jagged<float>> y = x * 2;
    array_base content, inner_offsets, outer;
    detail::evaluate_lists_into<typename node_of<E>::type>(content, dtype_v<value_type>, &inner_offsets, nullptr,
                                                           detail::eval_options{}, e, &outer);
    offsets_ = array<std::int64_t>(outer);
    content_ = detail::jagged_access::make(array<std::int64_t>(inner_offsets), array<value_type>(content));
    used_ = content_.offsets();
  }

  const array<std::int64_t>& offsets() const { return offsets_; }  // into the inner lists
  const array_base& stored_offsets() const { return offsets_; }     // as jagged<T>'s (always int64 here)
  const inner_type& content() const { return content_; }           // the inner lists (all of them)
  // The inner offsets of the inner lists in use, inner.offsets()[offsets[0] : offsets[n] + 1], a
  // view (what an expression reads).
  const array<std::int64_t>& used_offsets() const { return used_; }
  std::int64_t size() const { return offsets_.size() - 1; }  // the number of outer lists
  device backend() const { return content_.backend(); }

  list_vector to_vector() const {
    const std::vector<std::int64_t> off = detail::host_offsets(offsets_);
    list_vector out;
    if (off.size() <= 1) return out;
    const auto inner = content_(range(off.front(), off.back())).to_vector();
    out.reserve(off.size() - 1);
    for (std::size_t i = 0; i + 1 < off.size(); ++i)
      out.emplace_back(inner.begin() + (off[i] - off[0]), inner.begin() + (off[i + 1] - off[0]));
    return out;
  }

  // Awkward's x[start:stop] (step 1): a view of the outer offsets, the inner lists shared; reads
  // the slice's two bounding offsets once (for the inner lists it uses).
  jagged operator()(range r) const {
    return jagged(trusted{}, array<std::int64_t>(detail::slice_offsets(offsets_, r)), content_);
  }
  // Awkward's x[:, k]: inner list k of every outer list (from the end when k < 0), gathered;
  // jf::index_error when an outer list is too short.
  inner_type operator()(all_t, std::int64_t k) const {
    const array<std::int64_t> counts(offsets_(range(1, none)) - offsets_(range(none, -1)));
    const std::int64_t need = k >= 0 ? k + 1 : -k;
    if (size() > 0 && min(counts).item() < need) detail::throw_list_index(size(), k);
    if (k >= 0) return content_(array<std::int64_t>(offsets_(range(none, -1)) + k));
    return content_(array<std::int64_t>(offsets_(range(1, none)) + k));
  }

 private:
  friend struct detail::jagged_access;
  struct trusted {};
  // Offsets valid by construction (computed or sliced by jetfuse).
  jagged(trusted, array<std::int64_t> offsets, inner_type content)
      : offsets_(std::move(offsets)), content_(std::move(content)),
        used_(detail::used_lists(offsets_, content_.offsets())) {}

  array<std::int64_t> offsets_;
  inner_type content_;
  array<std::int64_t> used_;
};

namespace detail {
template <class U>
jagged<jagged<U>> jagged_access::make_nested(array<std::int64_t> offsets, jagged<U> content) {
  return jagged<jagged<U>>(typename jagged<jagged<U>>::trusted{}, std::move(offsets), std::move(content));
}
}  // namespace detail

// jf::eval over nested arrays: a nested array (element-wise), a jf::jagged<T> (per-inner-list sum,
// prod, mean, ...: Awkward's `n * var * T`); min, max, argmin, argmax give a jf::jagged_option<T>
// (jagged_option.hpp).
template <class E>
  requires(lazy_operand<E> && detail::value_kind_v<E> == detail::value_kind::nested)
auto eval(const E& e) {
  return jagged<jagged<value_type_t<capture_t<const E&>>>>(capture(e));
}
template <class E>
  requires(lazy_operand<E> && detail::value_kind_v<E> == detail::value_kind::nested_lists)
auto eval(const E& e) {
  return jagged<value_type_t<capture_t<const E&>>>(capture(e));
}

// ak.num(x, axis) of a nested array: axis 0 the number of lists (a 0-d host array, as for
// jf::jagged), axis 1 (-2) the length of every outer list (an int64 array), axis 2 (-1) the
// length of every inner list as jagged int64 lists of the outer lists. C++ needs one return
// type for a run-time axis: jf::nested_counts converts to the one the axis gives.
class nested_counts {
 public:
  nested_counts(array<std::int64_t> dense) : dense_(std::move(dense)) {}  // NOLINT: axis 0 or 1
  nested_counts(jagged<std::int64_t> lists) : lists_(std::move(lists)), is_jagged_(true) {}  // NOLINT: axis 2
  bool is_jagged() const { return is_jagged_; }
  operator array<std::int64_t>() const {  // NOLINT(google-explicit-constructor)
    if (is_jagged_) throw value_error("jf::num of a nested array at axis 2 (-1) gives jagged counts: a jf::jagged<int64_t>");
    return dense_;
  }
  operator jagged<std::int64_t>() const {  // NOLINT(google-explicit-constructor)
    if (!is_jagged_) throw value_error("jf::num of a nested array at axis 0 or 1 gives a jf::array<int64_t>");
    return lists_;
  }

 private:
  array<std::int64_t> dense_;
  jagged<std::int64_t> lists_;
  bool is_jagged_ = false;
};

template <class T>
nested_counts num(const jagged<jagged<T>>& x, int axis = 1) {
  constexpr int depth = jagged<jagged<T>>::depth + 1;
  const int ax = axis < 0 ? axis + depth : axis;
  if (ax == 0) return array<std::int64_t>(std::vector<std::int64_t>{x.size()}, shape_t{});
  const array<std::int64_t>& off = x.offsets();
  if (ax == 1) return array<std::int64_t>(off(range(1, none)) - off(range(none, -1)));
  if constexpr (depth == 3) {
    if (ax == 2) {
      const array<std::int64_t>& in = x.content().offsets();
      return detail::jagged_access::make(off, array<std::int64_t>(in(range(1, none)) - in(range(none, -1))));
    }
  }
  detail::throw_num_axis(axis, depth);
}

// ak.flatten(x, axis) of a nested array: axis 1 (-2) the inner lists of every outer list, in
// order (a view: the inner offsets in use, the content shared); axis 2 (-1) every outer list's
// inner lists joined (one gather of n + 1 offsets, the content shared).
template <class T>
jagged<T> flatten(const jagged<jagged<T>>& x, int axis = 1) {
  constexpr int depth = jagged<jagged<T>>::depth + 1;
  const int ax = axis < 0 ? axis + depth : axis;
  if (ax == 1) {
    const auto [first, last] = detail::offsets_range(x.offsets());
    return x.content()(range(first, last));
  }
  if constexpr (depth == 3) {
    if (ax == 2)
      return detail::jagged_access::make(array<std::int64_t>(take(x.content().offsets(), x.offsets())),
                                         x.content().content());
  }
  if (ax == 0) throw value_error("jf::flatten of a nested array: axis=0 (no option types: x itself) is not supported");
  throw axis_error("axis=" + std::to_string(axis) + " exceeds the depth of this array (" + std::to_string(depth) +
                   ")");  // Awkward's words
}

// ak.ravel(x) (ak.flatten(x, axis=None)): every innermost element in order, a view of the content.
template <class T>
array<T> ravel(const jagged<jagged<T>>& x) {
  return array<T>(detail::flatten_content(x.used_offsets(), x.content().content()));
}

// ak.unflatten(x, counts) of a jagged array: outer lists of counts[i] consecutive inner lists
// (the sum must be len(x)); the inner lists are shared.
template <class T, class C>
jagged<jagged<T>> unflatten(const jagged<T>& content, const array<C>& counts) {
  detail::check_unflatten(content.offsets()(range(1, none)), counts);
  return detail::jagged_access::make_nested(detail::offsets_of_counts(counts, content.backend(), content.size()), content);
}

// Awkward's type string: "5 * var * var * float64".
template <class T>
std::string type_string(const jagged<jagged<T>>& x) {
  using X = jagged<jagged<T>>;
  return detail::jagged_type_string(x.size(), dtype_v<typename X::value_type>, X::depth);
}

}  // namespace jf
