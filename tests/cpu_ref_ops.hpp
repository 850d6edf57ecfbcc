// Reference semantics of every element-wise operation, written in the tests from numpy's
// documentation (never through jf::ops), and the front-end spelling of each operation.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu_test_util.hpp"

namespace cpu_test {

template <class T> using unsigned_t = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>>;

// numpy integer arithmetic wraps (two's complement).
template <class T> T wrap_add(T a, T b) { return static_cast<T>(static_cast<unsigned_t<T>>(a) + static_cast<unsigned_t<T>>(b)); }
template <class T> T wrap_sub(T a, T b) { return static_cast<T>(static_cast<unsigned_t<T>>(a) - static_cast<unsigned_t<T>>(b)); }
template <class T> T wrap_mul(T a, T b) { return static_cast<T>(static_cast<unsigned_t<T>>(a) * static_cast<unsigned_t<T>>(b)); }

// Python's float divmod (CPython float_divmod, which numpy's npy_divmod follows).
template <class T> void py_divmod(T a, T b, T& q, T& m) {
  if (b == 0) {  // numpy: a / b and fmod (NaN), with warnings
    q = a / b;
    m = std::fmod(a, b);
    return;
  }
  m = std::fmod(a, b);
  T d = (a - m) / b;
  if (m != 0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      d -= 1;
    }
  } else {
    m = std::copysign(T(0), b);
  }
  if (d != 0) {
    q = std::floor(d);
    if (d - q > T(0.5)) q += 1;
  } else {
    q = std::copysign(T(0), a / b);
  }
}

template <jf::op O, class T> auto ref1(T a) {
  using jf::op;
  constexpr bool F = std::is_floating_point_v<T>, B = std::is_same_v<T, bool>;
  if constexpr (O == op::negative) { if constexpr (F) return T(-a); else return wrap_sub(T(0), a); }
  else if constexpr (O == op::absolute) {
    if constexpr (B) return a;
    else if constexpr (F) return T(std::fabs(a));
    else return a < 0 ? wrap_sub(T(0), a) : a;
  }
  else if constexpr (O == op::sqrt) return std::sqrt(a);
  else if constexpr (O == op::cbrt) return std::cbrt(a);
  else if constexpr (O == op::exp) return std::exp(a);
  else if constexpr (O == op::exp2) return std::exp2(a);
  else if constexpr (O == op::expm1) return std::expm1(a);
  else if constexpr (O == op::log) return std::log(a);
  else if constexpr (O == op::log2) return std::log2(a);
  else if constexpr (O == op::log10) return std::log10(a);
  else if constexpr (O == op::log1p) return std::log1p(a);
  else if constexpr (O == op::sin) return std::sin(a);
  else if constexpr (O == op::cos) return std::cos(a);
  else if constexpr (O == op::tan) return std::tan(a);
  else if constexpr (O == op::arcsin) return std::asin(a);
  else if constexpr (O == op::arccos) return std::acos(a);
  else if constexpr (O == op::arctan) return std::atan(a);
  else if constexpr (O == op::sinh) return std::sinh(a);
  else if constexpr (O == op::cosh) return std::cosh(a);
  else if constexpr (O == op::tanh) return std::tanh(a);
  else if constexpr (O == op::arcsinh) return std::asinh(a);
  else if constexpr (O == op::arccosh) return std::acosh(a);
  else if constexpr (O == op::arctanh) return std::atanh(a);
  else if constexpr (O == op::rint) return std::nearbyint(a);  // half to even in the default mode
  else if constexpr (O == op::square) { if constexpr (F) return T(a * a); else return wrap_mul(a, a); }
  else if constexpr (O == op::reciprocal) {
    if constexpr (F) return T(1 / a);
    // numpy: 1.0 / a converted to T; 1/0 is x86-64's conversion of inf: INT_MIN for int32 and
    // int64 (cvttsd2si), 0 for the narrower and the unsigned types (the low bits of INT_MIN).
    else if (a == 0) return std::is_signed_v<T> && sizeof(T) >= 4 ? std::numeric_limits<T>::min() : T(0);
    else return a == 1 ? T(1) : (std::is_signed_v<T> && a == T(-1)) ? T(-1) : T(0);
  }
  else if constexpr (O == op::floor) { if constexpr (F) return std::floor(a); else return a; }
  else if constexpr (O == op::ceil) { if constexpr (F) return std::ceil(a); else return a; }
  else if constexpr (O == op::trunc) { if constexpr (F) return std::trunc(a); else return a; }
  else if constexpr (O == op::sign) {
    if constexpr (F) { if (std::isnan(a)) return a; }
    return a > 0 ? T(1) : a < 0 ? T(-1) : T(0);
  }
  else if constexpr (O == op::isnan) { if constexpr (F) return bool(std::isnan(a)); else return false; }
  else if constexpr (O == op::isinf) { if constexpr (F) return bool(std::isinf(a)); else return false; }
  else if constexpr (O == op::isfinite) { if constexpr (F) return bool(std::isfinite(a)); else return true; }
  else if constexpr (O == op::logical_not) return !a;
  else if constexpr (O == op::invert) { if constexpr (B) return !a; else return T(~a); }
}

