// x(i, j) where an indexed axis of x is empty (numpy's x[i, j]): nothing may be read, so the
// indices are checked on the host with numpy's messages (expr/take.hpp, detail::raise_for_empty_axis).
#include <string>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

void raise_for_empty_axis(const shape_t& x, const array_base& i, const array_base& j) {
  shape_t s;
  try {
    s = broadcast_shapes(i.shape(), j.shape());
  } catch (const shape_error&) {
    throw index_error("shape mismatch: indexing arrays could not be broadcast together with shapes " +
                      to_string(i.shape()) + " " + to_string(j.shape()) + " ");
  }
  if (s.product() == 0) return;  // nothing selected: an empty result
  // numpy checks i's indices, then j's, each in its own order.
  const array_base* index[2] = {&i, &j};
  for (int axis = 0; axis < 2; ++axis) {
    const std::vector<std::int64_t> v = array<std::int64_t>(detail::to_backend(*index[axis], cpu)).to_vector();
    const std::int64_t n = x[axis];
    for (std::int64_t k : v)
      if (k < -n || k >= n)
        throw index_error("index " + std::to_string(k) + " is out of bounds for axis " + std::to_string(axis) +
                          " with size " + std::to_string(n));
  }
  throw error("jetfuse: internal: x(i, j) of an empty axis with every index in range");
}

}  // namespace jf::detail
