// The meaning of every element-wise operation on one element: numpy's results, including its
// integer edge cases (division by zero, INT_MIN / -1, shifts past the width, wrapping overflow).
//
// This one file is compiled twice: by the host compiler for the CPU executor, and by NVRTC
// as the prelude of every generated CUDA kernel, so both backends compute the same thing.
// It must therefore stay self-contained: no includes under NVRTC, no std type traits.
#pragma once

#ifdef __CUDACC_RTC__
#define JF_HD __device__ __forceinline__
#define JF_M(f) ::f
#else
#include <cmath>
#define JF_HD inline
#define JF_M(f) std::f
#endif

namespace jf::ops {

template <class T> struct traits { static constexpr bool is_float = false, is_bool = false, is_unsigned = false; };
template <> struct traits<bool> { static constexpr bool is_float = false, is_bool = true, is_unsigned = false; };
template <> struct traits<float> { static constexpr bool is_float = true, is_bool = false, is_unsigned = false; };
template <> struct traits<double> { static constexpr bool is_float = true, is_bool = false, is_unsigned = false; };
template <class T> struct unsigned_traits {
  static constexpr bool is_float = false, is_bool = false, is_unsigned = true;
};
template <> struct traits<unsigned char> : unsigned_traits<unsigned char> {};
template <> struct traits<unsigned short> : unsigned_traits<unsigned short> {};
template <> struct traits<unsigned int> : unsigned_traits<unsigned int> {};
template <> struct traits<unsigned long> : unsigned_traits<unsigned long> {};
template <> struct traits<unsigned long long> : unsigned_traits<unsigned long long> {};

// The unsigned type integer arithmetic is done in, then converted back (modulo 2^bits): signed
// overflow is undefined in C++ and numpy wraps; types narrower than int promote to int in C++
// (a product of two uint16 can overflow int), so the narrow ones compute in unsigned int.
template <class T> struct unsigned_of;
template <> struct unsigned_of<signed char> { using type = unsigned int; };
template <> struct unsigned_of<short> { using type = unsigned int; };
template <> struct unsigned_of<int> { using type = unsigned int; };
template <> struct unsigned_of<long> { using type = unsigned long; };
template <> struct unsigned_of<long long> { using type = unsigned long long; };
template <> struct unsigned_of<unsigned char> { using type = unsigned int; };
template <> struct unsigned_of<unsigned short> { using type = unsigned int; };
template <> struct unsigned_of<unsigned int> { using type = unsigned int; };
template <> struct unsigned_of<unsigned long> { using type = unsigned long; };
template <> struct unsigned_of<unsigned long long> { using type = unsigned long long; };
template <class T> using uns = typename unsigned_of<T>::type;

// min: the smallest value; bits: the width. lo, hi (int and the 64-bit types): the range of the
// floats that convert exactly, [lo, hi).
template <class T> struct int_limits;
template <> struct int_limits<signed char> {
  static constexpr signed char min = -128;
  static constexpr int bits = 8;
};
template <> struct int_limits<short> {
  static constexpr short min = -32768;
  static constexpr int bits = 16;
};
template <> struct int_limits<int> {
  static constexpr int min = -2147483647 - 1;
  static constexpr int bits = 32;
  static constexpr double lo = -2147483648.0, hi = 2147483648.0;
};
template <class T> struct int64_limits {
  static constexpr T min = -9223372036854775807LL - 1;
  static constexpr int bits = 64;
  static constexpr double lo = -9223372036854775808.0, hi = 9223372036854775808.0;
};
template <> struct int_limits<long> : int64_limits<long> {};
template <> struct int_limits<long long> : int64_limits<long long> {};
template <class T, int Bits> struct uint_limits {
  static constexpr T min = 0;
  static constexpr int bits = Bits;
};
template <> struct int_limits<unsigned char> : uint_limits<unsigned char, 8> {};
template <> struct int_limits<unsigned short> : uint_limits<unsigned short, 16> {};
template <> struct int_limits<unsigned int> : uint_limits<unsigned int, 32> {};
template <> struct int_limits<unsigned long> : uint_limits<unsigned long, 64> {};
template <> struct int_limits<unsigned long long> : uint_limits<unsigned long long, 64> {};

// The result of wrapping integer arithmetic done in uns<T>, converted back to T. Under NVRTC the
// narrow signed types pass through an empty asm first: CUDA 13's NVRTC narrows `0 - a` to a 16-bit
// `neg.s16` and then reads its 32-bit register as already sign-extended, so -(-32768) came out as
// +32768 in every later signed use ((-x) >> 3 gave 4096, numpy -4096; probe on sm_90). The asm
// keeps the arithmetic 32-bit and the truncation explicit. Unsigned and 32/64-bit types: a plain cast.
template <class T, class U> JF_HD T wrap_to(U r) {
#ifdef __CUDACC_RTC__
  if constexpr (!traits<T>::is_unsigned && int_limits<T>::bits < 32) asm("" : "+r"(r));
#endif
  return static_cast<T>(r);
}

template <class T> JF_HD bool is_nan(T a) {
  if constexpr (traits<T>::is_float) return JF_M(isnan)(a);
  else return false;
}

// astype: numpy's casts. Integers wrap (modulo 2^bits), as numpy's do. A float to an integer type
// truncates; what numpy gives for NaN and values out of range is undefined (platform-dependent, and
// on x86-64 it differs between its contiguous and strided loops): jetfuse defines it as x86-64's C
// conversions, numpy's strided loops there: int32 and int64 give their minimum; int8, int16,
// uint8 and uint16 convert through int32 and wrap; uint32 through int64 and wraps; uint64 takes
// [2^63, 2^64) exactly and everything else through int64.
template <class To, class From> JF_HD To jf_cast(From v) {
  if constexpr (traits<To>::is_bool) {
    return v != From(0);
  } else if constexpr (traits<From>::is_float && !traits<To>::is_float) {
    if constexpr (int_limits<To>::bits < 32) {
      return static_cast<To>(jf_cast<int>(v));
    } else if constexpr (traits<To>::is_unsigned && int_limits<To>::bits == 32) {
      return static_cast<To>(jf_cast<long long>(v));
    } else if constexpr (traits<To>::is_unsigned) {
      const From two63 = From(9223372036854775808.0);
      if (v >= two63) return static_cast<To>(jf_cast<long long>(v - two63)) ^ (To(1) << 63);
      return static_cast<To>(jf_cast<long long>(v));
    } else {
      if (!(v >= From(int_limits<To>::lo) && v < From(int_limits<To>::hi))) return int_limits<To>::min;
      return static_cast<To>(v);
    }
  } else {
    return static_cast<To>(v);
  }
}

// ---- unary ------------------------------------------------------------------------------------
template <class T> JF_HD T jf_negative(T a) {
  if constexpr (traits<T>::is_float) return -a;
  else return wrap_to<T>(uns<T>(0) - static_cast<uns<T>>(a));
}
template <class T> JF_HD T jf_absolute(T a) {
  if constexpr (traits<T>::is_float) return JF_M(fabs)(a);
  else if constexpr (traits<T>::is_bool || traits<T>::is_unsigned) return a;
  else return a < 0 ? jf_negative(a) : a;  // the minimum stays itself (numpy wraps)
}
#define JF_FLOAT_FN(name, fn) \
  template <class T> JF_HD T jf_##name(T a) { return JF_M(fn)(a); }
JF_FLOAT_FN(sqrt, sqrt)
JF_FLOAT_FN(cbrt, cbrt)
JF_FLOAT_FN(exp, exp)
JF_FLOAT_FN(exp2, exp2)
JF_FLOAT_FN(expm1, expm1)
JF_FLOAT_FN(log, log)
JF_FLOAT_FN(log2, log2)
JF_FLOAT_FN(log10, log10)
JF_FLOAT_FN(log1p, log1p)
JF_FLOAT_FN(sin, sin)
JF_FLOAT_FN(cos, cos)
JF_FLOAT_FN(tan, tan)
JF_FLOAT_FN(arcsin, asin)
JF_FLOAT_FN(arccos, acos)
JF_FLOAT_FN(arctan, atan)
JF_FLOAT_FN(sinh, sinh)
JF_FLOAT_FN(cosh, cosh)
JF_FLOAT_FN(tanh, tanh)
JF_FLOAT_FN(arcsinh, asinh)
JF_FLOAT_FN(arccosh, acosh)
JF_FLOAT_FN(arctanh, atanh)
JF_FLOAT_FN(rint, rint)
#undef JF_FLOAT_FN

template <class T> JF_HD T jf_multiply(T a, T b) {
  if constexpr (traits<T>::is_float) return a * b;
  else if constexpr (traits<T>::is_bool) return a && b;
  else return wrap_to<T>(static_cast<uns<T>>(a) * static_cast<uns<T>>(b));
}
template <class T> JF_HD T jf_square(T a) { return jf_multiply(a, a); }
// Integers: numpy computes 1.0 / a in double and converts: 1/0 is its conversion of inf (INT_MIN
// for int32 and int64, 0 for the others on x86-64).
template <class T> JF_HD T jf_reciprocal(T a) {
  if constexpr (traits<T>::is_float) return T(1) / a;
  else if (a == 0) return jf_cast<T>(1.0 / static_cast<double>(a));
  else return static_cast<T>(1 / a);
}
#define JF_ROUNDING_FN(name)                                    \
  template <class T> JF_HD T jf_##name(T a) {                   \
    if constexpr (traits<T>::is_float) return JF_M(name)(a);    \
    else return a;                                              \
  }
