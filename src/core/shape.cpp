// Shape helpers: numpy's shape text, broadcasting and C-order strides.
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
  return r;
}

strides_t contiguous_strides(const shape_t& s) {
  strides_t st = strides_t::of_rank(s.size());
  std::int64_t acc = 1;
  for (int i = s.size() - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i] > 0 ? s[i] : 1;  // keep strides meaningful for empty shapes
  }
  return st;
}

}  // namespace jf