template <jf::op O, class T> auto ref2(T a, T b) {
  using jf::op;
  constexpr bool F = std::is_floating_point_v<T>, B = std::is_same_v<T, bool>;
  if constexpr (O == op::add) { if constexpr (F) return T(a + b); else if constexpr (B) return bool(a || b); else return wrap_add(a, b); }
  else if constexpr (O == op::subtract) { if constexpr (F) return T(a - b); else return wrap_sub(a, b); }
  else if constexpr (O == op::multiply) { if constexpr (F) return T(a * b); else if constexpr (B) return bool(a && b); else return wrap_mul(a, b); }
  else if constexpr (O == op::true_divide) return T(a / b);
  else if constexpr (O == op::floor_divide || O == op::remainder) {
    if constexpr (F) {
      T q, m;
      py_divmod(a, b, q, m);
      return O == op::floor_divide ? q : m;
    } else {
      if (b == 0) return T(0);  // numpy: 0 with a warning
      if (b == -1) return O == op::floor_divide ? wrap_sub(T(0), a) : T(0);  // INT_MIN // -1 wraps
      T q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) {
        q -= 1;
        m += b;
      }
      return O == op::floor_divide ? q : m;
    }
  }
  else if constexpr (O == op::power) {
    if constexpr (F) {  // numpy's fast paths for a scalar exponent; jetfuse takes them for any exponent
      if (b == T(2)) return a * a;
      if (b == T(0.5)) return std::sqrt(a);
      if (b == T(-1)) return T(1) / a;
      return T(std::pow(a, b));
    }
    else {
      if (b < 0) return T(0);  // numpy raises; jetfuse documents 0
      T r = 1;
      for (T e = 0; e < b && e < 200; ++e) r = wrap_mul(r, a);  // long exponents only matter for 0, 1, -1, even bases
      if (b >= 200) {  // exact by repeated squaring for the rare huge exponents
        unsigned_t<T> x = static_cast<unsigned_t<T>>(a), acc = 1;
        for (unsigned_t<T> e = static_cast<unsigned_t<T>>(b); e; e >>= 1, x *= x)
          if (e & 1) acc *= x;
        r = static_cast<T>(acc);
      }
      return r;
    }
  }
  else if constexpr (O == op::arctan2) return std::atan2(a, b);
  else if constexpr (O == op::hypot) return std::hypot(a, b);
  else if constexpr (O == op::minimum) { if constexpr (F) { if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b; } return a < b ? a : b; }
  else if constexpr (O == op::maximum) { if constexpr (F) { if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b; } return a > b ? a : b; }
  else if constexpr (O == op::fmin) { if constexpr (F) return std::fmin(a, b); else return a < b ? a : b; }
  else if constexpr (O == op::fmax) { if constexpr (F) return std::fmax(a, b); else return a > b ? a : b; }
  else if constexpr (O == op::bitwise_and) { if constexpr (B) return bool(a && b); else return T(a & b); }
  else if constexpr (O == op::bitwise_or) { if constexpr (B) return bool(a || b); else return T(a | b); }
  else if constexpr (O == op::bitwise_xor) { if constexpr (B) return bool(a != b); else return T(a ^ b); }
  else if constexpr (O == op::left_shift) {
    if (b < 0 || b >= T(sizeof(T) * 8)) return T(0);
    return static_cast<T>(static_cast<unsigned_t<T>>(a) << b);
  }
  else if constexpr (O == op::right_shift) {
    if (b < 0 || b >= T(sizeof(T) * 8)) return a < 0 ? T(-1) : T(0);
    return T(a >> b);  // arithmetic shift (C++20)
  }
  else if constexpr (O == op::equal) return a == b;
  else if constexpr (O == op::not_equal) return a != b;
  else if constexpr (O == op::less) return a < b;
  else if constexpr (O == op::less_equal) return a <= b;
  else if constexpr (O == op::greater) return a > b;
  else if constexpr (O == op::greater_equal) return a >= b;
  else if constexpr (O == op::logical_and) return bool(a) && bool(b);
  else if constexpr (O == op::logical_or) return bool(a) || bool(b);
}