JF_ROUNDING_FN(floor)
JF_ROUNDING_FN(ceil)
JF_ROUNDING_FN(trunc)
#undef JF_ROUNDING_FN
template <class T> JF_HD T jf_sign(T a) {
  if constexpr (traits<T>::is_float) return a > T(0) ? T(1) : a < T(0) ? T(-1) : a == T(0) ? T(0) : a;
  else if constexpr (traits<T>::is_unsigned) return static_cast<T>(a != 0);
  else return static_cast<T>((a > 0) - (a < 0));
}
template <class T> JF_HD bool jf_isnan(T a) { return is_nan(a); }
template <class T> JF_HD bool jf_isinf(T a) {
  if constexpr (traits<T>::is_float) return JF_M(isinf)(a);
  else return false;
}
template <class T> JF_HD bool jf_isfinite(T a) {
  if constexpr (traits<T>::is_float) return JF_M(isfinite)(a);
  else return true;
}
JF_HD bool jf_logical_not(bool a) { return !a; }
template <class T> JF_HD T jf_invert(T a) {
  if constexpr (traits<T>::is_bool) return !a;
  else return static_cast<T>(~a);
}

// ---- binary -----------------------------------------------------------------------------------
template <class T> JF_HD T jf_add(T a, T b) {
  if constexpr (traits<T>::is_float) return a + b;
  else if constexpr (traits<T>::is_bool) return a || b;
  else return wrap_to<T>(static_cast<uns<T>>(a) + static_cast<uns<T>>(b));
}
template <class T> JF_HD T jf_subtract(T a, T b) {
  if constexpr (traits<T>::is_float) return a - b;
  else return wrap_to<T>(static_cast<uns<T>>(a) - static_cast<uns<T>>(b));
}
template <class T> JF_HD T jf_true_divide(T a, T b) { return a / b; }

