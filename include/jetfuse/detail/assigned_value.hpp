// numpy's conversions of a C++ scalar (numpy: a Python scalar) into dtype T, one place for all:
// cast_scalar for a weak scalar in an operation (detail::convert_scalar) and for jf::full /
// full_like; assigned_value for assignment (x = v, x(jf::range(...)) = v, x(i) = v of one element,
// x(mask) = v). An integer outside an integer T is numpy's OverflowError (jf::dtype_error), raised
// before anything is written; in assignment a float into an integer T is truncated (2.9 -> 2) and
// then checked the same way (NaN: numpy's ValueError, jf::value_error; infinity: OverflowError).
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "jetfuse/dtype.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::detail {

// numpy's OverflowError for a weak integer outside the dtype it is used at: jf::dtype_error
// ("Python integer 1099511627776 out of bounds for int32").
[[noreturn]] void throw_scalar_out_of_bounds(const std::string& value, dtype target);

// A Python scalar's conversion for an operation or numpy.full / full_like (copyto with unsafe
// casting): an integer outside an integer T is numpy's OverflowError; anything else is numpy's
// unsafe cast (jf::ops::jf_cast: 1.5 -> 1; 1e20 and NaN into int32 give its minimum, as numpy on
// x86-64).
template <class T, class S>
T cast_scalar(S s) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_integral_v<S> && !std::is_same_v<S, bool>)
    if (!std::in_range<T>(s)) throw_scalar_out_of_bounds(std::to_string(s), dtype_v<T>);
  return ops::jf_cast<T>(s);
}

// Assignment's conversion (numpy's setitem): as cast_scalar, but a float into an integer T is
// truncated and then checked.
template <class T, class S>
T assigned_value(S s) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_floating_point_v<S>) {
    // numpy makes the float a Python int first (truncating), then checks it, with its messages.
    if (std::isnan(s)) throw value_error("cannot convert float NaN to integer");
    if (std::isinf(s)) throw dtype_error("cannot convert float infinity to integer");
    // T's range as [min, 2^digits): both powers of two (or 0), exact in any floating type.
    const long double t = std::trunc(static_cast<long double>(s));
    if (t < static_cast<long double>(std::numeric_limits<T>::min()) ||
        t >= std::ldexp(1.0L, std::numeric_limits<T>::digits)) {
      if (t >= -0x1p63L && t < 0x1p63L)
        throw_scalar_out_of_bounds(std::to_string(static_cast<long long>(t)), dtype_v<T>);
      throw dtype_error("Python int too large to convert to C long");
    }
    return static_cast<T>(t);
  } else {
    return cast_scalar<T>(s);
  }
}

}  // namespace jf::detail
