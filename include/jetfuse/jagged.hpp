// jf::jagged<T>: a list of variable-length lists, Awkward Array's ListOffsetArray — int64 offsets
// (n + 1 entries, non-decreasing, not necessarily starting at 0) into a dense 1-d content array,
// both ordinary jetfuse arrays on one backend. List i is content[offsets[i]:offsets[i + 1]].
// This first step holds the layout, its construction and validation, the structure functions
// (num, flatten, unflatten, event slicing) and Awkward's type string; see docs/design.md.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/jagged_layout.hpp"
#include "jetfuse/eval.hpp"
#include "jetfuse/expr/functions.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/expr/reductions.hpp"
#include "jetfuse/expr/jagged_expr.hpp"
#include "jetfuse/expr/scans.hpp"
#include "jetfuse/option_array.hpp"

namespace jf {

namespace detail {
// int32 offsets widened to int64 once, when first asked for, shared by the copies of a jf::jagged.
struct widened_offsets {
  std::once_flag once;
  array<std::int64_t> offsets;
};
struct jagged_access;  // builds jagged arrays whose offsets are valid by construction (jagged_access.hpp)
// x(mask) of a jagged value, materialised (expr/jagged_mask.hpp).
template <class E> struct is_selection : std::false_type {};
template <class T, class E> jagged<T> materialise_selection(const E& e);
// An expression of combination fields outside every reduction, materialised (combinations_materialised.hpp).
template <class E> struct pairs_at_root : std::false_type {};
template <class T, class E> jagged<T> materialise_combinations(const E& e);
// An expression of cartesian fields outside every reduction, materialised (cartesian_materialised.hpp).
template <class E> struct cartesian_at_root : std::false_type {};
template <class T, class E> jagged<T> materialise_cartesian(const E& e);
// A min, max, argmin or argmax with axis=0 across the lists (jagged_across.hpp).
template <class T, class E> option_array<T> reduce_across_lists_option(const E& e);
template <class T, class E> option_array<T> evaluate_option_operands(const E& e);  // option_operands.hpp
}

template <class T>
class jagged {
  static_assert(is_element_v<T>,
                "jf::jagged<T>: T must be bool, (u)int8_t, (u)int16_t, (u)int32_t, (u)int64_t, float or double");

 public:
  using value_type = T;
  using list_vector = std::vector<std::vector<T>>;  // what to_vector() gives

  // Zero lists on jf::cpu (offsets [0], empty content).
  jagged() : jagged(std::vector<std::vector<T>>{}) {}
  // Copies nested vectors: list i is lists[i].
  explicit jagged(const std::vector<std::vector<T>>& lists, device dev = cpu) {
    std::vector<std::int64_t> sizes;
    sizes.reserve(lists.size());
    std::vector<T> flat;
    for (const auto& l : lists) {
      sizes.push_back(static_cast<std::int64_t>(l.size()));
      flat.insert(flat.end(), l.begin(), l.end());
    }
    offsets_ = array<std::int64_t>(detail::offsets_of_sizes(sizes, dev));
    content_ = array<T>(flat, dev);
  }
  // Shares the given arrays (no copy) after checking them as Awkward's validity check does.
  jagged(array<std::int64_t> offsets, array<T> content) : offsets_(std::move(offsets)), content_(std::move(content)) {
    detail::check_jagged(offsets_, content_);
  }
  // Evaluates an expression over jagged arrays, element-wise (`x * 2 + met`): one loop nest over the
  // lists' elements; the result has the operands' list lengths (it shares the first jagged
  // operand's offsets when they start at 0).
  template <class E>
    requires(is_lazy_expr<std::remove_cvref_t<E>>::value && detail::value_kind_v<E> == detail::value_kind::jagged)
  jagged(const E& e) {  // NOLINT(google-explicit-constructor): jf::jagged<float> y = x * 2;
    static_assert(!detail::has_option_leaf_v<E>,
                  "jetfuse: a jf::option_array beside jagged operands is not supported yet (Awkward broadcasts a "
                  "None per-list value as a None list); use jf::fill_none first");
    if constexpr (detail::is_selection<typename node_of<std::remove_cvref_t<E>>::type>::value) {
      *this = detail::materialise_selection<T>(e);  // y = x(x > 20): the selected elements
      return;
    } else if constexpr (detail::cartesian_at_root<typename node_of<std::remove_cvref_t<E>>::type>::value) {
      *this = detail::materialise_cartesian<T>(e);  // every pair's value
      return;
    } else if constexpr (detail::pairs_at_root<typename node_of<std::remove_cvref_t<E>>::type>::value) {
      *this = detail::materialise_combinations<T>(e);  // every pair's value
      return;
    }
    array_base content, offsets;
    detail::evaluate_lists_into<typename node_of<E>::type>(content, dtype_v<T>, &offsets, nullptr, detail::eval_options{}, e);
    set_offsets(std::move(offsets));  // the first operand's (int64 or int32), or new int64 ones
    content_ = array<T>(content);
  }
  // A per-inner-list reduction of a nested array (jf::sum(x, -1) of a jf::jagged<jf::jagged<T>>):
  // one value per inner list, in the outer lists (Awkward's `n * var * T`).
  template <class E>
    requires(is_lazy_expr<std::remove_cvref_t<E>>::value && detail::value_kind_v<E> == detail::value_kind::nested_lists)
  jagged(const E& e) {  // NOLINT(google-explicit-constructor)
    array_base values, outer;
    detail::evaluate_lists_into<typename node_of<E>::type>(values, dtype_v<T>, nullptr, nullptr, detail::eval_options{}, e,
                                                           &outer);
    set_offsets(std::move(outer));
    content_ = array<T>(values);
  }
  // int32 offsets (Awkward's Index32) are shared without a copy, as int64 ones: expressions over
  // the lists read them as they are (the kernels are compiled for int32 offsets); offsets() widens
  // them to int64 on their backend once, when first asked for (structure functions, printing).
  jagged(array<std::int32_t> offsets, array<T> content) : content_(std::move(content)) {
    detail::check_jagged(offsets, content_);
    set_offsets(std::move(offsets));
  }

