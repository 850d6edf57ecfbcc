// Index pairs (numpy's x[i, j]) on the host: where an indexed axis of x is empty nothing may be
// read, so the indices are checked here with numpy's messages (expr/take.hpp,
// detail::raise_for_empty_axis); x's first two axes merged for x(i, j) = v (expr/scatter.hpp); the
// host-side checks of expr/mixed_indexing.hpp.
#include <string>
#include <vector>

#include "core/index_errors.hpp"
#include "engine/nest_analysis.hpp"
#include "jetfuse/array.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {
// numpy's "index 6 is out of bounds for axis 0 with size 6", as the kernels' records give it.
std::string out_of_bounds(std::int64_t index, int axis, std::int64_t size) {
  index_error_record r;
  r.value = index;
  r.axis = axis;
  r.size = size;
  return index_error_message(r);
}
}  // namespace

shape_t index_broadcast_shape(const shape_t* shapes, int count) { return broadcast_index_arrays(shapes, count); }

void check_indices_on_host(const shape_t& lengths, const array_base* const* index, const int* axes, int count) {
  // numpy checks the first array's indices, then the next one's, each in its own order.
  for (int a = 0; a < count; ++a) {
    const std::vector<std::int64_t> v = array<std::int64_t>(detail::to_backend(*index[a], cpu)).to_vector();
    const std::int64_t n = lengths[a];
    for (std::int64_t k : v)
      if (k < -n || k >= n) throw index_error(out_of_bounds(k, axes[a], n));
  }
}

void raise_for_empty_axes(const shape_t& x, const array_base* const* index, const int* axes, int count) {
  std::vector<shape_t> shapes;
  for (int a = 0; a < count; ++a) shapes.push_back(index[a]->shape());
  if (broadcast_index_arrays(shapes.data(), count).product() == 0) return;  // nothing selected: an empty result
  check_indices_on_host(x, index, axes, count);
  throw error("jetfuse: internal: x(i, j, ...) of an empty axis with every index in range");
}

void raise_for_empty_axis(const shape_t& x, const array_base& i, const array_base& j, int ai, int aj) {
  const array_base* index[2] = {&i, &j};
  const int axes[2] = {ai, aj};
  raise_for_empty_axes(x, index, axes, 2);
}

void raise_for_empty_take(const array_base& indices, int axis) {
  if (indices.size() == 0) return;
  const std::vector<std::int64_t> v = array<std::int64_t>(detail::to_backend(indices, cpu)).to_vector();
  throw index_error(out_of_bounds(v[0], axis, 0));
}

void check_mask_length(std::int64_t mask_length, std::int64_t axis_length, int axis) {
  if (mask_length != axis_length)
    throw index_error("boolean index did not match indexed array along axis " + std::to_string(axis) +
                      "; size of axis is " + std::to_string(axis_length) +
                      " but size of corresponding boolean axis is " + std::to_string(mask_length));
}

void check_values_fit(const shape_t& values, const shape_t& result) {
  if (!values_fit(values, result))
    throw shape_error("shape mismatch: value array of shape " + numpy_shape(values) +
                      " could not be broadcast to indexing result of shape " + numpy_shape(result));
}

array_base merged_axes(const array_base& x, int first, int count) {
  const shape_t& s = x.shape();
  const strides_t& st = x.strides();
  std::int64_t total = 1;
  for (int a = first; a < first + count; ++a) total *= s[a];
  // From the fastest axis of the range: each axis longer than 1 must step exactly over the longer
  // ones after it; the merged axis steps as the fastest of them (an empty one: any step).
  std::int64_t step = 1;
  if (total != 0) {
    bool have = false;
    std::int64_t next = 0;  // the stride the next slower axis needs
    for (int a = first + count - 1; a >= first; --a) {
      if (s[a] == 1) continue;
      if (!have) {
        step = st[a];
        have = true;
      } else if (st[a] != next) {
        return array_base();
      }
      next = st[a] * s[a];
    }
  }
  shape_t shape;
  strides_t strides;
  for (int a = 0; a < s.size(); ++a) {
    if (a > first && a < first + count) continue;
    shape.push_back(a == first ? total : s[a]);
    strides.push_back(a == first ? step : st[a]);
  }
  return array_base(x.buffer(), x.dtype(), shape, strides, x.offset());
}

array_base merged_leading_axes(const array_base& x) { return merged_axes(x, 0, 2); }

}  // namespace jf::detail
