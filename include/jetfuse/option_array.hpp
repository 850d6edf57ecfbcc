// jf::option_array<T>: Awkward's option type over a dense array, `n * ?float32` (1-d) or
// `n * k * ?float32` (n-d: a regular array of options): values and a validity mask of the same
// shape, both ordinary jetfuse arrays on one backend. An element is None where its validity is
// false (its value is then unspecified: the reduction's identity, say). What per-list min, max,
// argmin and argmax of a jagged array return (None for empty lists; (n, 1) with jf::keepdims), and
// jf::pad_none(x, k, true) (n lists of k, None past each list's end).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/expr/value_kind.hpp"

namespace jf {

template <class T>
class option_array {
  static_assert(is_element_v<T>,
                "jf::option_array<T>: T must be bool, (u)int8_t, (u)int16_t, (u)int32_t, (u)int64_t, float or double");

 public:
  using value_type = T;

  option_array() = default;
  // Shares both arrays (no copy): at least 1-d, one shape, one backend.
  option_array(array<T> values, array<bool> valid) : values_(std::move(values)), valid_(std::move(valid)) {
    if (values_.is_null() || valid_.is_null()) throw value_error("jetfuse: jf::option_array of a null array handle");
    if (values_.ndim() < 1 || !(values_.shape() == valid_.shape()))
      throw shape_error("jetfuse: jf::option_array needs values and validity of one shape (at least 1-d), not " +
                        to_string(values_.shape()) + " and " + to_string(valid_.shape()));
    if (!(values_.device() == valid_.device()))
      throw backend_mismatch("jetfuse: jf::option_array's values and validity are on different backends");
  }

  // Evaluates a per-list reduction that may be None (jf::max(x * 2, -1)); defined in jagged.hpp.
  template <class E>
    requires(is_lazy_expr<std::remove_cvref_t<E>>::value && detail::value_kind_v<E> == detail::value_kind::option)
  option_array(const E& e);  // NOLINT(google-explicit-constructor)

  const array<T>& values() const { return values_; }
  const array<bool>& valid() const { return valid_; }
  std::int64_t size() const { return values_.size(); }  // every element (numpy's size)
  int ndim() const { return values_.ndim(); }
  const shape_t& shape() const { return values_.shape(); }
  device backend() const { return values_.device(); }

  // The elements in C order, std::nullopt where one is None.
  std::vector<std::optional<T>> to_vector() const {
    const std::vector<T> v = values_.to_vector();
    const std::vector<bool> ok = valid_.to_vector();
    std::vector<std::optional<T>> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
      if (ok[i]) out[i] = v[i];
    return out;
  }

 private:
  array<T> values_;
  array<bool> valid_;
};

template <class T>
device backend(const option_array<T>& x) {
  return x.backend();
}

}  // namespace jf