  // The offsets as int64 (int32 offsets: widened once, shared by the copies of this array).
  const array<std::int64_t>& offsets() const {
    if (narrow_.is_null()) return offsets_;
    std::call_once(wide_->once, [this] {
      wide_->offsets = array<std::int64_t>(astype<std::int64_t>(narrow_));
      detail::remember_widened_offsets(wide_->offsets, narrow_);
    });
    return wide_->offsets;
  }
  // The offsets as stored: int64, or the int32 array they were given as (what kernels read).
  const array_base& stored_offsets() const { return narrow_.is_null() ? static_cast<const array_base&>(offsets_) : narrow_; }
  const array<T>& content() const { return content_; }
  std::int64_t size() const { return stored_offsets().size() - 1; }  // the number of lists
  device backend() const { return content_.device(); }

  std::vector<std::vector<T>> to_vector() const {
    const std::vector<std::int64_t> off = detail::host_offsets(stored_offsets());
    const std::vector<T> flat = array<T>(detail::flatten_content(stored_offsets(), content_)).to_vector();
    std::vector<std::vector<T>> out;
    out.reserve(static_cast<std::size_t>(size()));
    for (std::size_t i = 0; i + 1 < off.size(); ++i)
      out.emplace_back(flat.begin() + (off[i] - off[0]), flat.begin() + (off[i + 1] - off[0]));
    return out;
  }

  // Awkward's x[start:stop]: the lists in [start, stop) with Python's negative and clipped bounds,
  // zero copy (a view of the offsets; the content is shared). Only step 1.
  jagged operator()(range r) const {
    jagged out(trusted{}, array<std::int64_t>(), content_);
    out.set_offsets(detail::slice_offsets(stored_offsets(), r));  // (int32 offsets stay int32)
    return out;
  }

  // Structure (defined in jagged_structure.hpp): Awkward's x[:, k] (element k of every list, from
  // the end when negative; jf::index_error when a list is too short), x[lists] (an integer array
  // of list positions, negative from the end) and x[mask] (a boolean array of one entry per list).
  array<T> operator()(all_t, std::int64_t k) const;
  jagged operator()(const array<std::int64_t>& lists) const;
  jagged operator()(const array<bool>& mask) const;
  // x(m) with a jagged boolean mask (an expression or a jf::jagged<bool> of the same lists): the
  // elements where m holds, consumed by a per-list reduction (expr/jagged_mask.hpp).
  template <class M>
    requires(is_lazy_expr<std::remove_cvref_t<M>>::value || is_jagged_v<M>)
  auto operator()(const M& mask) const -> decltype(select_where(std::declval<const jagged&>(), mask)) {
    return select_where(*this, mask);
  }

 private:
  friend struct detail::jagged_access;
  struct trusted {};
  jagged(trusted, array<std::int64_t> offsets, array<T> content)
      : offsets_(std::move(offsets)), content_(std::move(content)) {}
  void set_offsets(array_base offsets) {
    if (offsets.dtype() == dtype::int32) {
      offsets_ = array<std::int64_t>();
      narrow_ = array<std::int32_t>(std::move(offsets));
      wide_ = std::make_shared<detail::widened_offsets>();
    } else {
      offsets_ = array<std::int64_t>(std::move(offsets));
    }
  }

