// Shape helpers: numpy's shape text, checked byte counts, broadcasting and C-order strides.
#include <string>

#include "jetfuse/shape.hpp"

namespace jf {

std::string to_string(const shape_t& s) {
  std::string out = "(";
  for (int i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

std::size_t checked_nbytes(const shape_t& shape, std::size_t itemsize) {
  for (auto d : shape)
    if (d < 0) throw shape_error("negative dimensions are not allowed: shape " + to_string(shape));
  std::int64_t span = 0;
  if (!shape.extent(static_cast<std::int64_t>(itemsize), span)) throw shape_error(array_too_big_message);
  return static_cast<std::size_t>(shape.product()) * itemsize;
}

shape_t broadcast_shapes(const shape_t& a, const shape_t& b) {
  const int n = a.size() > b.size() ? a.size() : b.size();
  shape_t r = shape_t::of_rank(n);
  for (int i = 0; i < n; ++i) {
    // Align from the right; missing leading axes act as 1.
    const int ia = i - (n - a.size()), ib = i - (n - b.size());
    const std::int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) r[i] = da;
    else if (da == 1) r[i] = db;
    else
      throw shape_error("operands could not be broadcast together with shapes " + to_string(a) + " " + to_string(b));
  }
  // Each operand fits, but their combination may not: (2**40, 1) with (1, 2**40).
  std::int64_t span = 0;
  if (!r.extent(1, span)) throw shape_error("broadcast dimensions too large.");  // numpy's words
  return r;
}

strides_t contiguous_strides(const shape_t& s) {
  strides_t st = strides_t::of_rank(s.size());
  std::int64_t acc = 1;
  for (int i = s.size() - 1; i >= 0; --i) {
    st[i] = acc;
    // Keep strides meaningful for empty shapes: a zero entry counts as one (numpy's rule).
    if (s[i] > 1 && __builtin_mul_overflow(acc, s[i], &acc)) throw shape_error(array_too_big_message);
  }
  return st;
}

}  // namespace jf
