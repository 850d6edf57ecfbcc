// The CPU executor's element-wise loops and casts, instantiated once per (operation, dtype) from
// the op table: every element goes through the jf::ops function the CUDA kernels call, so results
// agree bit for bit.
//
// Each loop is compiled for AVX2 and for the baseline (target_clones.hpp). On the 2-core CI machine
// the quadratic formula on 2^24 float64 took 40.5 -> 26.3 ms and a histogram 61 -> 46. They are
// in a file of their own: in executor_kernels.cpp, the clones changed how GCC inlined the per-list
// reductions there (ListMax 27 -> 31 ms).
#include <cstdint>

#include "cpu/executor_kernels.hpp"
#include "cpu/loop_dtypes.hpp"
#include "cpu/target_clones.hpp"

namespace jf::cpu_exec {
namespace {

using detail::op_fn;

template <op O, class T>
JF_CPU_CLONES void elementwise(const void* const* a, void* out, std::int64_t n) {
  constexpr int arity = info(O).arity;
  if constexpr (O == op::where) {
    const bool* __restrict c = static_cast<const bool*>(a[0]);
    const T* __restrict x = static_cast<const T*>(a[1]);
    const T* __restrict y = static_cast<const T*>(a[2]);
    T* __restrict o = static_cast<T*>(out);
    for (std::int64_t i = 0; i < n; ++i) o[i] = ops::jf_where(c[i], x[i], y[i]);
  } else if constexpr (arity == 1) {
    using R = decltype(op_fn<O>{}(T{}));
    const T* __restrict x = static_cast<const T*>(a[0]);
    R* __restrict o = static_cast<R*>(out);
    for (std::int64_t i = 0; i < n; ++i) o[i] = op_fn<O>{}(x[i]);
  } else {
    using R = decltype(op_fn<O>{}(T{}, T{}));
    const T* __restrict x = static_cast<const T*>(a[0]);
    const T* __restrict y = static_cast<const T*>(a[1]);
    R* __restrict o = static_cast<R*>(out);
    for (std::int64_t i = 0; i < n; ++i) o[i] = op_fn<O>{}(x[i], y[i]);
  }
}

template <op O>
elementwise_fn pick(dtype t) {
  return visit_dtype(t, [](auto ti) -> elementwise_fn {
    using T = typename decltype(ti)::type;
    if constexpr (defined_for<O, T>())
      return &elementwise<O, T>;
    else
      return nullptr;
  });
}

template <class To, class From>
JF_CPU_CLONES void cast(const void* const* a, void* out, std::int64_t n) {
  const From* __restrict x = static_cast<const From*>(a[0]);
  To* __restrict o = static_cast<To*>(out);
  for (std::int64_t i = 0; i < n; ++i) o[i] = ops::jf_cast<To>(x[i]);
}

}  // namespace

elementwise_fn find_elementwise(op code, dtype t) {
  switch (code) {
#define JF_X(c, nm, ar, rl) \
  case op::c:               \
    return pick<op::c>(t);
    JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
    default:
      return nullptr;
  }
}

elementwise_fn find_cast(dtype to, dtype from) {
  return visit_dtype(to, [&](auto tt) {
    return visit_dtype(from, [&](auto ft) -> elementwise_fn {
      return &cast<typename decltype(tt)::type, typename decltype(ft)::type>;
    });
  });
}

}  // namespace jf::cpu_exec
