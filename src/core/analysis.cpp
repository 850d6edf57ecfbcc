// Broadcasting, effective strides, layouts, aliasing and overlap: shared by both backends.
#include <algorithm>
#include <string>

#include "jetfuse/detail/engine.hpp"

namespace jf::detail {

device common_device(const array_base* const* arrays, int n, const array_base* outputs, int nout) {
  const array_base* first = nullptr;
  auto check = [&](const array_base& a) {
    if (a.is_null()) return;  // an output to allocate (leaves are checked below)
    if (!first) {
      first = &a;
    } else if (a.device() != first->device()) {
      throw backend_mismatch("jetfuse: an expression mixes arrays on " + to_string(first->device()) + " and " +
                             to_string(a.device()) + "; move data explicitly with jf::to_backend(x, device)");
    }
  };
  for (int i = 0; i < n; ++i) {
    // A null handle has no buffer: reading it would dereference null (numpy has no such object).
    if (arrays[i]->is_null())
      throw value_error("jetfuse: array operand " + std::to_string(i + 1) +
                        " of the expression (counting array operands left to right from 1) is a null array handle; "
                        "create the array first (jf::zeros, jf::empty, ...) or assign an expression to it");
    check(*arrays[i]);
  }
  for (int i = 0; i < nout; ++i) check(outputs[i]);
  return first ? first->device() : cpu;
}

shape_t broadcast_leaves(const array_base* const* arrays, int n) {
  shape_t s;
  for (int i = 0; i < n; ++i) {
    const shape_t& si = arrays[i]->shape();
    // Equal shapes broadcast to themselves (the common case; an existing array's shape is valid).
    if (i == 0 || si == s)
      s = si;
    else
      s = broadcast_shapes(s, si);
  }
  return s;
}

strides_t effective_strides(const array_base& a, const shape_t& iter) {
  const int r = iter.size(), lead = r - a.ndim();
  if (lead < 0)
    throw shape_error("jetfuse: an array of shape " + to_string(a.shape()) + " does not broadcast to " + to_string(iter));
  strides_t s = shape_t::of_rank(r, 0);
  for (int k = lead; k < r; ++k) {
    const std::int64_t ext = a.shape()[k - lead];
    if (ext == 1) continue;  // one element along this axis: stride 0
    if (ext != iter[k])
      throw shape_error("jetfuse: an array of shape " + to_string(a.shape()) + " does not broadcast to " + to_string(iter));
    s[k] = a.strides()[k - lead];
  }
  return s;
}

ir::layout classify(const strides_t& eff, const shape_t& iter) {
  if (iter.product() <= 1) return ir::layout::contiguous;
  bool all_zero = true, contiguous = true;
  std::int64_t expect = 1;
  for (int k = iter.size() - 1; k >= 0; --k) {
    if (iter[k] == 1) continue;
    if (eff[k] != 0) all_zero = false;
    if (eff[k] != expect) contiguous = false;
    expect *= iter[k];
  }
  if (contiguous) return ir::layout::contiguous;
  return all_zero ? ir::layout::scalar : ir::layout::strided;
}

namespace {
// [first, last] byte addresses an array touches (empty arrays touch nothing).
bool byte_span(const array_base& a, std::uintptr_t& lo, std::uintptr_t& hi) {
  if (a.is_null() || a.size() == 0) return false;
  std::int64_t mn = 0, mx = 0;
  for (int k = 0; k < a.ndim(); ++k) {
    const std::int64_t span = (a.shape()[k] - 1) * a.strides()[k];
    (span < 0 ? mn : mx) += span;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(detail::address_of(a));
  const std::int64_t item = size_of(a.dtype());
  lo = base + static_cast<std::uintptr_t>(mn * item);
  hi = base + static_cast<std::uintptr_t>(mx * item + item - 1);
  return true;
}
}  // namespace

bool may_overlap(const array_base& a, const array_base& b) {
  if (a.is_null() || b.is_null() || a.device() != b.device()) return false;
  if (a.buffer()->source != buffer_source::memory || b.buffer()->source != buffer_source::memory) return false;
  std::uintptr_t alo, ahi, blo, bhi;
  if (!byte_span(a, alo, ahi) || !byte_span(b, blo, bhi)) return false;
  return alo <= bhi && blo <= ahi;
}

bool same_elements(const array_base& a, const array_base& b, const shape_t& iter) {
  if (detail::address_of(a) != detail::address_of(b) || a.dtype() != b.dtype() || a.device() != b.device())
    return false;
  return effective_strides(a, iter) == effective_strides(b, iter);
}

std::vector<array_base> described_outputs(const array_base* outputs, const dtype* out_types, int nout, const shape_t& shape) {
  std::vector<array_base> outs;
  for (int o = 0; o < nout; ++o)
    outs.push_back(outputs[o].is_null() ? array_base(nullptr, out_types[o], shape, contiguous_strides(shape), 0) : outputs[o]);
  return outs;
}

void specialise_scalars(const scalar_slot* scalars, int n, std::vector<bool>& specialised, std::vector<std::int32_t>& key) {
  constexpr int max_specialised_exponent = 16;
  specialised.assign(static_cast<std::size_t>(n), false);
  for (int s = 0; s < n; ++s) {
    const scalar_slot& sc = scalars[s];
    const bool spec = sc.exponent && sc.value == static_cast<double>(static_cast<std::int64_t>(sc.value)) &&
                      sc.value >= -max_specialised_exponent && sc.value <= max_specialised_exponent;
    specialised[static_cast<std::size_t>(s)] = spec;
    if (sc.identity) {  // a user function's id: its kernels differ from another's
      key.push_back(-1);
      key.push_back(static_cast<std::int32_t>(sc.bits));
      continue;
    }
    key.push_back(spec ? static_cast<std::int32_t>(sc.value) : 1000 + sc.outside);
  }
}

shape_t prepare_outputs(array_base* outputs, const dtype* out_types, int nout, const shape_t& value_shape,
                        device dev) {
  for (int o = 0; o < nout; ++o) {
    array_base& out = outputs[o];
    if (out.is_null()) {
      out = make_array(dev, out_types[o], value_shape);
      continue;
    }
    if (out.device() != dev)
      throw backend_mismatch("jetfuse: cannot write a result computed on " + to_string(dev) + " into an array on " +
                             to_string(out.device()) + "; use jf::to_backend");
    require_writable(out);
    if (value_shape == out.shape()) continue;  // the common case: nothing to broadcast
    shape_t b;
    try {
      b = broadcast_shapes(value_shape, out.shape());
    } catch (const shape_error&) {
      b = shape_t{};
    }
    if (!(b == out.shape()))
      throw shape_error("jetfuse: cannot assign a value of shape " + to_string(value_shape) + " to an array of shape " +
                        to_string(out.shape()));
  }
  for (int o = 1; o < nout; ++o)
    if (!(outputs[o].shape() == outputs[0].shape()))
      throw shape_error("jetfuse: outputs of one evaluation have shapes " + to_string(outputs[0].shape()) + " and " +
                        to_string(outputs[o].shape()));
  return nout > 0 ? outputs[0].shape() : value_shape;
}

}  // namespace jf::detail
