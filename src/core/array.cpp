// The untyped dense-array core: allocation, numpy basic slicing, reshape/transpose views,
// copies between backends and numpy-style assignment with broadcasting.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/strided_copy.hpp"
#include "jetfuse/array.hpp"
#ifdef JF_HAVE_CUDA
#include "cuda/runtime.hpp"
#endif

namespace jf {

namespace {

std::size_t itemsize(dtype dt) { return static_cast<std::size_t>(size_of(dt)); }

void require_handle(const array_base& a, const char* what) {
  if (a.is_null()) throw value_error(std::string(what) + ": the array is a null handle (default-constructed)");
}

// Host address of element (0, ..., 0) of a CPU array.
std::byte* host_ptr(const array_base& a) { return static_cast<std::byte*>(detail::address_of(a)); }

// numpy's normalisation of one integer index; never wraps out-of-range values.
std::int64_t normalize_index(std::int64_t i, int axis, std::int64_t n) {
  const std::int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n)
    throw index_error("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                      " with size " + std::to_string(n));
  return j;
}

std::string too_many_indices(int ndim, int n) {
  return "too many indices for array: array is " + std::to_string(ndim) + "-dimensional, but " + std::to_string(n) +
         " were indexed";
}

template <std::size_t S>
void copy_row(std::byte* dst, std::int64_t ds, const std::byte* src, std::int64_t ss, std::int64_t n) {
  // Fixed-size memcpy compiles to one load and one store.
  for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds * std::int64_t(S), src + i * ss * std::int64_t(S), S);
}

// dst[i...] = src[i...] over `shape` on the host; strides in elements. No overlap handling.
void cpu_strided_copy(std::byte* dst, const strides_t& dst_strides, const std::byte* src, const strides_t& src_strides,
                      const shape_t& shape, std::size_t isz) {
  if (shape.product() == 0) return;
  // Drop axes of length 1 and merge axes that are contiguous with respect to each other in both
  // operands, so that the inner loop is as long as possible.
  shape_t sh;
  strides_t ds, ss;
  for (int i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    const int k = sh.size();
    if (k > 0 && ds[k - 1] == dst_strides[i] * shape[i] && ss[k - 1] == src_strides[i] * shape[i]) {
      sh[k - 1] *= shape[i];
      ds[k - 1] = dst_strides[i];
      ss[k - 1] = src_strides[i];
      continue;
    }
    sh.push_back(shape[i]);
    ds.push_back(dst_strides[i]);
    ss.push_back(src_strides[i]);
  }
  if (sh.size() == 0) {
    std::memcpy(dst, src, isz);
    return;
  }
  const int nd = sh.size();
  const std::int64_t inner = sh[nd - 1], dsi = ds[nd - 1], ssi = ss[nd - 1];
  if (nd == 1 && dsi == 1 && ssi == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(inner) * isz);
    return;
  }
  std::int64_t idx[max_ndim] = {};
  const std::int64_t outer = sh.product() / inner;
  for (std::int64_t o = 0; o < outer; ++o) {
    std::int64_t doff = 0, soff = 0;
    for (int a = 0; a < nd - 1; ++a) {
      doff += idx[a] * ds[a];
      soff += idx[a] * ss[a];
    }
    std::byte* d = dst + doff * static_cast<std::int64_t>(isz);
    const std::byte* s = src + soff * static_cast<std::int64_t>(isz);
    switch (isz) {
    case 1: copy_row<1>(d, dsi, s, ssi, inner); break;
    case 4: copy_row<4>(d, dsi, s, ssi, inner); break;
    case 8: copy_row<8>(d, dsi, s, ssi, inner); break;
    default:
      for (std::int64_t i = 0; i < inner; ++i)
        std::memcpy(d + i * dsi * static_cast<std::int64_t>(isz), s + i * ssi * static_cast<std::int64_t>(isz), isz);
    }
    for (int a = nd - 2; a >= 0; --a) {  // odometer over the outer axes
      if (++idx[a] < sh[a]) break;
      idx[a] = 0;
    }
  }
}