// The front-end spelling of each operation: operators where C++ has one, else jf:: functions.
template <jf::op O> auto front(const auto& a) {
  using jf::op;
  if constexpr (O == op::negative) return -a;
  else if constexpr (O == op::absolute) return jf::abs(a);
  else if constexpr (O == op::sqrt) return jf::sqrt(a);
  else if constexpr (O == op::cbrt) return jf::cbrt(a);
  else if constexpr (O == op::exp) return jf::exp(a);
  else if constexpr (O == op::exp2) return jf::exp2(a);
  else if constexpr (O == op::expm1) return jf::expm1(a);
  else if constexpr (O == op::log) return jf::log(a);
  else if constexpr (O == op::log2) return jf::log2(a);
  else if constexpr (O == op::log10) return jf::log10(a);
  else if constexpr (O == op::log1p) return jf::log1p(a);
  else if constexpr (O == op::sin) return jf::sin(a);
  else if constexpr (O == op::cos) return jf::cos(a);
  else if constexpr (O == op::tan) return jf::tan(a);
  else if constexpr (O == op::arcsin) return jf::arcsin(a);
  else if constexpr (O == op::arccos) return jf::arccos(a);
  else if constexpr (O == op::arctan) return jf::arctan(a);
  else if constexpr (O == op::sinh) return jf::sinh(a);
  else if constexpr (O == op::cosh) return jf::cosh(a);
  else if constexpr (O == op::tanh) return jf::tanh(a);
  else if constexpr (O == op::arcsinh) return jf::arcsinh(a);
  else if constexpr (O == op::arccosh) return jf::arccosh(a);
  else if constexpr (O == op::arctanh) return jf::arctanh(a);
  else if constexpr (O == op::rint) return jf::rint(a);
  else if constexpr (O == op::square) return jf::square(a);
  else if constexpr (O == op::reciprocal) return jf::reciprocal(a);
  else if constexpr (O == op::floor) return jf::floor(a);
  else if constexpr (O == op::ceil) return jf::ceil(a);
  else if constexpr (O == op::trunc) return jf::trunc(a);
  else if constexpr (O == op::sign) return jf::sign(a);
  else if constexpr (O == op::isnan) return jf::isnan(a);
  else if constexpr (O == op::isinf) return jf::isinf(a);
  else if constexpr (O == op::isfinite) return jf::isfinite(a);
  else if constexpr (O == op::logical_not) return !a;
  else if constexpr (O == op::invert) return ~a;
}

template <jf::op O> auto front(const auto& a, const auto& b) {
  using jf::op;
  if constexpr (O == op::add) return a + b;
  else if constexpr (O == op::subtract) return a - b;
  else if constexpr (O == op::multiply) return a * b;
  else if constexpr (O == op::true_divide) return a / b;
  else if constexpr (O == op::floor_divide) return jf::floor_divide(a, b);
  else if constexpr (O == op::remainder) return a % b;
  else if constexpr (O == op::power) return jf::power(a, b);
  else if constexpr (O == op::arctan2) return jf::arctan2(a, b);
  else if constexpr (O == op::hypot) return jf::hypot(a, b);
  else if constexpr (O == op::minimum) return jf::minimum(a, b);
  else if constexpr (O == op::maximum) return jf::maximum(a, b);
  else if constexpr (O == op::fmin) return jf::fmin(a, b);
  else if constexpr (O == op::fmax) return jf::fmax(a, b);
  else if constexpr (O == op::bitwise_and) return a & b;
  else if constexpr (O == op::bitwise_or) return a | b;
  else if constexpr (O == op::bitwise_xor) return a ^ b;
  else if constexpr (O == op::left_shift) return a << b;
  else if constexpr (O == op::right_shift) return a >> b;
  else if constexpr (O == op::equal) return a == b;
  else if constexpr (O == op::not_equal) return a != b;
  else if constexpr (O == op::less) return a < b;
  else if constexpr (O == op::less_equal) return a <= b;
  else if constexpr (O == op::greater) return a > b;
  else if constexpr (O == op::greater_equal) return a >= b;
  else if constexpr (O == op::logical_and) return a && b;
  else if constexpr (O == op::logical_or) return a || b;
}

// Whether the math library decides the result (compared within a few ulps).
constexpr bool is_libm(jf::op o) { return jf::info(o).rule == jf::op_rule::float_fn && o != jf::op::rint; }

// Value ranges that exercise each operation (shift counts around the width, small exponents).
template <jf::op O> constexpr double lo_of() {
  if constexpr (O == jf::op::left_shift || O == jf::op::right_shift) return -3;
  if constexpr (O == jf::op::power) return -2;
  return -1000;
}
template <jf::op O> constexpr double hi_of() {
  if constexpr (O == jf::op::left_shift || O == jf::op::right_shift) return 70;
  if constexpr (O == jf::op::power) return 12;
  return 1000;
}

}  // namespace cpu_test
