// numpy.sort, numpy.argsort and numpy.unique (sorting.hpp): numpy's checks and messages, the axis
// moved last (a view: every row is then one segment to order), the result arrays; the backends
// (core/sort_backends.hpp) order the rows.
#include <cstdint>
#include <string>

#include "core/sort_backends.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/views.hpp"

namespace jf::detail {

namespace {

void require_array(const array_base& a, const char* what) {
  if (a.is_null()) throw value_error(std::string("jf::") + what + ": the array is a null handle (default-constructed)");
}

// numpy's normalize_axis_index.
int normalized_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim)
    throw axis_error("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                     std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

bool on_gpu(const array_base& a) { return a.device().kind == device_kind::cuda; }

}  // namespace

array_base sort(const array_base& a, int axis, bool flat) {
  require_array(a, "sort");
  const array_base x = flat ? reshape(a, shape_t{-1}) : a;
  const int ax = normalized_axis(axis, x.ndim());  // a 0-d x with an axis: numpy's AxisError
  array_base out = make_array(x.device(), x.dtype(), x.shape());
  if (out.size() == 0) return out;
  if (x.shape()[ax] == 1) {
    assign(out, x);
    return out;
  }
  const array_base in_rows = moveaxis(x, ax, -1), out_rows = moveaxis(out, ax, -1);
  if (on_gpu(x))
    sorting::cuda_sort_rows(in_rows, out_rows);
  else
    sorting::cpu_sort_rows(in_rows, out_rows);
  return out;
}

array_base argsort(const array_base& a, int axis, bool flat) {
  require_array(a, "argsort");
  // numpy sorts a 0-d array as a 1-d one of one element (the axis is checked against 1).
  const array_base x = flat ? reshape(a, shape_t{-1}) : a.ndim() == 0 ? reshape(a, shape_t{1}) : a;
  const int ax = normalized_axis(axis, x.ndim());
  if (x.size() == 0 || x.shape()[ax] == 1) {
    const std::int64_t zero = 0;
    return fill(x.device(), dtype::int64, x.shape(), &zero);
  }
  array_base out = make_array(x.device(), dtype::int64, x.shape());
  const array_base in_rows = moveaxis(x, ax, -1), out_rows = moveaxis(out, ax, -1);
  if (on_gpu(x))
    sorting::cuda_argsort_rows(in_rows, out_rows);
  else
    sorting::cpu_argsort_rows(in_rows, out_rows);
  return out;
}

unique_parts unique(const array_base& a, bool equal_nan, bool indices, bool inverse, bool counts) {
  require_array(a, "unique");
  if (a.size() == 0) {
    unique_parts p;
    p.values = make_array(a.device(), a.dtype(), shape_t{0});
    if (indices) p.indices = make_array(a.device(), dtype::int64, shape_t{0});
    if (inverse) p.inverse = make_array(a.device(), dtype::int64, a.shape());
    if (counts) p.counts = make_array(a.device(), dtype::int64, shape_t{0});
    return p;
  }
  return on_gpu(a) ? sorting::cuda_unique(a, equal_nan, indices, inverse, counts)
                   : sorting::cpu_unique(a, equal_nan, indices, inverse, counts);
}

}  // namespace jf::detail
