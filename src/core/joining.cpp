// numpy.concatenate and numpy.stack (joining.hpp): the result allocated once, each operand
// copied into its slice of it by detail::assign (a strided copy on the operands' backend).
#include "jetfuse/joining.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "jetfuse/errors.hpp"
#include "jetfuse/views.hpp"

namespace jf::detail {

namespace {

void check_operands(const array_base* arrays, int n, const char* what) {
  if (n == 0) throw value_error(std::string("need at least one array to ") + what);
  for (int k = 0; k < n; ++k) {
    if (arrays[k].is_null())
      throw value_error(std::string("jf::") + what + ": the array at index " + std::to_string(k) +
                        " is a null handle (default-constructed)");
    if (arrays[k].device() != arrays[0].device())
      throw backend_mismatch(std::string("jf::") + what + ": the array at index 0 is on " +
                             to_string(arrays[0].device()) + " and the array at index " + std::to_string(k) + " on " +
                             to_string(arrays[k].device()) + "; move them with jf::to_backend");
  }
}

}  // namespace

array_base concatenate(const array_base* arrays, int n, int axis) {
  check_operands(arrays, n, "concatenate");
  const int nd = arrays[0].ndim();
  if (nd == 0) throw value_error("zero-dimensional arrays cannot be concatenated");
  if (axis < -nd || axis >= nd)
    throw axis_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(nd));
  if (axis < 0) axis += nd;
  shape_t sh = arrays[0].shape();
  for (int k = 1; k < n; ++k) {
    const array_base& a = arrays[k];
    if (a.ndim() != nd)
      throw value_error("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                        std::to_string(nd) + " dimension(s) and the array at index " + std::to_string(k) + " has " +
                        std::to_string(a.ndim()) + " dimension(s)");
    for (int d = 0; d < nd; ++d) {
      if (d == axis || a.shape()[d] == sh[d]) continue;
      throw value_error("all the input array dimensions except for the concatenation axis must match exactly, but "
                        "along dimension " + std::to_string(d) + ", the array at index 0 has size " +
                        std::to_string(arrays[0].shape()[d]) + " and the array at index " + std::to_string(k) +
                        " has size " + std::to_string(a.shape()[d]));
    }
    if (__builtin_add_overflow(sh[axis], a.shape()[axis], &sh[axis])) throw shape_error(array_too_big_message);
  }
  array_base out = make_array(arrays[0].device(), arrays[0].dtype(), sh);
  std::vector<index_arg> args(static_cast<std::size_t>(nd), index_arg(all));
  std::int64_t at = 0;
  for (int k = 0; k < n; ++k) {
    const std::int64_t len = arrays[k].shape()[axis];
    if (len == 0) continue;
    args[static_cast<std::size_t>(axis)] = index_arg(range(at, at + len));
    assign(slice(out, args.data(), nd), arrays[k]);
    at += len;
  }
  return out;
}

array_base concatenate_flat(const array_base* arrays, int n) {
  check_operands(arrays, n, "concatenate");
  std::vector<array_base> flat;
  flat.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) flat.push_back(reshape(arrays[k], shape_t{-1}));
  return concatenate(flat.data(), n, 0);
}

array_base stack(const array_base* arrays, int n, int axis) {
  check_operands(arrays, n, "stack");
  for (int k = 1; k < n; ++k)
    if (!(arrays[k].shape() == arrays[0].shape())) throw value_error("all input arrays must have the same shape");
  std::vector<array_base> expanded;
  expanded.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) expanded.push_back(expand_dims(arrays[k], &axis, 1));
  return concatenate(expanded.data(), n, axis < 0 ? axis + arrays[0].ndim() + 1 : axis);
}

namespace {

int normalized_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim)
    throw axis_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

void require_array(const array_base& a, const char* what) {
  if (a.is_null()) throw value_error(std::string("jf::") + what + ": the array is a null handle (default-constructed)");
}

}  // namespace

array_base roll(const array_base& a, std::int64_t shift, int axis, bool flat) {
  require_array(a, "roll");
  if (flat) return reshape(roll(reshape(a, shape_t{-1}), shift, 0, false), a.shape());
  const int ax = normalized_axis(axis, a.ndim());
  const std::int64_t n = a.shape()[ax];
  if (n == 0) return to_backend(a, a.device());
  const std::int64_t k = ((shift % n) + n) % n;  // Python's modulo: 0 <= k < n
  if (k == 0) return to_backend(a, a.device());
  // The last k elements first, then the others.
  std::vector<index_arg> tail(static_cast<std::size_t>(a.ndim()), index_arg(all)), head = tail;
  tail[static_cast<std::size_t>(ax)] = index_arg(range(n - k, n));
  head[static_cast<std::size_t>(ax)] = index_arg(range(0, n - k));
  const array_base parts[2] = {slice(a, tail.data(), a.ndim()), slice(a, head.data(), a.ndim())};
  return concatenate(parts, 2, ax);
}

array_base tile(const array_base& a, const shape_t& reps) {
  require_array(a, "tile");
  for (std::int64_t r : reps)
    if (r < 0) throw value_error("negative dimensions are not allowed");
  const int d = std::max(a.ndim(), reps.size());
  if (2 * d > max_ndim) throw shape_error("jf::tile: more than " + std::to_string(max_ndim / 2) + " dimensions are not supported");
  // a as (1, s0, 1, s1, ...) broadcast to (r0, s0, r1, s1, ...), copied, then merged pairwise.
  shape_t wide, target, result;
  strides_t st;
  for (int k = 0; k < d; ++k) {
    const int ka = k - (d - a.ndim()), kr = k - (d - reps.size());
    const std::int64_t s = ka >= 0 ? a.shape()[ka] : 1, r = kr >= 0 ? reps[kr] : 1;
    wide.push_back(1);
    st.push_back(0);
    wide.push_back(s);
    st.push_back(ka >= 0 ? a.strides()[ka] : 0);
    target.push_back(r);
    target.push_back(s);
    std::int64_t rs = 0;
    if (__builtin_mul_overflow(r, s, &rs)) throw shape_error(array_too_big_message);
    result.push_back(rs);
  }
  (void)result.product();  // numpy's "array is too big" for an impossible result
  const array_base view(a.buffer(), a.dtype(), wide, st, a.offset());
  return reshape(to_backend(broadcast_to(view, target), a.device()), result);
}

array_base repeat(const array_base& a, std::int64_t repeats, int axis, bool flat) {
  require_array(a, "repeat");
  if (repeats < 0) throw value_error("negative dimensions are not allowed");
  if (flat) return repeat(reshape(a, shape_t{-1}), repeats, 0, false);
  const int ax = normalized_axis(axis, a.ndim());
  if (a.ndim() + 1 > max_ndim) throw shape_error("jetfuse arrays have at most 8 dimensions");
  // a with an axis of length 1 after `axis`, broadcast to `repeats`, copied, then merged with it.
  shape_t wide, target, result;
  strides_t st;
  for (int k = 0; k < a.ndim(); ++k) {
    wide.push_back(a.shape()[k]);
    st.push_back(a.strides()[k]);
    target.push_back(a.shape()[k]);
    result.push_back(a.shape()[k]);
    if (k == ax) {
      wide.push_back(1);
      st.push_back(0);
      target.push_back(repeats);
      if (__builtin_mul_overflow(a.shape()[k], repeats, &result[k])) throw shape_error(array_too_big_message);
    }
  }
  (void)result.product();
  const array_base view(a.buffer(), a.dtype(), wide, st, a.offset());
  return reshape(to_backend(broadcast_to(view, target), a.device()), result);
}

}  // namespace jf::detail
