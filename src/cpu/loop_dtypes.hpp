// Which dtypes the CPU executor instantiates each operation's loop for (elementwise_kernels.cpp,
// and the combining puts of executor_kernels.cpp): those whose arguments are already its compute
// dtype. The element function itself is detail::op_fn (jetfuse/detail/op_function.hpp).
#pragma once

#include "jetfuse/detail/op_function.hpp"
#include "jetfuse/dtype.hpp"
#include "jetfuse/ops.hpp"

namespace jf::cpu_exec {

template <op O, class T>
constexpr bool defined_for() {
  constexpr op_rule r = info(O).rule;
  if constexpr (r == op_rule::select)
    return true;
  else
    return accepts(r, dtype_v<T>) && compute_dtype(r, dtype_v<T>) == dtype_v<T>;
}

}  // namespace jf::cpu_exec
