// numpy basic slicing arguments: an integer index, jf::range(start, stop, step), jf::all.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>

#include "jetfuse/reducers.hpp"

namespace jf {

namespace detail {
// An integer index or bound as int64_t: unsigned values above INT64_MAX saturate (past the end of
// any axis), never wrapping to a negative index that counts from the end.
template <class I>
  requires std::is_integral_v<I>
constexpr std::int64_t to_index(I v) noexcept {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  if constexpr (std::is_unsigned_v<I>)
    if (v > static_cast<std::uint64_t>(max)) return max;
  return static_cast<std::int64_t>(v);
}
}  // namespace detail

// numpy's None as a slice bound: jf::range(jf::none, jf::none, -1) is x[::-1]. A type of its own,
// so that every integer stays a legal bound (x[::-2**63] included).
struct none_t {
  constexpr explicit none_t(int) {}
};
inline constexpr none_t none{0};

// One bound of a slice: any integer, or open (jf::none). Integers above INT64_MAX clamp to it,
// which selects the same elements (a bound past the end of an axis clamps there anyway).
class slice_bound {
public:
  constexpr slice_bound(none_t) noexcept {}
  template <class I>
    requires std::is_integral_v<I>
  constexpr slice_bound(I v) noexcept : value_(detail::to_index(v)), set_(true) {}
  constexpr bool has_value() const noexcept { return set_; }
  constexpr std::int64_t operator*() const noexcept { return value_; }  // only when has_value()
  constexpr std::int64_t value_or(std::int64_t open) const noexcept { return set_ ? value_ : open; }
  friend constexpr bool operator==(const slice_bound& b, none_t) noexcept { return !b.set_; }
  friend constexpr bool operator==(const slice_bound& a, const slice_bound& b) noexcept {
    return a.set_ == b.set_ && (!a.set_ || a.value_ == b.value_);
  }
  // Python's slice text: the integer, or nothing for an open bound.
  template <class Stream>
    requires requires(Stream& s, std::int64_t v) { s << v; }
  friend Stream& operator<<(Stream& os, const slice_bound& b) {
    if (b.set_) os << b.value_;
    return os;
  }

private:
  std::int64_t value_ = 0;
  bool set_ = false;
};

// A slice start:stop:step. Negative bounds count from the end; `jf::none` (also spelled
// `jf::range::none`) leaves a bound open; an open step is 1.
struct range {
  static constexpr none_t none{0};
  slice_bound start = none, stop = none;
  std::int64_t step = 1;
  constexpr range() = default;
  constexpr range(slice_bound start_, slice_bound stop_, slice_bound step_ = 1)
      : start(start_), stop(stop_), step(step_.value_or(1)) {}
};

struct all_t {
  // jf::all(x, ...) is also numpy's all() reduction (defined in expr/reductions.hpp).
  template <class X> auto operator()(X&& x) const;
  template <class X> auto operator()(X&& x, int axis) const;
  template <class X> auto operator()(X&& x, std::initializer_list<int> axes) const;
  template <class X> auto operator()(X&& x, keepdims_t) const;
  template <class X> auto operator()(X&& x, int axis, keepdims_t) const;
  template <class X> auto operator()(X&& x, std::initializer_list<int> axes, keepdims_t) const;
};
inline constexpr all_t all{};  // numpy ':'

// One argument of x(...): an integer (removes the axis), a range, or all.
struct index_arg {
  enum class kind : std::uint8_t { index, slice } k = kind::slice;
  std::int64_t index = 0;
  range r{};
  template <class I>
    requires std::is_integral_v<I>
  constexpr index_arg(I i) : k(kind::index), index(detail::to_index(i)) {}
  constexpr index_arg(range r_) : k(kind::slice), r(r_) {}
  constexpr index_arg(all_t) : k(kind::slice) {}
};

namespace detail {
// An argument of x(...) that is an integer array or expression (numpy's advanced index), not an
// integer, a range or jf::all.
template <class A>
inline constexpr bool is_index_operand =
    !std::is_convertible_v<A, index_arg> && !std::is_arithmetic_v<std::remove_cvref_t<A>>;
template <class... A>
inline constexpr int index_operands = (0 + ... + (is_index_operand<A> ? 1 : 0));
template <class A0, class... A>
inline constexpr bool operand_then_all = is_index_operand<A0> && (std::is_same_v<std::remove_cvref_t<A>, all_t> && ...);
// The most index operands x(...) takes (numpy's 32 axes are more than any array here needs).
inline constexpr int max_index_operands = 8;
// x(args...) with index operands among integers, ranges and jf::all (numpy's mixed advanced and
// basic indexing, expr/mixed_indexing.hpp), except the forms with overloads of their own: x(i, j),
// x(i, j, k) and x(i, jf::all, ...).
template <class... A>
inline constexpr bool mixed_index_args =
    sizeof...(A) >= 2 && index_operands<A...> >= 1 && index_operands<A...> <= max_index_operands &&
    ((is_index_operand<A> || std::is_convertible_v<A, index_arg>)&&...) &&
    !(sizeof...(A) == 2 && index_operands<A...> == 2) && !(sizeof...(A) == 3 && index_operands<A...> == 3) &&
    !operand_then_all<A...>;
}  // namespace detail

}  // namespace jf
