// The CPU executor's element-wise loops and casts, instantiated once per (operation, dtype) from
// the op table: every element goes through the jf::ops function the CUDA kernels call, so results
// agree bit for bit.
//
// Each loop is compiled for AVX2 and for the baseline (target_clones.hpp). On the 2-core CI machine
// the quadratic formula on 2^24 float64 took 40.5 -> 26.3 ms and a histogram 61 -> 46. They are
// in a file of their own: in executor_kernels.cpp, the clones changed how GCC inlined the per-list
// reductions there (ListMax 27 -> 31 ms). `where` as a select of bits and the float <-> int64
// casts through 1.5 * 2^52 (below) made GCC vectorise the last scalar loops of the histogram's bin
// index: 45.0 -> 36.2-37.5 ms on 2^24 float64 (the same machine and hour).
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cpu/executor_kernels.hpp"
#include "cpu/loop_dtypes.hpp"
#include "cpu/target_clones.hpp"

namespace jf::cpu_exec {
namespace {

using detail::op_fn;

// The unsigned integer of T's size.
template <class T>
using word_of =
    std::conditional_t<sizeof(T) == 1, std::uint8_t,
                       std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                          std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

template <op O, class T>
JF_CPU_CLONES void elementwise(const void* const* a, void* out, std::int64_t n) {
  constexpr int arity = info(O).arity;
  if constexpr (O == op::where) {
    // jf_where's `c ? x : y` as a select of bits (the condition's byte widened to a mask): the same
    // bits, without the branch an element GCC made of it (unpredictable on random conditions).
    using W = word_of<T>;
    const unsigned char* __restrict c = static_cast<const unsigned char*>(a[0]);
    const T* __restrict x = static_cast<const T*>(a[1]);
    const T* __restrict y = static_cast<const T*>(a[2]);
    T* __restrict o = static_cast<T*>(out);
    for (std::int64_t i = 0; i < n; ++i) {
      const W m = static_cast<W>(W(0) - static_cast<W>(c[i] != 0));
      o[i] = std::bit_cast<T>(static_cast<W>((std::bit_cast<W>(x[i]) & m) | (std::bit_cast<W>(y[i]) & W(~m))));
    }
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

// Casts between float32/float64 and int64: x86-64 before AVX-512 has no vector conversion between
// them, so GCC converts an element at a time (and jf_cast's range check branches). A chunk whose
// values all lie within 2^51 converts lane by lane through 1.5 * 2^52 instead, where an integer is
// the low bits of a double's mantissa: exact there, so the same bits as jf_cast; other chunks go
// through jf_cast.
template <class To, class From>
constexpr bool float_to_int64 = std::is_floating_point_v<From> && (std::is_same_v<To, std::int64_t>);
template <class To, class From>
constexpr bool int64_to_float = std::is_floating_point_v<To> && (std::is_same_v<From, std::int64_t>);
constexpr std::int64_t cast_chunk = 256;
constexpr double magic = 0x1.8p52;
constexpr double within = 0x1p51;

template <class To, class From>
JF_CPU_CLONES void cast(const void* const* a, void* out, std::int64_t n) {
  const From* __restrict x = static_cast<const From*>(a[0]);
  To* __restrict o = static_cast<To*>(out);
  std::int64_t i = 0;
  if constexpr (float_to_int64<To, From> || int64_to_float<To, From>) {
    for (; i + cast_chunk <= n; i += cast_chunk) {
      const From* __restrict xc = x + i;
      To* __restrict oc = o + i;
      std::int64_t small = 0;  // counted (a count vectorises); NaN compares false: jf_cast then
      for (std::int64_t k = 0; k < cast_chunk; ++k) {
        if constexpr (float_to_int64<To, From>)
          small += std::fabs(static_cast<double>(xc[k])) < within;
        else
          small += (xc[k] < std::int64_t(1) << 51) & (xc[k] > -(std::int64_t(1) << 51));
      }
      if (small != cast_chunk) {
        for (std::int64_t k = 0; k < cast_chunk; ++k) oc[k] = ops::jf_cast<To>(xc[k]);
      } else if constexpr (float_to_int64<To, From>) {
        for (std::int64_t k = 0; k < cast_chunk; ++k) {
          const double v = static_cast<double>(xc[k]);
          const double r = v + magic;     // the nearest integer (ties to even) in the low bits
          const double near = r - magic;  // that integer, exactly
          std::int64_t q = std::bit_cast<std::int64_t>(r) - std::bit_cast<std::int64_t>(magic);
          q -= static_cast<std::int64_t>((v >= 0) & (near > v));  // truncation: toward zero
          q += static_cast<std::int64_t>((v < 0) & (near < v));
          oc[k] = q;
        }
      } else {
        for (std::int64_t k = 0; k < cast_chunk; ++k)
          oc[k] = static_cast<To>(std::bit_cast<double>(xc[k] + std::bit_cast<std::int64_t>(magic)) - magic);
      }
    }
  }
  for (; i < n; ++i) o[i] = ops::jf_cast<To>(x[i]);
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
