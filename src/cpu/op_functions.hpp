// The scalar function of each element-wise operation (jf::ops, the one the CUDA kernels call) and
// the dtypes it is defined for, for the CPU executor's loops (elementwise_kernels.cpp, and the
// combining puts of executor_kernels.cpp).
#pragma once

#include "jetfuse/dtype.hpp"
#include "jetfuse/ops.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::cpu_exec::op_fn {

template <op O>
struct fn_of;
#define JF_X(code, nm, ar, rl)     \
  template <>                      \
  struct fn_of<op::code> {         \
    template <class... T>          \
    static auto call(T... a) {     \
      return ops::jf_##code(a...); \
    }                              \
  };
JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X

// Whether op O takes arguments of type T (already converted to its compute dtype).
template <op O, class T>
constexpr bool defined_for() {
  constexpr op_rule r = info(O).rule;
  if constexpr (r == op_rule::select)
    return true;
  else
    return accepts(r, dtype_v<T>) && compute_dtype(r, dtype_v<T>) == dtype_v<T>;
}

}  // namespace jf::cpu_exec::op_fn
