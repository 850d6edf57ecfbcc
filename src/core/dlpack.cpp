// DLPack import and export (include/jetfuse/dlpack.hpp): jetfuse buffers wrapping a producer's
// managed tensor, and managed tensors holding a reference to a jetfuse buffer.
#include "jetfuse/dlpack.hpp"

#include <cstdint>
#include <memory>
#include <string>

#include "core/dlpack_armed.hpp"
#include "cuda/runtime.hpp"

namespace jf {

namespace {

std::string device_type_name(std::int32_t t) {
  switch (t) {
  case kDLCPU: return "kDLCPU";
  case kDLCUDA: return "kDLCUDA";
  case kDLCUDAHost: return "kDLCUDAHost (pinned host memory)";
  case kDLOpenCL: return "kDLOpenCL";
  case kDLVulkan: return "kDLVulkan";
  case kDLMetal: return "kDLMetal";
  case kDLVPI: return "kDLVPI";
  case kDLROCM: return "kDLROCM";
  case kDLROCMHost: return "kDLROCMHost";
  case kDLExtDev: return "kDLExtDev";
  case kDLCUDAManaged: return "kDLCUDAManaged (managed memory)";
  case kDLOneAPI: return "kDLOneAPI";
  case kDLWebGPU: return "kDLWebGPU";
  case kDLHexagon: return "kDLHexagon";
  case kDLMAIA: return "kDLMAIA";
  default: return "device type " + std::to_string(t);
  }
}

std::string dtype_text(DLDataType t) {
  static const char* const codes[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
  std::string s = t.code < 7 ? codes[t.code] : "type code " + std::to_string(t.code);
  s += std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes) + " (vector lanes)";
  return s;
}

// The validated layout of a DLTensor before anything is taken.
struct layout {
  device dev;
  dtype dt;
  shape_t shape;
  strides_t strides;
  void* lowest = nullptr;   // the lowest address an element occupies (the buffer's pointer)
  std::size_t bytes = 0;    // from lowest to the end of the highest element
  std::int64_t offset = 0;  // element (0, ..., 0), in elements from lowest
};

layout check_tensor(const DLTensor& t, const dtype* expected) {
  layout l;
  l.dev = from_dlpack_device(t.device);
  l.dt = from_dlpack_dtype(t.dtype);
  if (expected && *expected != l.dt)
    throw dtype_error("jf::from_dlpack: the tensor holds " + dtype_text(t.dtype) + " (" + std::string(name(l.dt)) +
                      "), not " + std::string(name(*expected)));
  if (t.ndim < 0 || t.ndim > max_ndim)
    throw shape_error("jf::from_dlpack: a tensor of " + std::to_string(t.ndim) +
                      " dimensions (jetfuse arrays have 0 to 8)");
  if (t.ndim > 0 && t.shape == nullptr) throw value_error("jf::from_dlpack: the tensor's shape is NULL");
  l.shape = shape_t::of_rank(t.ndim);
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0)
      throw shape_error("jf::from_dlpack: negative extent " + std::to_string(t.shape[i]) + " of axis " + std::to_string(i));
    l.shape[i] = t.shape[i];
  }
  const std::size_t isz = static_cast<std::size_t>(size_of(l.dt));
  (void)checked_nbytes(l.shape, isz);  // numpy's size rule (shape_error)
  l.strides = t.strides ? strides_t::of_rank(t.ndim) : contiguous_strides(l.shape);
  if (t.strides)
    for (int i = 0; i < t.ndim; ++i) l.strides[i] = t.strides[i];
  const std::int64_t n = l.shape.product();
  const auto first = reinterpret_cast<std::uintptr_t>(t.data) + static_cast<std::uintptr_t>(t.byte_offset);
  if (n == 0) {
    // No element is ever addressed: an empty buffer at the tensor's address (NULL is allowed).
    l.lowest = reinterpret_cast<void*>(first);
    return l;
  }
  if (t.data == nullptr)
    throw value_error("jf::from_dlpack: a NULL data pointer for " + std::to_string(n) + " elements");
  if (first % isz != 0)
    throw value_error("jf::from_dlpack: the first element (data + byte_offset) is not aligned to its " +
                      std::to_string(isz) + " bytes");
  // The span of element offsets, [lo, hi], without overflow.
  std::int64_t lo = 0, hi = 0;
  for (int i = 0; i < t.ndim; ++i) {
    if (l.shape[i] == 1) continue;  // the stride of a length-1 axis is never used
    std::int64_t span = 0;
    if (__builtin_mul_overflow(l.shape[i] - 1, l.strides[i], &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
      throw shape_error("jf::from_dlpack: the tensor's strides span more than INT64_MAX elements");
  }
  std::int64_t extent = 0, extent_bytes = 0;
  if (__builtin_sub_overflow(hi, lo, &extent) || __builtin_add_overflow(extent, 1, &extent) ||
      __builtin_mul_overflow(extent, static_cast<std::int64_t>(isz), &extent_bytes) ||
      static_cast<std::uint64_t>(-lo) * isz > first)
    throw shape_error("jf::from_dlpack: the tensor's strides span more than the address space");
  l.lowest = reinterpret_cast<void*>(first - static_cast<std::uintptr_t>(-lo) * isz);
  l.bytes = static_cast<std::size_t>(extent_bytes);
  l.offset = -lo;
  return l;
}

// Wraps a checked tensor; `managed` is the DLManagedTensor(Versioned) whose deleter the buffer
// calls — only once *armed is true when `armed` is given. Nothing is taken unless this returns.
template <class M> array_base wrap(M* managed, const layout& l, std::shared_ptr<const bool> armed = nullptr) {
  const bool on_gpu = l.dev.kind == device_kind::cuda;
  auto release = [managed, on_gpu, armed = std::move(armed)](void*) {
    if (armed && !*armed) return;  // never accepted: the tensor is still its producer's
    if (on_gpu) {
      // Kernels of this thread may still read the memory: the producer may reuse it at once.
      try {
        cuda_rt::wait_quietly();  // an index error pending stays for the thread's next wait
      } catch (...) {  // a driver shut down at exit: nothing left to wait for
      }
    }
    if (managed->deleter) managed->deleter(managed);
  };
  // adopt throws (no_device: no GPU, cuda:1) before it owns anything.
  detail::buffer_ptr buf = detail::adopt(l.dev, l.lowest, l.bytes, std::move(release));
  return array_base(std::move(buf), l.dt, l.shape, l.strides, l.offset);
}

array_base import(DLManagedTensor* t, const dtype* expected, std::shared_ptr<const bool> armed = nullptr) {
  if (t == nullptr) throw value_error("jf::from_dlpack: a NULL DLManagedTensor");
  return wrap(t, check_tensor(t->dl_tensor, expected), std::move(armed));
}

array_base import(DLManagedTensorVersioned* t, const dtype* expected, dlpack_read_only read_only,
                  std::shared_ptr<const bool> armed = nullptr) {
  if (t == nullptr) throw value_error("jf::from_dlpack: a NULL DLManagedTensorVersioned");
  if (t->version.major != DLPACK_MAJOR_VERSION)
    throw value_error("jf::from_dlpack: DLPack major version " + std::to_string(t->version.major) +
                      " (jetfuse reads version " + std::to_string(DLPACK_MAJOR_VERSION) +
                      "); the caller must call the tensor's deleter");
  if ((t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) && read_only == dlpack_read_only::reject)
    throw value_error("jf::from_dlpack: the tensor is read-only and jetfuse arrays are writable "
                      "(pass jf::dlpack_read_only::accept to wrap it anyway and never write into it)");
  return wrap(t, check_tensor(t->dl_tensor, expected), std::move(armed));
}

// ---- export -----------------------------------------------------------------------------------

template <class M> struct export_ctx {
  M managed{};
  detail::buffer_ptr keep;  // the memory lives until the consumer calls the deleter
  std::int64_t shape[max_ndim] = {};
  std::int64_t strides[max_ndim] = {};

  static void deleter(M* self) { delete static_cast<export_ctx*>(self->manager_ctx); }
};

template <class M> M* export_tensor(const array_base& a) {
  if (a.is_null()) throw value_error("jf::to_dlpack: the array is a null handle (default-constructed)");
  if (a.buffer()->source != detail::buffer_source::memory)
    throw value_error("jf::to_dlpack: the array's elements are generated (a random leaf), not stored: evaluate it first");
  if (a.device().kind == device_kind::cuda) cuda_rt::synchronize();
  auto ctx = std::make_unique<export_ctx<M>>();
  ctx->keep = a.buffer();
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = a.size() == 0 ? nullptr : detail::address_of(a);
  if (a.buffer()) note_external(*a.buffer());  // the consumer may write through the capsule
  t.device = to_dlpack_device(a.device());
  t.ndim = a.ndim();
  t.dtype = to_dlpack_dtype(a.dtype());
  for (int i = 0; i < a.ndim(); ++i) {
    ctx->shape[i] = a.shape()[i];
    ctx->strides[i] = a.strides()[i];
  }
  t.shape = ctx->shape;
  t.strides = ctx->strides;
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &export_ctx<M>::deleter;
  return &ctx.release()->managed;
}

}  // namespace

DLDataType to_dlpack_dtype(dtype d) {
  const auto bits = static_cast<std::uint8_t>(8 * size_of(d));
  if (d == dtype::bool_) return {static_cast<std::uint8_t>(kDLBool), 8, 1};
  if (is_signed_integer(d)) return {static_cast<std::uint8_t>(kDLInt), bits, 1};
  if (is_unsigned_integer(d)) return {static_cast<std::uint8_t>(kDLUInt), bits, 1};
  if (is_floating(d)) return {static_cast<std::uint8_t>(kDLFloat), bits, 1};
  throw dtype_error("jf::to_dlpack_dtype: unknown dtype");
}

dtype from_dlpack_dtype(DLDataType t) {
  if (t.lanes == 1) {
    if (t.code == kDLBool && t.bits == 8) return dtype::bool_;
    for (dtype d : all_dtypes) {
      const DLDataType m = to_dlpack_dtype(d);
      if (d != dtype::bool_ && t.code == m.code && t.bits == m.bits) return d;
    }
  }
  throw dtype_error("jf::from_dlpack: jetfuse has no dtype " + dtype_text(t) +
                    " (it has bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32 and float64)");
}

DLDevice to_dlpack_device(device d) {
  if (d.kind == device_kind::cuda) return {kDLCUDA, d.ordinal};
  return {kDLCPU, 0};
}

device from_dlpack_device(DLDevice d) {
  if (d.device_type == kDLCPU) return jf::cpu;
  if (d.device_type == kDLCUDA) return device{device_kind::cuda, d.device_id};
  throw value_error("jf::from_dlpack: jetfuse cannot use memory of " + device_type_name(d.device_type) +
                    " (it takes kDLCPU and kDLCUDA)");
}

array_base from_dlpack(DLManagedTensor* t) { return import(t, nullptr); }
array_base from_dlpack(DLManagedTensorVersioned* t, dlpack_read_only read_only) { return import(t, nullptr, read_only); }

namespace detail {
array_base from_dlpack_as(DLManagedTensor* t, dtype expected) { return import(t, &expected); }
array_base from_dlpack_as(DLManagedTensorVersioned* t, dtype expected, dlpack_read_only read_only) {
  return import(t, &expected, read_only);
}
array_base from_dlpack_armed(DLManagedTensor* t, std::shared_ptr<const bool> armed) {
  return import(t, nullptr, std::move(armed));
}
array_base from_dlpack_armed(DLManagedTensorVersioned* t, dlpack_read_only read_only, std::shared_ptr<const bool> armed) {
  return import(t, nullptr, read_only, std::move(armed));
}
}  // namespace detail

DLManagedTensor* to_dlpack(const array_base& a) { return export_tensor<DLManagedTensor>(a); }

DLManagedTensorVersioned* to_dlpack_versioned(const array_base& a) {
  DLManagedTensorVersioned* m = export_tensor<DLManagedTensorVersioned>(a);
  m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m->flags = 0;
  return m;
}

}  // namespace jf
