// Small fixed-capacity index vectors for shapes and strides (no allocation on the hot path).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "jetfuse/errors.hpp"

namespace jf {

inline constexpr int max_ndim = 8;

// numpy's message for a shape whose size in bytes (or elements) exceeds the largest signed 64-bit
// integer: no array can have it, since its strides would not fit.
inline constexpr const char* array_too_big_message =
    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.";

class shape_t {
public:
  constexpr shape_t() = default;
  // shape_t{3, 4} from integers of any type (std::size_t included, without narrowing errors);
  // a value above INT64_MAX throws shape_error (numpy's "Maximum allowed dimension exceeded").
  template <class... I>
    requires(sizeof...(I) > 0 && ((std::is_integral_v<I> && !std::is_same_v<I, bool>) && ...))
  constexpr shape_t(I... v) {
    if (sizeof...(I) > max_ndim) throw shape_error("jetfuse arrays have at most 8 dimensions");
    (append(v), ...);
  }
  static shape_t of_rank(int n, std::int64_t fill = 0) {
    if (n < 0 || n > max_ndim) throw shape_error("jetfuse arrays have at most 8 dimensions");
    shape_t s;
    s.n_ = n;
    for (int i = 0; i < n; ++i) s.d_[i] = fill;
    return s;
  }
  constexpr int size() const { return n_; }
  constexpr std::int64_t operator[](int i) const { return d_[i]; }
  constexpr std::int64_t& operator[](int i) { return d_[i]; }
  constexpr const std::int64_t* begin() const { return d_.data(); }
  constexpr const std::int64_t* end() const { return d_.data() + n_; }
  void push_back(std::int64_t x) {
    if (n_ == max_ndim) throw shape_error("jetfuse arrays have at most 8 dimensions");
    d_[n_++] = x;
  }
  // `scale` times the product of the entries with zeros counted as one (numpy's measure of a shape:
  // the span of its C-order strides); false, never a wrapped value, when it exceeds INT64_MAX.
  constexpr bool extent(std::int64_t scale, std::int64_t& out) const {
    std::int64_t p = scale;
    for (int i = 0; i < n_; ++i)
      if (d_[i] != 0 && __builtin_mul_overflow(p, d_[i], &p)) return false;
    out = p;
    return true;
  }
  // The number of elements (the product of the entries). A shape whose non-zero entries multiply
  // beyond INT64_MAX throws shape_error (numpy's "array is too big"): no array has it.
  constexpr std::int64_t product() const {
    std::int64_t p = 0;
    if (!extent(1, p)) throw shape_error(array_too_big_message);
    for (int i = 0; i < n_; ++i)
      if (d_[i] == 0) return 0;
    return p;
  }
  friend bool operator==(const shape_t& a, const shape_t& b) {
    if (a.n_ != b.n_) return false;
    for (int i = 0; i < a.n_; ++i)
      if (a.d_[i] != b.d_[i]) return false;
    return true;
  }

private:
  template <class I> constexpr void append(I x) {
    if constexpr (std::is_unsigned_v<I>)
      if (x > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw shape_error("Maximum allowed dimension exceeded");  // numpy's words
    d_[n_++] = static_cast<std::int64_t>(x);
  }

  std::array<std::int64_t, max_ndim> d_{};
  int n_ = 0;
};
using strides_t = shape_t;  // strides in elements, as numpy's strides divided by the itemsize

// numpy's "(3, 4)" / "(5,)" / "()".
std::string to_string(const shape_t& s);

// The bytes of a C-order array of `shape` with elements of `itemsize` bytes, checked as numpy does
// before any allocation: a negative entry, or a size beyond INT64_MAX bytes (zero entries counted
// as one, so that every stride fits), throws shape_error. The one place byte counts are computed.
std::size_t checked_nbytes(const shape_t& shape, std::size_t itemsize);

// numpy broadcasting of two shapes; throws shape_error naming both (or numpy's "broadcast
// dimensions too large." when the result's size would not fit).
shape_t broadcast_shapes(const shape_t& a, const shape_t& b);

// Row-major (C-order) strides of a shape (shape_error when they would not fit).
strides_t contiguous_strides(const shape_t& s);

}  // namespace jf
