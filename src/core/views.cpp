// numpy's view-returning shape functions (views.hpp): new shapes and strides over the same buffer.
#include "jetfuse/views.hpp"

#include <string>

#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {

void require(const array_base& a, const char* what) {
  if (a.is_null()) throw value_error(std::string("jf::") + what + ": the array is a null handle (default-constructed)");
}

// numpy's normalize_axis_index: AxisError for an axis outside [-ndim, ndim).
int normalize_axis(int axis, int ndim, const char* prefix = "") {
  if (axis < -ndim || axis >= ndim)
    throw axis_error(std::string(prefix) + "axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                     std::to_string(ndim));
  return axis < 0 ? axis + ndim : axis;
}

// numpy's normalize_axis_tuple: every axis normalised, repeats rejected.
void mark_axes(const int* axes, int naxes, int ndim, bool* marked) {
  for (int k = 0; k < ndim; ++k) marked[k] = false;
  for (int k = 0; k < naxes; ++k) {
    const int ax = normalize_axis(axes[k], ndim);
    if (marked[ax]) throw value_error("repeated axis");
    marked[ax] = true;
  }
}

// numpy's shape text in broadcast errors: "(3,1)", no spaces.
std::string compact(const shape_t& s) {
  std::string out = "(";
  for (int i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

array_base flip(const array_base& a, const int* axes, int naxes, bool all_axes) {
  require(a, "flip");
  bool marked[max_ndim];
  mark_axes(axes, naxes, a.ndim(), marked);
  shape_t sh = a.shape();
  strides_t st = a.strides();
  std::int64_t off = a.offset();
  bool empty = false;
  for (int k = 0; k < a.ndim(); ++k) empty = empty || sh[k] == 0;
  for (int k = 0; k < a.ndim(); ++k) {
    if (!all_axes && !marked[k]) continue;
    if (sh[k] > 1 && !empty) off += (sh[k] - 1) * st[k];  // the last element comes first
    st[k] = -st[k];
  }
  return array_base(a.buffer(), a.dtype(), sh, st, off);
}

array_base expand_dims(const array_base& a, const int* axes, int naxes) {
  require(a, "expand_dims");
  const int nd = a.ndim() + naxes;
  if (nd > max_ndim) throw shape_error("jetfuse arrays have at most 8 dimensions");
  bool marked[max_ndim];
  mark_axes(axes, naxes, nd, marked);
  shape_t sh = shape_t::of_rank(nd);
  strides_t st = strides_t::of_rank(nd);
  for (int k = 0, j = 0; k < nd; ++k) {
    if (marked[k]) {
      sh[k] = 1;
      st[k] = 0;  // never stepped (extent 1): any stride shows the same element
    } else {
      sh[k] = a.shape()[j];
      st[k] = a.strides()[j];
      ++j;
    }
  }
  return array_base(a.buffer(), a.dtype(), sh, st, a.offset());
}

array_base squeeze(const array_base& a, const int* axes, int naxes, bool all_axes) {
  require(a, "squeeze");
  bool marked[max_ndim];
  mark_axes(axes, naxes, a.ndim(), marked);
  shape_t sh;
  strides_t st;
  for (int k = 0; k < a.ndim(); ++k) {
    const bool drop = all_axes ? a.shape()[k] == 1 : marked[k];
    if (drop && a.shape()[k] != 1)
      throw value_error("cannot select an axis to squeeze out which has size not equal to one");
    if (drop) continue;
    sh.push_back(a.shape()[k]);
    st.push_back(a.strides()[k]);
  }
  return array_base(a.buffer(), a.dtype(), sh, st, a.offset());
}

array_base broadcast_to(const array_base& a, const shape_t& shape) {
  require(a, "broadcast_to");
  for (std::int64_t d : shape)
    if (d < 0) throw value_error("all elements of broadcast shape must be non-negative");
  const int nd = shape.size(), ns = a.ndim();
  if (ns > nd) throw value_error("input operand has more dimensions than allowed by the axis remapping");
  strides_t st = strides_t::of_rank(nd);
  for (int i = nd - ns; i < nd; ++i) {
    const int j = i - (nd - ns);
    if (a.shape()[j] == shape[i]) st[i] = a.strides()[j];
    else if (a.shape()[j] == 1) st[i] = 0;
    else
      throw value_error("operands could not be broadcast together with remapped shapes [original->remapped]: " +
                        compact(a.shape()) + "  and requested shape " + compact(shape));
  }
  (void)shape.product();  // numpy's "array is too big" for an impossible shape
  return array_base(a.buffer(), a.dtype(), shape, st, a.offset());
}

array_base swapaxes(const array_base& a, int axis1, int axis2) {
  require(a, "swapaxes");
  const int i = normalize_axis(axis1, a.ndim()), j = normalize_axis(axis2, a.ndim());
  shape_t perm = shape_t::of_rank(a.ndim());
  for (int k = 0; k < a.ndim(); ++k) perm[k] = k;
  perm[i] = j;
  perm[j] = i;
  return transpose(a, perm);
}

array_base moveaxis(const array_base& a, int source, int destination) {
  require(a, "moveaxis");
  const int s = normalize_axis(source, a.ndim(), "source: ");
  const int d = normalize_axis(destination, a.ndim(), "destination: ");
  shape_t perm;
  for (int k = 0; k < a.ndim(); ++k)
    if (k != s) perm.push_back(k);
  shape_t out = shape_t::of_rank(a.ndim());
  for (int k = 0, j = 0; k < a.ndim(); ++k) out[k] = k == d ? s : perm[j++];
  return transpose(a, out);
}

}  // namespace jf::detail
