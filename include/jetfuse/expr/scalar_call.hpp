// A jetfuse function called on C++ scalars only (jf::floor_divide(-7, 2), jf::sqrt(2)): computed
// at once, with numpy's rules for Python scalars (NEP 50: an integer is int64, a floating-point
// value float64, then the operation's dtype rule) and the element functions of scalar_ops.hpp,
// so the value is the one an array of that dtype would hold: jf::floor_divide(-7, 2) == -4.
#pragma once

#include <cstring>
#include <utility>

#include "jetfuse/detail/op_function.hpp"
#include "jetfuse/expr/walk.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::detail {

template <dtype D>
cpp_type_t<D> from_slot(const scalar_slot& s) {
  cpp_type_t<D> v;
  std::memcpy(&v, &s.bits, sizeof(v));
  return v;
}

// Tag: fn<op::...> or cast_to<dtype>. Throws dtype_error for an integer out of int64's range
// where numpy raises OverflowError; dtypes an operation rejects fail to compile (op_types).
template <class Tag, class... S>
auto scalar_call(S... s) {
  using node = call_node<Tag, capture_t<S>...>;
  using R = value_type_t<node>;
  return [&]<std::size_t... I>(std::index_sequence<I...>)->R {
    scalar_slot slots[sizeof...(S)] = {};
    (convert_scalar<tree<node>::template arg_target<I>()>(capture(s).elements[hana::llong_c<0>],
                                                          tree<node>::template arg_use<I>(), &slots[I]),
     ...);
    if constexpr (is_cast_tag<Tag>::value) {
      return ops::jf_cast<R>(from_slot<tree<node>::template arg_target<I>()>(slots[I])...);
    } else {
      return static_cast<R>(op_fn<Tag::code>{}(from_slot<tree<node>::template arg_target<I>()>(slots[I])...));
    }
  }
  (std::index_sequence_for<S...>{});
}

}  // namespace jf::detail