  array<std::int64_t> offsets_;                     // int64 offsets (null when given as int32)
  array<std::int32_t> narrow_;                      // int32 offsets as given (Awkward's Index32), or null
  std::shared_ptr<detail::widened_offsets> wide_;  // their int64 copy, made when first asked for
  array<T> content_;
};

// Per-list min, max, mean, argmin, argmax (Awkward's mask_identity: None for an empty list).
template <class T>
template <class E>
  requires(is_lazy_expr<std::remove_cvref_t<E>>::value && detail::value_kind_v<E> == detail::value_kind::option)
option_array<T>::option_array(const E& e) {
  if constexpr (detail::has_option_leaf_v<E>) {  // evaluated option operands: None propagates
    *this = detail::evaluate_option_operands<T>(capture(e));
  } else {
    if constexpr (detail::reduction_of_lists<typename node_of<E>::type>::value) {
      if (detail::across_lists(e)) {  // Awkward's axis=0
        *this = detail::reduce_across_lists_option<T>(e);
        return;
      }
    }
    array_base values, valid;
    detail::evaluate_lists_into<typename node_of<E>::type>(values, dtype_v<T>, nullptr, &valid, detail::eval_options{}, e);
    values_ = array<T>(values);
    valid_ = array<bool>(valid);
  }
}

// jf::eval of an expression over jagged arrays: a jf::jagged (element-wise) or a jf::option_array
// (per-list reductions that may be None); other per-list reductions (sum, count, any, ...) give a
// jf::array, as in Awkward.
template <class E>
  requires(lazy_operand<E> && detail::value_kind_v<E> == detail::value_kind::jagged)
auto eval(const E& e) {
  return jagged<value_type_t<capture_t<const E&>>>(capture(e));
}
template <class E>
  requires(lazy_operand<E> && detail::value_kind_v<E> == detail::value_kind::option)
auto eval(const E& e) {
  return option_array<value_type_t<capture_t<const E&>>>(capture(e));
}

template <class T>
device backend(const jagged<T>& x) {
  return x.backend();
}
// Both arrays moved to dev (new contiguous arrays; the offsets keep their values).
template <class T>
jagged<T> to_backend(const jagged<T>& x, device dev) {
  if (x.stored_offsets().dtype() == dtype::int32)
    return jagged<T>(to_backend(array<std::int32_t>(x.stored_offsets()), dev), to_backend(x.content(), dev));
  return jagged<T>(to_backend(x.offsets(), dev), to_backend(x.content(), dev));
}

// ak.num(x, axis): axis 1 (or -1) the length of every list, an int64 array of size() entries,
// computed on x's backend as offsets[1:] - offsets[:-1] (one fused element-wise evaluation of two
// views). axis 0 (or -2) the number of lists, which Awkward gives as an int: here a 0-d int64
// array on the host (item() reads it; x.size() is the same number).
template <class T>
array<std::int64_t> num(const jagged<T>& x, int axis = 1) {
  if (axis == 0 || axis == -2) return array<std::int64_t>(std::vector<std::int64_t>{x.size()}, shape_t{});
  if (axis != 1 && axis != -1) detail::throw_num_axis(axis);
  const array<std::int64_t>& off = x.offsets();
  return array<std::int64_t>(off(range(1, none)) - off(range(none, -1)));
}

// ak.flatten(x) (axis 1): the content of the lists, content[offsets[0]:offsets[n]], a view.
template <class T>
array<T> flatten(const jagged<T>& x) {
  return array<T>(detail::flatten_content(x.offsets(), x.content()));
}

// ak.unflatten(content, counts): lists of counts[i] consecutive elements of content (counts: a
// 1-d integer array; its sum must be len(content), Awkward's ValueError otherwise). The offsets
// are a running sum on the backend; the content is shared.
namespace detail {
// The offsets of lists of `counts` items on dev (a running sum), checked as Awkward checks them:
// no negative count, and `length` items in all. Both unflattens (of arrays and of lists) use it.
template <class C>
array<std::int64_t> offsets_of_counts(const array<C>& counts, device dev, std::int64_t length) {
  static_assert(std::is_integral_v<C> && !std::is_same_v<C, bool>,
                "jf::unflatten: Awkward raises \"counts must be an integer or a one-dimensional array of integers\"");
  array<std::int64_t> offsets = zeros<std::int64_t>(shape_t{counts.size() + 1}, dev);
  std::int64_t total = 0;
  if (counts.size() > 0) {
    const auto c = astype<std::int64_t>(counts);
    auto [lowest, sum_] = eval(min(c), sum(c));
    if (lowest.item() < 0) throw_negative_count(lowest.item());
    total = sum_.item();
    offsets(range(1, none)) = cumsum(c);
  }
  if (total != length) throw_unflatten_mismatch(total, length);
  return offsets;
}
}  // namespace detail

template <class T, class C>
jagged<T> unflatten(const array<T>& content, const array<C>& counts) {
  detail::check_unflatten(content, counts);
  return jagged<T>(detail::offsets_of_counts(counts, content.device(), content.size()), content);
}

// Awkward's type string: "5 * var * float64".
template <class T>
std::string type_string(const jagged<T>& x) {
  return detail::jagged_type_string(x.size(), dtype_v<T>);
}

}  // namespace jf

#include "jetfuse/jagged_structure.hpp"  // NOLINT: the members declared above
#include "jetfuse/jagged_across.hpp"     // NOLINT: reductions across the lists (axis=0)
#include "jetfuse/nested.hpp"            // NOLINT: jagged<jagged<T>>
