// The element function of each operation, op_fn<op::...>{}(a...) = jf::ops::jf_<name>(a...): the
// one the CUDA kernels call, for the host code that computes elements too (scalar_call.hpp, the
// CPU executor's loops). No YAP here: src/ includes it.
#pragma once

#include "jetfuse/ops.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::detail {

template <op O>
struct op_fn;
#define JF_X(code, nm, ar, rl)      \
  template <>                       \
  struct op_fn<op::code> {          \
    template <class... T>           \
    auto operator()(T... a) const { \
      return ops::jf_##code(a...);  \
    }                               \
  };
JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X

}  // namespace jf::detail
