// Awkward's functions of an option type on jf::option_array<T>: ak.is_none (where the element is
// None) and ak.fill_none (None replaced by a value: one fused where over values and validity).
#pragma once

#include "jetfuse/expr/functions.hpp"
#include "jetfuse/expr/operators.hpp"
#include "jetfuse/option_array.hpp"

namespace jf {

// ak.is_none(x): true where x is None, a bool array on x's backend.
template <class T>
array<bool> is_none(const option_array<T>& x) {
  return array<bool>(x.valid() == false);
}

// ak.fill_none(x, value): x's values with `value` (converted to T) where x is None.
template <class T, class V>
array<T> fill_none(const option_array<T>& x, V value) {
  static_assert(std::is_arithmetic_v<V>, "jf::fill_none: the value must be a number or bool");
  return array<T>(where(x.valid(), x.values(), static_cast<T>(value)));
}

}  // namespace jf
