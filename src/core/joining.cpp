// numpy.concatenate and numpy.stack (joining.hpp): the result allocated once, each operand
// copied into its slice of it by detail::assign (a strided copy on the operands' backend).
#include "jetfuse/joining.hpp"

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

}  // namespace jf::detail