// a itself when contiguous, else a contiguous copy on a's own backend.
array_base contiguous_on_own_device(const array_base& a) {
  if (a.is_contiguous()) return a;
  array_base out = detail::make_array(a.device(), a.dtype(), a.shape());
  if (a.size() == 0) return out;
  if (a.device().kind == device_kind::cpu)
    cpu_strided_copy(host_ptr(out), out.strides(), host_ptr(a), a.strides(), a.shape(), itemsize(a.dtype()));
  else
    detail::cuda_strided_copy(out, a);
  return out;
}

// The absolute byte interval [lo, hi) touched by the elements of a (size > 0).
struct byte_range {
  std::uintptr_t lo, hi;
};
byte_range extent(const array_base& a) {
  const auto isz = static_cast<std::int64_t>(itemsize(a.dtype()));
  std::int64_t lo = 0, hi = 0;
  for (int i = 0; i < a.ndim(); ++i) {
    const std::int64_t span = (a.shape()[i] - 1) * a.strides()[i];
    (span < 0 ? lo : hi) += span;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(detail::address_of(a));
  return {base + static_cast<std::uintptr_t>(lo * isz), base + static_cast<std::uintptr_t>((hi + 1) * isz)};
}

// src viewed with dst_shape (numpy broadcasting for assignment: stride 0 on stretched axes).
array_base broadcast_to(const array_base& src, const shape_t& dst_shape) {
  const int nd = dst_shape.size(), ns = src.ndim();
  auto fail = [&] {
    throw shape_error("could not broadcast input array from shape " + to_string(src.shape()) + " into shape " +
                      to_string(dst_shape));
  };
  // numpy allows extra leading axes of length 1 in the source.
  for (int i = 0; i < ns - nd; ++i)
    if (src.shape()[i] != 1) fail();
  strides_t st = strides_t::of_rank(nd);
  for (int i = 0; i < nd; ++i) {
    const int j = i - (nd - ns);
    if (j < 0) continue;
    if (src.shape()[j] == dst_shape[i]) st[i] = src.strides()[j];
    else if (src.shape()[j] == 1) st[i] = 0;
    else fail();
  }
  return array_base(src.buffer(), src.dtype(), dst_shape, st, src.offset());
}

// numpy's _attempt_nocopy_reshape (C order): the strides that show the elements of an array of
// shape `old_shape` / `old_strides` with `new_shape` (same size, > 1) without a copy, when they
// exist. Groups of old axes that are contiguous with each other map to groups of new axes.
bool nocopy_strides(const shape_t& old_shape, const strides_t& old_strides, const shape_t& new_shape, strides_t& out) {
  shape_t od;  // old axes of length 1 never matter
  strides_t os;
  for (int i = 0; i < old_shape.size(); ++i)
    if (old_shape[i] != 1) {
      od.push_back(old_shape[i]);
      os.push_back(old_strides[i]);
    }
  const int oldnd = od.size(), newnd = new_shape.size();
  out = strides_t::of_rank(newnd, 0);
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < newnd && oi < oldnd) {
    std::int64_t np = new_shape[ni], op = od[oi];
    while (np != op) {  // partial products never exceed the (valid) size
      if (np < op) np *= new_shape[nj++];
      else op *= od[oj++];
    }
    for (int ok = oi; ok < oj - 1; ++ok)
      if (os[ok] != od[ok + 1] * os[ok + 1]) return false;  // these old axes do not merge
    out[nj - 1] = os[oj - 1];
    for (int nk = nj - 1; nk > ni; --nk) out[nk - 1] = out[nk] * new_shape[nk];
    ni = nj++;
    oi = oj++;
  }
  const std::int64_t last = ni >= 1 ? out[ni - 1] : 1;  // trailing axes of length 1
  for (int nk = ni; nk < newnd; ++nk) out[nk] = last;
  return true;
}

}  // namespace

// ---- array_base members ---------------------------------------------------------------------------

device array_base::device() const { return buf_ ? buf_->dev : jf::cpu; }

void* array_base::raw_data() const {
  if (!buf_) return nullptr;
  note_external(*buf_);
  return detail::address_of(*this);
}

bool array_base::is_contiguous() const {
  if (size() == 0) return true;
  std::int64_t expect = 1;
  for (int i = ndim() - 1; i >= 0; --i) {
    if (shape_[i] == 1) continue;  // the stride of a length-1 axis never matters
    if (strides_[i] != expect) return false;
    expect *= shape_[i];
  }
  return true;
}

