// Small fixed-capacity index vectors for shapes and strides (no allocation on the hot path).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "jetfuse/errors.hpp"

namespace jf {

inline constexpr int max_ndim = 8;

class shape_t {
public:
  constexpr shape_t() = default;
  shape_t(std::initializer_list<std::int64_t> v) {
    if (v.size() > max_ndim) throw shape_error("jetfuse arrays have at most 8 dimensions");
    for (auto x : v) d_[n_++] = x;
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
  // Product of the entries (the number of elements, for a shape).
  constexpr std::int64_t product() const {
    std::int64_t p = 1;
    for (int i = 0; i < n_; ++i) p *= d_[i];
    return p;
  }
  friend bool operator==(const shape_t& a, const shape_t& b) {
    if (a.n_ != b.n_) return false;
    for (int i = 0; i < a.n_; ++i)
      if (a.d_[i] != b.d_[i]) return false;
    return true;
  }

private:
  std::array<std::int64_t, max_ndim> d_{};
  int n_ = 0;
};
using strides_t = shape_t;  // strides in elements, as numpy's strides divided by the itemsize

// numpy's "(3, 4)" / "(5,)" / "()".
std::string to_string(const shape_t& s);

// numpy broadcasting of two shapes; throws shape_error naming both.
shape_t broadcast_shapes(const shape_t& a, const shape_t& b);

// Row-major (C-order) strides of a shape.
strides_t contiguous_strides(const shape_t& s);

}  // namespace jf
