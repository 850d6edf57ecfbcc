// numpy.arange and numpy.linspace: lengths computed without overflow, values written into a
// checked allocation (never a std::vector of an unchecked length), as numpy computes them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "jetfuse/array.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf {
namespace {

constexpr double two_to_63 = 9223372036854775808.0;

// numpy's arange length for floating bounds (ctors.c: _calc_length, _arange_safe_ceil_to_intp).
std::int64_t float_arange_length(double start, double stop, double step) {
  if (step == 0) throw value_error("arange: division by zero (the step is 0)");  // numpy: ZeroDivisionError
  const double delta = stop - start;
  const double q = delta / step;
  if (q == 0 && delta != 0) return std::signbit(q) ? 0 : 1;  // an underflow or a step of inf
  const double len = std::ceil(q);
  if (std::isnan(len)) throw value_error("arange: cannot compute length");
  if (!(len >= -two_to_63 && len < two_to_63)) throw value_error("Maximum allowed size exceeded");
  return len > 0 ? static_cast<std::int64_t>(len) : 0;
}

// The exact arange length for integer bounds: the distance may exceed INT64_MAX, so it is taken in
// unsigned arithmetic.
std::int64_t int_arange_length(std::int64_t start, std::int64_t stop, std::int64_t step) {
  if (step == 0) throw value_error("arange: division by zero (the step is 0)");
  if (step > 0 ? stop <= start : stop >= start) return 0;
  const std::uint64_t distance = step > 0 ? static_cast<std::uint64_t>(stop) - static_cast<std::uint64_t>(start)
                                          : static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(stop);
  const std::uint64_t magnitude = step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  const std::uint64_t len = (distance - 1) / magnitude + 1;
  if (len > static_cast<std::uint64_t>(INT64_MAX)) throw value_error("Maximum allowed size exceeded");
  return static_cast<std::int64_t>(len);
}

// The same for unsigned bounds (uint64 ones beyond INT64_MAX included).
std::int64_t uint_arange_length(std::uint64_t start, std::uint64_t stop, std::uint64_t step) {
  if (step == 0) throw value_error("arange: division by zero (the step is 0)");
  if (stop <= start) return 0;
  const std::uint64_t len = (stop - start - 1) / step + 1;
  if (len > static_cast<std::uint64_t>(INT64_MAX)) throw value_error("Maximum allowed size exceeded");
  return static_cast<std::int64_t>(len);
}

// The elements are written on the host; a GPU result is copied there afterwards.
template <class T> array<T> host_then(array<T> host, device dev) {
  return dev == cpu ? host : to_backend(host, dev);
}

}  // namespace

template <class T>
  requires(!std::is_same_v<T, bool>)
array<T> arange(T start, T stop, T step, device dev) {
  std::int64_t n = 0;
  if constexpr (std::is_floating_point_v<T>) n = float_arange_length(start, stop, step);
  else if constexpr (std::is_unsigned_v<T>) n = uint_arange_length(start, stop, step);
  else n = int_arange_length(start, stop, step);
  array<T> out = empty<T>({n}, cpu);  // checks the byte count, then allocates
  T* p = out.data();
  if constexpr (std::is_floating_point_v<T>) {
    // numpy's fill: the second element is start + step, then start + i * (second - start).
    const T second = static_cast<T>(start + step), delta = static_cast<T>(second - start);
    for (std::int64_t i = 0; i < n; ++i)
      p[i] = i == 0 ? start : i == 1 ? second : static_cast<T>(start + static_cast<T>(i) * delta);
  } else {
    // start + i * step wraps in the intermediate products only: every value is within [start, stop).
    using U = std::make_unsigned_t<T>;
    for (std::int64_t i = 0; i < n; ++i)
      p[i] = static_cast<T>(static_cast<U>(start) + static_cast<U>(i) * static_cast<U>(step));
  }
  return host_then(out, dev);
}

template <class T> array<T> linspace(double start, double stop, std::int64_t num, device dev, bool endpoint) {
  if (num < 0) throw value_error("Number of samples, " + std::to_string(num) + ", must be non-negative.");
  array<T> out = empty<T>({num}, cpu);
  T* p = out.data();
  // numpy's function_base.linspace: y = i * step + start, with step = delta / div; i / div * delta
  // when step underflows to 0, i * delta when there is no step (div <= 0); the endpoint exactly.
  const double div = endpoint ? static_cast<double>(num - 1) : static_cast<double>(num);
  const double delta = stop - start, step = div > 0 ? delta / div : 0.0;
  for (std::int64_t i = 0; i < num; ++i) {
    const double x = static_cast<double>(i);
    double y = div <= 0 ? x * delta : step == 0 ? x / div * delta : x * step;
    y += start;
    if (endpoint && num > 1 && i == num - 1) y = stop;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) y = std::floor(y);  // numpy 2 rounds down
    p[i] = ops::jf_cast<T>(y);
  }
  return host_then(out, dev);
}

#define JF_SEQUENCES(T)                                            \
  template array<T> arange(T, T, T, device);                       \
  template array<T> linspace<T>(double, double, std::int64_t, device, bool);
JF_SEQUENCES(std::int8_t)
JF_SEQUENCES(std::int16_t)
JF_SEQUENCES(std::int32_t)
JF_SEQUENCES(std::int64_t)
JF_SEQUENCES(std::uint8_t)
JF_SEQUENCES(std::uint16_t)
JF_SEQUENCES(std::uint32_t)
JF_SEQUENCES(std::uint64_t)
JF_SEQUENCES(float)
JF_SEQUENCES(double)
#undef JF_SEQUENCES
template array<bool> linspace<bool>(double, double, std::int64_t, device, bool);

}  // namespace jf