// numpy's npy_divmod for floats: Python's floor semantics, signs of zero included.
template <class T> JF_HD T float_divmod(T a, T b, T* modulus) {
  T mod = JF_M(fmod)(a, b);
  if (!b) {
    *modulus = mod;
    return a / b;
  }
  T div = (a - mod) / b;
  if (mod) {
    if ((b < T(0)) != (mod < T(0))) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = JF_M(copysign)(T(0), b);
  }
  T floordiv;
  if (div) {
    floordiv = JF_M(floor)(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = JF_M(copysign)(T(0), a / b);
  }
  *modulus = mod;
  return floordiv;
}
template <class T> JF_HD T jf_floor_divide(T a, T b) {
  if constexpr (traits<T>::is_float) {
    T mod;
    return float_divmod(a, b, &mod);
  } else if constexpr (traits<T>::is_unsigned) {
    if (b == 0) return 0;  // numpy: 0, with a warning
    return static_cast<T>(a / b);
  } else {
    if (b == 0) return 0;                                      // numpy: 0, with a warning
    if (a == int_limits<T>::min && b == -1) return a;          // numpy: wraps to INT_MIN
    T q = static_cast<T>(a / b);
    if (((a > 0) != (b > 0)) && q * b != a) --q;
    return q;
  }
}
template <class T> JF_HD T jf_remainder(T a, T b) {
  if constexpr (traits<T>::is_float) {
    T mod;
    float_divmod(a, b, &mod);
    return mod;
  } else if constexpr (traits<T>::is_unsigned) {
    return b == 0 ? T(0) : static_cast<T>(a % b);
  } else {
    if (b == 0 || b == -1) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  }
}
// Float: pow, except numpy's fast paths for a scalar exponent, which numpy takes on every loop
// (contiguous, strided, 0-d): x**2 is x*x, x**0.5 is sqrt(x) (so (-0.0)**0.5 is -0.0 and
// (-inf)**0.5 is NaN), x**-1 is 1/x. This also makes x**2 -> x*x and x**-1 -> 1/x bit-exact.
// Integer: exact wrapping power by squaring; a negative exponent gives 0 (numpy raises).
template <class T> JF_HD T jf_power(T a, T b) {
  if constexpr (traits<T>::is_float) {
    if (b == T(2)) return a * a;
    if (b == T(0.5)) return JF_M(sqrt)(a);
    if (b == T(-1)) return T(1) / a;
    return JF_M(pow)(a, b);
  } else {
    if constexpr (!traits<T>::is_unsigned)
      if (b < 0) return 0;
    uns<T> r = 1, x = static_cast<uns<T>>(a);
    for (uns<T> e = static_cast<uns<T>>(b); e; e >>= 1) {
      if (e & 1) r *= x;
      x *= x;
    }
    return wrap_to<T>(r);
  }
}
template <class T> JF_HD T jf_arctan2(T a, T b) { return JF_M(atan2)(a, b); }
// hypot computed as the larger magnitude times sqrt(1 + (smaller / larger)^2): no intermediate
// overflows, and a result at the top of the range stays finite when it rounds to a finite value.
template <class T>
JF_HD T hypot_scaled(T a, T b) {
  const T x = JF_M(fabs)(a), y = JF_M(fabs)(b);
  const T hi = x > y ? x : y, lo = x > y ? y : x;
  if (hi == T(0)) return hi;
  const T t = lo / hi;
  return hi * JF_M(sqrt)(T(1) + t * t);
}
template <class T>
JF_HD T jf_hypot(T a, T b) {
  const T r = JF_M(hypot)(a, b);
#ifdef __CUDACC_RTC__
  // CUDA's hypot (2 ulp) rounds results at the top of the range up to inf: hypot(DBL_MAX, 1) is
  // inf there and DBL_MAX in glibc and numpy (GPU fuzzer seed 291150, cases 253 and 398). Only an
  // inf of finite operands is computed again, so the common path costs one test.
  if (JF_M(isinf)(r) && JF_M(isfinite)(a) && JF_M(isfinite)(b)) return hypot_scaled(a, b);
#endif
  return r;
}
// minimum/maximum propagate NaN; fmin/fmax ignore it (numpy). Of two equal values (+0.0 and
// -0.0) they return the second, as numpy's minimum/maximum on every loop and its fmin/fmax on
// strided data and in the body of its vector loops.
// (`|`, not `||`: both tests are cheap and free of effects, and NVCC compiles the short circuit to a
// branch, which keeps the per-list max kernels from issuing their loads ahead: 114 against 85 us.)
template <class T> JF_HD T jf_minimum(T a, T b) { return ((a < b) | is_nan(a)) ? a : b; }
template <class T> JF_HD T jf_maximum(T a, T b) { return ((a > b) | is_nan(a)) ? a : b; }
template <class T> JF_HD T jf_fmin(T a, T b) { return is_nan(b) ? a : is_nan(a) ? b : (a < b ? a : b); }
template <class T> JF_HD T jf_fmax(T a, T b) { return is_nan(b) ? a : is_nan(a) ? b : (a > b ? a : b); }
template <class T> JF_HD T jf_bitwise_and(T a, T b) { return static_cast<T>(a & b); }
template <class T> JF_HD T jf_bitwise_or(T a, T b) { return static_cast<T>(a | b); }
template <class T> JF_HD T jf_bitwise_xor(T a, T b) { return static_cast<T>(a ^ b); }
// Shifts past the width give 0 (or -1 for a negative a >> n), as numpy's npy_lshift/npy_rshift.
template <class T> JF_HD T jf_left_shift(T a, T b) {
  if (static_cast<uns<T>>(b) < static_cast<uns<T>>(int_limits<T>::bits))
    return static_cast<T>(static_cast<uns<T>>(a) << b);
  return 0;
}
template <class T> JF_HD T jf_right_shift(T a, T b) {
  if (static_cast<uns<T>>(b) < static_cast<uns<T>>(int_limits<T>::bits)) return static_cast<T>(a >> b);
  if constexpr (traits<T>::is_unsigned) return T(0);
  else return a < 0 ? T(-1) : T(0);
}
template <class T> JF_HD bool jf_equal(T a, T b) { return a == b; }
template <class T> JF_HD bool jf_not_equal(T a, T b) { return a != b; }
template <class T> JF_HD bool jf_less(T a, T b) { return a < b; }
template <class T> JF_HD bool jf_less_equal(T a, T b) { return a <= b; }
template <class T> JF_HD bool jf_greater(T a, T b) { return a > b; }
template <class T> JF_HD bool jf_greater_equal(T a, T b) { return a >= b; }
JF_HD bool jf_logical_and(bool a, bool b) { return a && b; }
JF_HD bool jf_logical_or(bool a, bool b) { return a || b; }
template <class T> JF_HD T jf_where(bool c, T a, T b) { return c ? a : b; }

// ---- reductions: the monoids of jf::ir's reduce nodes (identity + combine) -------------------
// One definition for the CPU executor and the kernels, so both combine identically. The order
// in which partial results are combined is fixed by each backend's kernel shape (documented in
// docs/design.md); argmin/argmax combine commutatively (ties go to the smaller position).
// A constant, not 1 / 0: NVCC and NVRTC keep an IEEE division by zero as a division at run time
// (a slow-path call in every loop that resets an accumulator to -inf).
template <class T> JF_HD T jf_infinity() {
#ifdef __CUDACC_RTC__
  if constexpr (sizeof(T) == sizeof(float)) return __int_as_float(0x7f800000);
  else return __longlong_as_double(0x7ff0000000000000LL);
#else
  T zero = T(0);  // (folded by the host compiler)
  return T(1) / zero;
#endif
}
// The largest and smallest values of T (infinities for floats; bool: true / false).
template <class T> JF_HD T jf_highest() {
  if constexpr (traits<T>::is_float) return jf_infinity<T>();
  else if constexpr (traits<T>::is_bool) return true;
  else return static_cast<T>(~static_cast<uns<T>>(int_limits<T>::min));
}
template <class T> JF_HD T jf_lowest() {
  if constexpr (traits<T>::is_float) return -jf_infinity<T>();
  else if constexpr (traits<T>::is_bool) return false;
  else return int_limits<T>::min;
}
template <class T> JF_HD T jf_quiet_nan() {
  T zero = T(0);
  return zero / zero;
}

// The position of a value among the iterations of a reduced domain (argmin/argmax): -1 = none.
template <class T> struct jf_arg {
  T value;
  long long index;
};
// Of two candidates the better one: a NaN beats any number (numpy's argmax/argmin return the
// first NaN), then the larger (argmax) or smaller (argmin) value, then the smaller position.
template <bool Max, class T> JF_HD jf_arg<T> jf_arg_combine(jf_arg<T> a, jf_arg<T> b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  const bool an = is_nan(a.value), bn = is_nan(b.value);
  if (an || bn) return (an && bn) ? (a.index < b.index ? a : b) : (an ? a : b);
  if (Max ? (a.value > b.value) : (a.value < b.value)) return a;
  if (Max ? (b.value > a.value) : (b.value < a.value)) return b;
  return a.index < b.index ? a : b;
}

// Identity and combine of every monoid of ops.hpp's JF_MONOIDS, spelled jf_<monoid>_identity<T>()
// and jf_<monoid>_combine(a, b): the code generator and the CPU executor call them by name.
// min/max propagate NaN (numpy's minimum/maximum); nanmin/nanmax skip it (fmin/fmax) and start
// from NaN, so a slice of NaNs only stays NaN. Integer sums and products wrap as numpy's do.
template <class T> JF_HD T jf_sum_identity() { return T(0); }
template <class T> JF_HD T jf_sum_combine(T a, T b) { return jf_add(a, b); }
template <class T> JF_HD T jf_prod_identity() { return T(1); }
template <class T> JF_HD T jf_prod_combine(T a, T b) { return jf_multiply(a, b); }
template <class T> JF_HD T jf_min_identity() { return jf_highest<T>(); }
template <class T> JF_HD T jf_min_combine(T a, T b) { return jf_minimum(a, b); }
template <class T> JF_HD T jf_max_identity() { return jf_lowest<T>(); }
template <class T> JF_HD T jf_max_combine(T a, T b) { return jf_maximum(a, b); }
template <class T> JF_HD T jf_nanmin_identity() {
  if constexpr (traits<T>::is_float) return jf_quiet_nan<T>();
  else return jf_highest<T>();
}
template <class T> JF_HD T jf_nanmin_combine(T a, T b) { return jf_fmin(a, b); }
template <class T> JF_HD T jf_nanmax_identity() {
  if constexpr (traits<T>::is_float) return jf_quiet_nan<T>();
  else return jf_lowest<T>();
}
template <class T> JF_HD T jf_nanmax_combine(T a, T b) { return jf_fmax(a, b); }
JF_HD bool jf_any_combine(bool a, bool b) { return a || b; }
template <class T> JF_HD T jf_any_identity() { return false; }
JF_HD bool jf_all_combine(bool a, bool b) { return a && b; }
template <class T> JF_HD T jf_all_identity() { return true; }
// argmin/argmax reduce jf_arg<T> (value, position); the result is the position (-1: none).
template <class T> JF_HD jf_arg<T> jf_argmin_identity() { return jf_arg<T>{jf_highest<T>(), -1}; }
template <class T> JF_HD jf_arg<T> jf_argmin_combine(jf_arg<T> a, jf_arg<T> b) { return jf_arg_combine<false>(a, b); }
template <class T> JF_HD jf_arg<T> jf_argmax_identity() { return jf_arg<T>{jf_lowest<T>(), -1}; }
template <class T> JF_HD jf_arg<T> jf_argmax_combine(jf_arg<T> a, jf_arg<T> b) { return jf_arg_combine<true>(a, b); }

// ---- numpy.searchsorted: binary search in a sorted strided array (kernels and the CPU executor) ----
// numpy's sort order puts NaN last: x < NaN for every non-NaN x.
template <class T> JF_HD bool jf_sort_less(T x, T y) {
  if constexpr (traits<T>::is_float) return x < y || (y != y && x == x);
  else return x < y;
}
// The insertion index of v in p[0], p[stride], ... (size elements), compared in C: the first
// element not less than v (side left) or greater than v (side right).
template <int Right, class TA, class C> JF_HD long long jf_searchsorted(const TA* p, long long size, long long stride, C v) {
  long long lo = 0, hi = size;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    const C a = static_cast<C>(p[mid * stride]);
    if (Right ? !jf_sort_less(v, a) : jf_sort_less(a, v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- counter-based random bits: numpy's Philox (Philox4x64-10) and Random123's Philox4x32-10 ----
// Two bit generators (jf::random::philox, jf::random::philox4x32), each a pure function of (key,
// q) giving 64-bit outputs q = 0, 1, ...: any element, in any order. Every conversion below (float
// from the top bits of an output or of a 32-bit half, Box-Muller, Lemire) is shared; only the block
// function differs, and each gives outputs 4b .. 4b + 3 per call (jf_philox_block_of<G>).
enum jf_bit_generator : int { jf_philox4x64 = 0, jf_philox4x32 = 1 };

// numpy.random.Philox(key=k1 * 2**64 + k0) with counter 0 yields its outputs so:
// output q is word q % 4 of the Philox4x64-10 block of counter (q / 4 + 1, 0, 0, 0) (numpy adds
// 1 to the counter before each block).
JF_HD unsigned long long jf_mulhi64(unsigned long long a, unsigned long long b) {
#ifdef __CUDACC_RTC__
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 u128;
  return static_cast<unsigned long long>((static_cast<u128>(a) * b) >> 64);
#endif
}
// Philox4x64-10's Weyl increments of the key: round r uses (k0 + r W0, k1 + r W1).
constexpr unsigned long long jf_philox_w0 = 0x9E3779B97F4A7C15ULL, jf_philox_w1 = 0xBB67AE8584CAA73BULL;
// One round: the two 64 x 64 -> 128-bit products, words swapped and mixed with the round key.
JF_HD void jf_philox_round(unsigned long long& c0, unsigned long long& c1, unsigned long long& c2,
                           unsigned long long& c3, unsigned long long k0, unsigned long long k1) {
  const unsigned long long lo0 = 0xD2E7470EE14C6C93ULL * c0, hi0 = jf_mulhi64(0xD2E7470EE14C6C93ULL, c0);
  const unsigned long long lo1 = 0xCA5A826395121157ULL * c2, hi1 = jf_mulhi64(0xCA5A826395121157ULL, c2);
  c0 = hi1 ^ c1 ^ k0;
  c1 = lo1;
  c2 = hi0 ^ c3 ^ k1;
  c3 = lo0;
}
// The 4 outputs of block b (outputs 4b .. 4b + 3): Philox4x64-10 of counter (b + 1, 0, 0, 0).
JF_HD void jf_philox_block(unsigned long long k0, unsigned long long k1, unsigned long long b,
                           unsigned long long* out) {
  unsigned long long c0 = b + 1, c1 = 0, c2 = 0, c3 = 0;
#ifdef __CUDACC_RTC__
  // Opaque keys: else the compiler hoists the 10 round keys of every leaf out of the kernel's loop
  // (40 registers per leaf: 144 in all for pi, one block per SM) to save 4 additions per round.
  asm volatile("" : "+l"(k0), "+l"(k1));
#pragma unroll  // the first round's zeros fold away; 10 rounds of straight-line code
#endif
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += jf_philox_w0;
      k1 += jf_philox_w1;
    }
    jf_philox_round(c0, c1, c2, c3, k0, k1);
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}
// The round keys of (k0, k1): rk[2r] = k0 + r W0, rk[2r + 1] = k1 + r W1. The launcher passes them
// in a kernel's argument (the constant bank), so that kernels neither recompute them per block nor
// hold them in registers.
JF_HD void jf_philox_round_keys(unsigned long long k0, unsigned long long k1, unsigned long long* rk) {
  for (int r = 0; r < 10; ++r) {
    rk[2 * r] = k0 + static_cast<unsigned long long>(r) * jf_philox_w0;
    rk[2 * r + 1] = k1 + static_cast<unsigned long long>(r) * jf_philox_w1;
  }
}
// jf_philox_block from precomputed round keys (the same words).
JF_HD void jf_philox_block_rk(const unsigned long long* rk, unsigned long long b, unsigned long long* out) {
  unsigned long long c0 = b + 1, c1 = 0, c2 = 0, c3 = 0;
#ifdef __CUDACC_RTC__
#pragma unroll
#endif
  for (int r = 0; r < 10; ++r) jf_philox_round(c0, c1, c2, c3, rk[2 * r], rk[2 * r + 1]);
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}
// Random123's philox4x32_10 (jf::random::philox4x32; not numpy's stream: numpy has no
// Philox4x32): per round two 32 x 32 -> 64-bit products, each one IMAD.WIDE.U32 (low and high
// words at once), against four IMAD.WIDE per 64 x 64 -> 128-bit product of Philox4x64-10: about half
// the multiply work per random bit. Output q is words 2r, 2r + 1 (r = q % 2, low word first) of the
// block of counter (c mod 2^32, c / 2^32, 0, 0), c = q / 2, key (k0, k1) (the seed's low and high
// 32-bit words).
constexpr unsigned jf_philox4x32_w0 = 0x9E3779B9u, jf_philox4x32_w1 = 0xBB67AE85u;
// hi:lo = a * m. In kernels one mul.wide.u32 whose halves are 32-bit registers: written as a 64-bit
// product, NVVM widened the whole round to 64-bit operations (the 64-bit round-key slots' high words
// not known to be zero) and ptxas added a VIADD per product: 216 M against 162 M instructions for
// 2^28 uniform float32 on an H200 (ncu), 313 us against 280 us.
JF_HD void jf_mul_wide_u32(unsigned a, unsigned m, unsigned& hi, unsigned& lo) {
#ifdef __CUDACC_RTC__
  asm("{\n\t.reg .u64 t;\n\tmul.wide.u32 t, %2, %3;\n\tmov.b64 {%1, %0}, t;\n\t}" : "=r"(hi), "=r"(lo) : "r"(a), "r"(m));
#else
  const unsigned long long p = static_cast<unsigned long long>(m) * a;
  hi = static_cast<unsigned>(p >> 32);
  lo = static_cast<unsigned>(p);
#endif
}
JF_HD void jf_philox4x32_round(unsigned& c0, unsigned& c1, unsigned& c2, unsigned& c3, unsigned k0, unsigned k1) {
  unsigned h0, l0, h1, l1;
  jf_mul_wide_u32(c0, 0xD2511F53u, h0, l0);
  jf_mul_wide_u32(c2, 0xCD9E8D57u, h1, l1);
  c0 = h1 ^ c1 ^ k0;
  c1 = l1;
  c2 = h0 ^ c3 ^ k1;
  c3 = l0;
}
// Random123's philox4x32_10(ctr, key) for any counter (the known-answer vectors' function).
JF_HD void jf_philox4x32_10(const unsigned* ctr, const unsigned* key, unsigned* out) {
  unsigned c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += jf_philox4x32_w0;
      k1 += jf_philox4x32_w1;
    }
    jf_philox4x32_round(c0, c1, c2, c3, k0, k1);
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}
// Two blocks of counters (a0, a1, 0, 0) and (b0, b1, 0, 0), interleaved (independent chains for
// the scheduler): out[0], out[1] the first block's words (w0 | w1 << 32, w2 | w3 << 32), out[2],
// out[3] the second's. k(r) gives round r's key words.
template <class Keys>
JF_HD void jf_philox4x32_two(Keys k, unsigned a0, unsigned a1, unsigned b0, unsigned b1, unsigned long long* out) {
  unsigned a2 = 0, a3 = 0, b2 = 0, b3 = 0;
#ifdef __CUDACC_RTC__
#pragma unroll
#endif
  for (int r = 0; r < 10; ++r) {
    unsigned k0, k1;
    k(r, k0, k1);
    jf_philox4x32_round(a0, a1, a2, a3, k0, k1);
    jf_philox4x32_round(b0, b1, b2, b3, k0, k1);
  }
  out[0] = a0 | static_cast<unsigned long long>(a1) << 32;
  out[1] = a2 | static_cast<unsigned long long>(a3) << 32;
  out[2] = b0 | static_cast<unsigned long long>(b1) << 32;
  out[3] = b2 | static_cast<unsigned long long>(b3) << 32;
}
// Outputs 4b .. 4b + 3 (as jf_philox_block): the blocks of counters 2b and 2b + 1. Counter words 2
// and 3 are 0, so round 1 has one product per block; the two blocks share counter word 1 (the same
// value passed twice), hence their first word after round 1, and round 2's first product is
// computed once.
template <class Keys> JF_HD void jf_philox4x32_pair(Keys k, unsigned long long b, unsigned long long* out) {
  const unsigned long long c = 2 * b;
  const unsigned lo = static_cast<unsigned>(c), hi = static_cast<unsigned>(c >> 32);
  jf_philox4x32_two(k, lo, hi, lo | 1u, hi, out);
}
// Keys (k0, k1): their low 32 bits are the key words (jf::random::philox4x32 passes the seed's words).
JF_HD void jf_philox4x32_block(unsigned long long k0, unsigned long long k1, unsigned long long b,
                               unsigned long long* out) {
  unsigned key0 = static_cast<unsigned>(k0), key1 = static_cast<unsigned>(k1);
#ifdef __CUDACC_RTC__
  asm volatile("" : "+r"(key0), "+r"(key1));  // opaque: round keys not hoisted out of loops (see above)
#endif
  jf_philox4x32_pair(
      [&](int r, unsigned& x, unsigned& y) {
        x = key0 + static_cast<unsigned>(r) * jf_philox4x32_w0;
        y = key1 + static_cast<unsigned>(r) * jf_philox4x32_w1;
      },
      b, out);
}
// Round keys in the same 20 slots as Philox4x64's (zero-extended 32-bit words), so the launcher and
// the kernel ABI treat both alike.
JF_HD void jf_philox4x32_round_keys(unsigned long long k0, unsigned long long k1, unsigned long long* rk) {
  for (int r = 0; r < 10; ++r) {
    rk[2 * r] = static_cast<unsigned>(k0) + static_cast<unsigned>(r) * jf_philox4x32_w0;
    rk[2 * r + 1] = static_cast<unsigned>(k1) + static_cast<unsigned>(r) * jf_philox4x32_w1;
  }
}
JF_HD void jf_philox4x32_block_rk(const unsigned long long* rk, unsigned long long b, unsigned long long* out) {
  jf_philox4x32_pair(
      [&](int r, unsigned& x, unsigned& y) {
        x = static_cast<unsigned>(rk[2 * r]);
        y = static_cast<unsigned>(rk[2 * r + 1]);
      },
      b, out);
}
// The blocks of counters c and c + 32, interleaved like jf_philox4x32_pair: out[0], out[1] are block
// c's words (w0 | w1 << 32, w2 | w3 << 32), out[2], out[3] block c + 32's. A warp's lane l taking
// blocks base + l and base + 32 + l holds the chunk's values 4 l .. and 128 + 4 l .. (float32): each
// of the warp's two 16-byte stores is 512 contiguous bytes (philox_chunks.cpp's split runs).
JF_HD void jf_philox4x32_split_rk(const unsigned long long* rk, unsigned long long c, unsigned long long* out) {
  const unsigned long long d = c + 32;
  jf_philox4x32_two(
      [&](int r, unsigned& x, unsigned& y) {
        x = static_cast<unsigned>(rk[2 * r]);
        y = static_cast<unsigned>(rk[2 * r + 1]);
      },
      static_cast<unsigned>(c), static_cast<unsigned>(c >> 32), static_cast<unsigned>(d), static_cast<unsigned>(d >> 32),
      out);
}
// Outputs 4b .. 4b + 3 of bit generator G.
template <jf_bit_generator G> JF_HD void jf_philox_block_of(unsigned long long k0, unsigned long long k1,
                                                            unsigned long long b, unsigned long long* out) {
  if constexpr (G == jf_philox4x32) jf_philox4x32_block(k0, k1, b, out);
  else jf_philox_block(k0, k1, b, out);
}

template <jf_bit_generator G = jf_philox4x64>
JF_HD unsigned long long jf_philox_u64(unsigned long long k0, unsigned long long k1, unsigned long long q) {
  unsigned long long w[4];
  jf_philox_block_of<G>(k0, k1, q >> 2, w);
  switch (q & 3) {  // constant indices: the block stays in registers in kernels
  case 0: return w[0];
  case 1: return w[1];
  case 2: return w[2];
  default: return w[3];
  }
}
// Generator.random()'s conversions of an output (float64: x = top 53 bits, x / 2^53) and of a
// 32-bit half (float32: x = top 24 bits, x / 2^24). Kernels build the same values without the
// integer-to-float conversion (a quarter-rate instruction): with t the top bit of x and m the rest,
// v = (1 + m / 2^(p-1)) / 2 is m under the exponent of 1/2, and x / 2^p = t ? v : v - 1/2, exact
// (Sterbenz): a subtraction predicated on t (one instruction fewer per value than subtracting a
// selected 0 or 1/2, which the Philox4x32 fill is bound by; philox4x32_fill_variants.cu).
JF_HD double jf_philox_to_f64(unsigned long long w) {
#ifdef __CUDACC_RTC__
  const double v = __longlong_as_double(0x3FE0000000000000ULL | ((w << 1) >> 12));
  return (w >> 63) ? v : v - 0.5;
#else
  return static_cast<double>(w >> 11) * (1.0 / 9007199254740992.0);
#endif
}
JF_HD float jf_philox_to_f32(unsigned int half) {
#ifdef __CUDACC_RTC__
  const float v = __int_as_float(0x3F000000 | ((half << 1) >> 9));
  return (half >> 31) ? v : v - 0.5f;
#else
  return static_cast<float>(half >> 8) * (1.0f / 16777216.0f);
#endif
}
// The position of element e of a leaf: first + e, except element 0 at pending - 1 when pending is
// not 0 (a float32 draw that starts with the half numpy kept from an earlier one).
JF_HD unsigned long long jf_philox_position(unsigned long long first, unsigned long long pending, unsigned long long e) {
  return (pending != 0 && e == 0) ? pending - 1 : first + e;
}
// Generator.random(): float64 from the top 53 bits of output q; float32 (dtype=np.float32) from
// the top 24 bits of 32-bit half h (the low half of output h / 2 first, as numpy buffers them).
template <jf_bit_generator G = jf_philox4x64>
JF_HD double jf_philox_random_f64(unsigned long long k0, unsigned long long k1, unsigned long long q) {
  return jf_philox_to_f64(jf_philox_u64<G>(k0, k1, q));
}
template <jf_bit_generator G = jf_philox4x64>
JF_HD float jf_philox_random_f32(unsigned long long k0, unsigned long long k1, unsigned long long h) {
  const unsigned long long w = jf_philox_u64<G>(k0, k1, h >> 1);
  return jf_philox_to_f32(static_cast<unsigned int>((h & 1) ? (w >> 32) : (w & 0xffffffffULL)));
}

// Normal draws (jetfuse's, not numpy's: numpy's ziggurat is sequential). Box-Muller on a pair of
// outputs (float64) or of 32-bit halves (float32) at positions 2m, 2m + 1 of the leaf: element 2m
// is r cos(2 pi u2), element 2m + 1 is r sin(2 pi u2), r = sqrt(-2 log u1), u1 in (0, 1] (never
// log 0), u2 in [0, 1). A leaf starts at an even position, so a pair never straddles a block.
// Tails: |z| <= 8.57 (float64, u1 >= 2^-53) and 5.77 (float32, u1 >= 2^-24).
JF_HD double jf_philox_to_normal_f64(unsigned long long a, unsigned long long b, bool odd) {
  const double u1 = static_cast<double>((a >> 11) + 1) * (1.0 / 9007199254740992.0);
  const double t = 6.283185307179586 * (static_cast<double>(b >> 11) * (1.0 / 9007199254740992.0));
  const double r = JF_M(sqrt)(-2.0 * JF_M(log)(u1));
  return r * (odd ? JF_M(sin)(t) : JF_M(cos)(t));
}
JF_HD float jf_philox_to_normal_f32(unsigned int a, unsigned int b, bool odd) {
  const float u1 = static_cast<float>((a >> 8) + 1) * (1.0f / 16777216.0f);
  const float t = 6.2831853f * (static_cast<float>(b >> 8) * (1.0f / 16777216.0f));
  const float r = JF_M(sqrt)(-2.0f * JF_M(log)(u1));
  return r * (odd ? JF_M(sin)(t) : JF_M(cos)(t));
}
// Integers in [0, range) from one output by Lemire's multiply (no rejection, so any element can be
// computed alone): floor(w * range / 2^64). Each value has probability floor(2^64 / range) / 2^64
// or one more 2^-64: a relative bias below range / 2^64 (< 2^-32 for ranges below 2^32). numpy's
// integers() rejects instead (sequential): not bit-equal with it.
JF_HD long long jf_philox_to_integer(unsigned long long w, unsigned long long range) {
  return static_cast<long long>(jf_mulhi64(w, range));
}

// Element e of a generated leaf of each kind (jf::ir::generator), computed alone: aux is numpy's
// kept half + 1 (random float32; 0: none) or the range (integers); G the bit generator.
template <jf_bit_generator G = jf_philox4x64>
JF_HD double jf_philox_random_f64_at(unsigned long long k0, unsigned long long k1, unsigned long long first,
                                     unsigned long long, unsigned long long e) {
  return jf_philox_random_f64<G>(k0, k1, first + e);
}
template <jf_bit_generator G = jf_philox4x64>
JF_HD float jf_philox_random_f32_at(unsigned long long k0, unsigned long long k1, unsigned long long first,
                                    unsigned long long aux, unsigned long long e) {
  return jf_philox_random_f32<G>(k0, k1, jf_philox_position(first, aux, e));
}
template <jf_bit_generator G = jf_philox4x64>
JF_HD double jf_philox_normal_f64_at(unsigned long long k0, unsigned long long k1, unsigned long long first,
                                     unsigned long long, unsigned long long e) {
  unsigned long long w[4];
  const unsigned long long q = first + (e & ~1ULL);  // even: the pair is words 0-1 or 2-3
  jf_philox_block_of<G>(k0, k1, q >> 2, w);
  return (q & 2) ? jf_philox_to_normal_f64(w[2], w[3], e & 1) : jf_philox_to_normal_f64(w[0], w[1], e & 1);
}
template <jf_bit_generator G = jf_philox4x64>
JF_HD float jf_philox_normal_f32_at(unsigned long long k0, unsigned long long k1, unsigned long long first,
                                    unsigned long long, unsigned long long e) {
  const unsigned long long w = jf_philox_u64<G>(k0, k1, (first + e) >> 1);  // both halves of one output
  return jf_philox_to_normal_f32(static_cast<unsigned int>(w & 0xffffffffULL), static_cast<unsigned int>(w >> 32), e & 1);
}
template <jf_bit_generator G = jf_philox4x64>
JF_HD long long jf_philox_integers_at(unsigned long long k0, unsigned long long k1, unsigned long long first,
                                      unsigned long long range, unsigned long long e) {
  return jf_philox_to_integer(jf_philox_u64<G>(k0, k1, first + e), range);
}

}  // namespace jf::ops
