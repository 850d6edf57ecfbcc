// numpy basic slicing arguments: an integer index, jf::range(start, stop, step), jf::all.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace jf {

// A slice start:stop:step. Negative bounds count from the end; `none` leaves a bound open.
struct range {
  static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
  std::int64_t start = none, stop = none, step = 1;
  constexpr range() = default;
  constexpr range(std::int64_t start_, std::int64_t stop_, std::int64_t step_ = 1)
      : start(start_), stop(stop_), step(step_) {}
};

struct all_t {};
inline constexpr all_t all{};  // numpy ':'

// One argument of x(...): an integer (removes the axis), a range, or all.
struct index_arg {
  enum class kind : std::uint8_t { index, slice } k = kind::slice;
  std::int64_t index = 0;
  range r{};
  template <class I>
    requires std::is_integral_v<I>
  constexpr index_arg(I i) : k(kind::index), index(static_cast<std::int64_t>(i)) {}
  constexpr index_arg(range r_) : k(kind::slice), r(r_) {}
  constexpr index_arg(all_t) : k(kind::slice) {}
};

}  // namespace jf
