// A C++ scalar written into elements of dtype T (x = v, x(jf::range(...)) = v, x(i, j) = v of one
// element, x(mask) = v): numpy's conversion for assignment. An integer outside an integer T is
// numpy's OverflowError (jf::dtype_error), raised before anything is written; a float into an
// integer T is truncated (2.9 -> 2) and then checked the same way (NaN: numpy's ValueError,
// jf::value_error; infinity: OverflowError); an integer into a float T is the nearest value, into
// bool its truth.
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

template <class T, class S>
T assigned_value(S s) {
  constexpr bool integer_target = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  if constexpr (integer_target && std::is_integral_v<S> && !std::is_same_v<S, bool>) {
    if (!std::in_range<T>(s)) throw_scalar_out_of_bounds(std::to_string(s), dtype_v<T>);
    return static_cast<T>(s);
  } else if constexpr (integer_target && std::is_floating_point_v<S>) {
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
    return ops::jf_cast<T>(s);
  }
}

// numpy.full and full_like's conversion (copyto with unsafe casting): an integer outside an
// integer T is numpy's OverflowError as in assignment, but a float is cast unsafely
// (jf::ops::jf_cast: 1e20 and NaN into int32 give its minimum, as numpy on x86-64).
template <class T, class S>
T filled_value(S s) {
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>)
    return assigned_value<T>(s);
  else
    return ops::jf_cast<T>(s);
}

}  // namespace jf::detail
