// jf::jagged_option<T>: Awkward's `n * var * ?T`, lists whose elements may be None — what
// jf::pad_none(x, k) (clip=false) returns. The lists' values are a jf::jagged<T>; the validity is a
// bool array beside its content (one entry per content element, the same positions). An element is
// None where its validity is false (its value is then unspecified).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "jetfuse/detail/jagged_access.hpp"
#include "jetfuse/jagged.hpp"

namespace jf {

template <class T>
class jagged_option {
 public:
  using value_type = T;

  jagged_option() = default;
  // Shares both (no copy): `valid` is 1-d with one entry per element of values.content(), on its backend.
  jagged_option(jagged<T> values, array<bool> valid) : values_(std::move(values)), valid_(std::move(valid)) {
    if (valid_.is_null()) throw value_error("jetfuse: jf::jagged_option of a null validity handle");
    if (valid_.ndim() != 1 || valid_.size() != values_.content().size())
      throw shape_error("jetfuse: jf::jagged_option needs one validity entry per content element, not " +
                        to_string(valid_.shape()) + " for " + to_string(values_.content().shape()));
    if (!(valid_.device() == values_.backend()))
      throw backend_mismatch("jetfuse: jf::jagged_option's values and validity are on different backends");
  }

  // A per-inner-list min, max, argmin, argmax of a nested array (jf::max(x, -1) of a
  // jf::jagged<jf::jagged<T>>): None for an empty inner list (Awkward's `n * var * ?T`).
  template <class E>
    requires(is_lazy_expr<std::remove_cvref_t<E>>::value && detail::value_kind_v<E> == detail::value_kind::nested_option)
  jagged_option(const E& e) {  // NOLINT(google-explicit-constructor)
    array_base values, valid, outer;
    detail::evaluate_lists_into<typename node_of<E>::type>(values, dtype_v<T>, nullptr, &valid, detail::eval_options{}, e,
                                                           &outer);
    values_ = detail::jagged_access::make(array<std::int64_t>(outer), array<T>(values));
    valid_ = array<bool>(valid);
  }

  const jagged<T>& values() const { return values_; }
  const array<bool>& valid() const { return valid_; }  // beside values().content()
  const array<std::int64_t>& offsets() const { return values_.offsets(); }
  std::int64_t size() const { return values_.size(); }  // the number of lists
  device backend() const { return values_.backend(); }

  // The lists, std::nullopt where an element is None.
  std::vector<std::vector<std::optional<T>>> to_vector() const {
    const std::vector<std::vector<T>> v = values_.to_vector();
    const std::vector<std::vector<bool>> ok = jagged<bool>(detail::jagged_access::make(offsets(), valid_)).to_vector();
    std::vector<std::vector<std::optional<T>>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t k = 0; k < v[i].size(); ++k)
        out[i].push_back(ok[i][k] ? std::optional<T>(v[i][k]) : std::nullopt);
    return out;
  }

 private:
  jagged<T> values_;
  array<bool> valid_ = array<bool>(std::vector<bool>{});
};

// jf::eval of a per-inner-list reduction of a nested array that may be None (jf::max(x, -1)).
template <class E>
  requires(lazy_operand<E> && detail::value_kind_v<E> == detail::value_kind::nested_option)
auto eval(const E& e) {
  return jagged_option<value_type_t<capture_t<const E&>>>(capture(e));
}

template <class T>
device backend(const jagged_option<T>& x) {
  return x.backend();
}

// ak.is_none(x, axis=-1): true where an element is None, lists sharing x's offsets.
template <class T>
jagged<bool> is_none(const jagged_option<T>& x) {
  return detail::jagged_access::make(x.offsets(), array<bool>(x.valid() == false));
}

// ak.fill_none(x, value): the lists with `value` (converted to T) where an element is None; one
// fused where over the content, the offsets shared.
template <class T, class V>
jagged<T> fill_none(const jagged_option<T>& x, V value) {
  static_assert(std::is_arithmetic_v<V>, "jf::fill_none: the value must be a number or bool");
  return detail::jagged_access::make(x.offsets(),
                                     array<T>(where(x.valid(), x.values().content(), static_cast<T>(value))));
}

}  // namespace jf
