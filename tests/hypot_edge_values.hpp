// Operands of hypot at the top of the float range, where CUDA's own hypot rounds finite results up
// to inf (GPU fuzzer seed 291150: hypot(DBL_MAX, 1) was inf), and numpy's results for them.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

namespace hypot_edges {

template <class T>
struct cases {
  static constexpr T max = std::numeric_limits<T>::max(), inf = std::numeric_limits<T>::infinity();
  const std::vector<T> a = {max, max, max, -max, T(1), max, max / 2, T(3e37), inf, -inf, T(0), max};
  const std::vector<T> b = {T(1),    T(0),    max,  T(-9.2e18),    -max, inf,
                            max / 2, T(4e37), T(1), std::nanf(""), T(0), T(1e-30)};
  // numpy's np.hypot(a, b) where it is exact at the ends of the range (-1: not asserted here).
  const std::vector<T> want = {max, max, inf, max, max, inf, T(-1), T(-1), inf, inf, T(0), max};
};

}  // namespace hypot_edges