void array_base::read_into(void* host) const {
  require_handle(*this, "read_into");
  const std::size_t isz = itemsize(dtype_);
  const std::size_t n = static_cast<std::size_t>(size());
  if (n == 0) return;
  if (device().kind == device_kind::cpu && !is_contiguous()) {
    cpu_strided_copy(static_cast<std::byte*>(host), contiguous_strides(shape_), host_ptr(*this), strides_, shape_, isz);
    return;
  }
  const array_base c = contiguous_on_own_device(*this);
  detail::copy_to_host(host, *c.buffer(), static_cast<std::size_t>(c.offset()) * isz, n * isz);
}

// ---- detail functions -----------------------------------------------------------------------------
namespace detail {

array_base make_array(device dev, dtype dt, const shape_t& shape) {
  const std::size_t bytes = checked_nbytes(shape, itemsize(dt));  // before any allocation
  // Zero-byte requests are not portable across allocators: empty arrays still own one byte.
  return array_base(allocate(dev, bytes ? bytes : 1), dt, shape, contiguous_strides(shape), 0);
}

array_base make_from_host(device dev, dtype dt, const shape_t& shape, const void* host) {
  const std::size_t bytes = checked_nbytes(shape, itemsize(dt));
  if (host == nullptr && bytes != 0)
    throw value_error("jetfuse: a null host pointer cannot hold the " + std::to_string(shape.product()) +
                      " elements of shape " + to_string(shape));
  array_base a = make_array(dev, dt, shape);
  if (bytes) copy_from_host(*a.buffer(), 0, host, bytes);
  return a;
}

array_base adopt_array(device dev, dtype dt, void* ptr, const shape_t& shape, std::function<void(void*)> deleter) {
  const std::size_t bytes = checked_nbytes(shape, itemsize(dt));
  const strides_t strides = contiguous_strides(shape);
  return array_base(adopt(dev, ptr, bytes, std::move(deleter)), dt, shape, strides, 0);
}

array_base slice(const array_base& a, const index_arg* args, int nargs) {
  require_handle(a, "slice");
  if (nargs > a.ndim()) throw index_error(too_many_indices(a.ndim(), nargs));
  shape_t sh;
  strides_t st;
  std::int64_t off = a.offset();
  bool empty = false;
  for (int ax = 0; ax < a.ndim(); ++ax) {
    const std::int64_t n = a.shape()[ax], stride = a.strides()[ax];
    if (ax >= nargs) {  // remaining axes whole
      sh.push_back(n);
      st.push_back(stride);
      continue;
    }
    const index_arg& arg = args[ax];
    if (arg.k == index_arg::kind::index) {
      off += normalize_index(arg.index, ax, n) * stride;
      continue;
    }
    // Python's slice.indices(n): open bounds, negative bounds from the end, clamping.
    const range r = arg.r;
    const std::int64_t step = r.step;
    if (step == 0) throw index_error("slice step cannot be zero (axis " + std::to_string(ax) + ")");
    const std::int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? n - 1 : n;
    auto clamp = [&](slice_bound b, std::int64_t open) {
      if (!b.has_value()) return open;
      std::int64_t v = *b;
      if (v < 0) {
        v += n;
        return v < lower ? lower : v;
      }
      return v > upper ? upper : v;
    };
    const std::int64_t start = clamp(r.start, step < 0 ? upper : lower);
    const std::int64_t stop = clamp(r.stop, step < 0 ? lower : upper);
    // |step| in unsigned arithmetic: -INT64_MIN does not exist.
    const std::uint64_t magnitude = step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
    std::int64_t len = 0;
    if (step < 0 ? stop < start : start < stop) {
      const auto distance = static_cast<std::uint64_t>(step < 0 ? start - stop : stop - start);
      len = static_cast<std::int64_t>((distance - 1) / magnitude + 1);
    }
    if (len == 0) empty = true;
    else off += start * stride;
    sh.push_back(len);
    // With one element the step never applies (and stride * step could overflow: x[::-2**63]).
    st.push_back(len > 1 ? stride * step : stride);
  }
  // An empty view keeps the original offset: it must not point outside the buffer.
  return array_base(a.buffer(), a.dtype(), sh, st, empty ? a.offset() : off);
}

array_base reshape(const array_base& a, shape_t new_shape) {
  require_handle(a, "reshape");
  const shape_t requested = new_shape;
  auto mismatch = [&] {
    throw shape_error("cannot reshape array of shape " + to_string(a.shape()) + " (size " + std::to_string(a.size()) +
                      ") into shape " + to_string(requested));
  };
  int unknown = -1;
  std::int64_t known = 1;
  for (int i = 0; i < new_shape.size(); ++i) {
    if (new_shape[i] == -1) {
      if (unknown >= 0) throw shape_error("reshape: can only specify one unknown dimension, got shape " + to_string(requested));
      unknown = i;
    } else if (new_shape[i] < 0) {
      throw shape_error("reshape: negative dimension in shape " + to_string(requested));
    } else if (__builtin_mul_overflow(known, new_shape[i], &known)) {
      mismatch();  // numpy: a product past INT64_MAX cannot be the size of any array
    }
  }
  if (unknown >= 0) {
    if (known == 0 || a.size() % known != 0) mismatch();
    new_shape[unknown] = a.size() / known;
  }
  if (known != a.size() && unknown < 0) mismatch();
  (void)checked_nbytes(new_shape, itemsize(a.dtype()));  // (2**62, 0) has no strides
  if (a.is_contiguous())
    return array_base(a.buffer(), a.dtype(), new_shape, contiguous_strides(new_shape), a.offset());
  strides_t st;
  if (nocopy_strides(a.shape(), a.strides(), new_shape, st))
    return array_base(a.buffer(), a.dtype(), new_shape, st, a.offset());
  const array_base c = contiguous_on_own_device(a);
  return array_base(c.buffer(), c.dtype(), new_shape, contiguous_strides(new_shape), c.offset());
}

array_base transpose(const array_base& a, const shape_t& axes) {
  require_handle(a, "transpose");
  const int nd = a.ndim();
  shape_t perm = shape_t::of_rank(nd);
  if (axes.size() == 0) {
    for (int i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  } else {
    if (axes.size() != nd)
      throw shape_error("transpose: axes " + to_string(axes) + " don't match an array of shape " + to_string(a.shape()));
    bool seen[max_ndim] = {};
    for (int i = 0; i < nd; ++i) {
      std::int64_t ax = axes[i];
      if (ax < -nd || ax >= nd)
        throw index_error("transpose: axis " + std::to_string(ax) + " is out of bounds for array of dimension " +
                          std::to_string(nd));
      if (ax < 0) ax += nd;
      if (seen[ax]) throw shape_error("transpose: repeated axis in " + to_string(axes));
      seen[ax] = true;
      perm[i] = ax;
    }
  }
  shape_t sh = shape_t::of_rank(nd);
  strides_t st = strides_t::of_rank(nd);
  for (int i = 0; i < nd; ++i) {
    sh[i] = a.shape()[static_cast<int>(perm[i])];
    st[i] = a.strides()[static_cast<int>(perm[i])];
  }
  return array_base(a.buffer(), a.dtype(), sh, st, a.offset());
}

array_base to_backend(const array_base& a, device dev) {
  require_handle(a, "to_backend");
  array_base out = make_array(dev, a.dtype(), a.shape());
  if (a.size() == 0) return out;
  const std::size_t isz = itemsize(a.dtype());
  if (!a.is_contiguous()) {
    // Gather straight into the result when it is on the same backend.
    if (dev == a.device() && dev.kind == device_kind::cpu) {
      cpu_strided_copy(host_ptr(out), out.strides(), host_ptr(a), a.strides(), a.shape(), isz);
      return out;
    }
    if (dev == a.device()) {
      cuda_strided_copy(out, a);
      return out;
    }
  }
  const array_base src = contiguous_on_own_device(a);
  copy_bytes(*out.buffer(), 0, *src.buffer(), static_cast<std::size_t>(src.offset()) * isz,
             static_cast<std::size_t>(a.size()) * isz);
  return out;
}

array_base fill(device dev, dtype dt, const shape_t& shape, const void* value) {
  array_base out = make_array(dev, dt, shape);
  const std::size_t isz = itemsize(dt), n = static_cast<std::size_t>(out.size());
  if (n == 0) return out;
  unsigned char elem[8];
  std::memcpy(elem, value, isz);
  if (dt == dtype::bool_) elem[0] = elem[0] != 0;  // bools are stored as 0 / 1
  bool uniform = true;
  for (std::size_t b = 1; b < isz; ++b) uniform = uniform && elem[b] == elem[0];
  if (dev.kind == device_kind::cpu) {
    std::byte* p = host_ptr(out);
    if (uniform) std::memset(p, elem[0], n * isz);
    else
      for (std::size_t i = 0; i < n; ++i) std::memcpy(p + i * isz, elem, isz);
    return out;
  }
#ifdef JF_HAVE_CUDA
  if (uniform) {
    cuda_rt::memset_d8(detail::address_of(out), elem[0], n * isz);
    return out;
  }
#endif
  std::vector<unsigned char> host(n * isz);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(host.data() + i * isz, elem, isz);
  copy_from_host(*out.buffer(), 0, host.data(), host.size());
  return out;
}

void* address_of(const array_base& a) {
  if (!a.buffer()) return nullptr;
  return static_cast<std::byte*>(a.buffer()->ptr) + a.offset() * size_of(a.dtype());
}

bool is_writable(const array_base& a) {
  for (int i = 0; i < a.ndim(); ++i)
    if (a.strides()[i] == 0 && a.shape()[i] > 1) return false;
  return true;
}

void require_writable(const array_base& a) {
  if (!is_writable(a)) throw value_error("assignment destination is read-only");
  if (a.buffer()) note_write(*a.buffer());  // every write into an existing array passes here
}

void assign(const array_base& dst, const array_base& src) {
  require_handle(dst, "assign (destination)");
  require_handle(src, "assign (source)");
  require_writable(dst);
  if (dst.dtype() != src.dtype())
    throw dtype_error("cannot assign an array of " + std::string(name(src.dtype())) + " to an array of " +
                      std::string(name(dst.dtype())) + " (jetfuse does not cast implicitly)");
  if (dst.device() != src.device())
    throw backend_mismatch("cannot assign an array on " + to_string(src.device()) + " to an array on " +
                           to_string(dst.device()) + "; move it with jf::to_backend first");
  array_base s = broadcast_to(src, dst.shape());
  if (dst.size() == 0) return;
  const byte_range rd = extent(dst), rs = extent(s);
  if (rd.lo < rs.hi && rs.lo < rd.hi) {
    // Same elements in the same order: nothing to do. Any other overlap goes through a copy.
    if (detail::address_of(dst) == detail::address_of(s) && dst.strides() == s.strides()) return;
    s = broadcast_to(to_backend(src, src.device()), dst.shape());
  }
  if (dst.device().kind == device_kind::cpu)
    cpu_strided_copy(host_ptr(dst), dst.strides(), host_ptr(s), s.strides(), dst.shape(), itemsize(dst.dtype()));
  else
    cuda_strided_copy(dst, s);
}

std::size_t element_offset(const array_base& a, const std::int64_t* idx, int n) {
  require_handle(a, "element access");
  if (n > a.ndim()) throw index_error(too_many_indices(a.ndim(), n));
  if (n < a.ndim())
    throw index_error("an element of a " + std::to_string(a.ndim()) + "-dimensional array needs " +
                      std::to_string(a.ndim()) + " indices, got " + std::to_string(n) +
                      " (use jf::all or jf::range for a view)");
  std::int64_t off = a.offset();
  for (int i = 0; i < n; ++i) off += normalize_index(idx[i], i, a.shape()[i]) * a.strides()[i];
  return static_cast<std::size_t>(off) * itemsize(a.dtype());
}

void read_element(const array_base& a, const std::int64_t* idx, int n, void* out) {
  const std::size_t off = element_offset(a, idx, n);
  copy_to_host(out, *a.buffer(), off, itemsize(a.dtype()));
}

}  // namespace detail
}  // namespace jf

namespace jf::detail {

array_base generated_array(device dev, dtype t, const shape_t& shape, buffer_source source, bit_generator bits,
                           std::uint64_t key_low, std::uint64_t key_high, std::uint64_t first, std::uint64_t aux) {
  auto b = std::make_shared<buffer>();
  b->dev = dev;
  b->source = source;
  b->bits = bits;
  b->key[0] = key_low;
  b->key[1] = key_high;
  b->first = first;
  b->aux = aux;
  return array_base(std::move(b), t, shape, contiguous_strides(shape), 0);
}

}  // namespace jf::detail
