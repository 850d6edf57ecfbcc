// A C interface to jetfuse's DLPack functions for tests/interop/dlpack_roundtrip.py (ctypes):
// raw DLManagedTensor pointers in and out (the script handles the PyCapsules), opaque array
// handles, and one jetfuse computation (scale * x + shift, one fused kernel) to export back.
// Every function that can fail returns NULL (or -1) and leaves the reason in jfs_last_error().
#include <cstdint>
#include <exception>
#include <string>

#include <jetfuse/dlpack.hpp>
#include <jetfuse/jagged_dlpack.hpp>
#include <jetfuse/jetfuse.hpp>

namespace {

thread_local std::string last_error;

template <class F> auto guarded(F&& f, decltype(f()) on_error) noexcept -> decltype(f()) {
  try {
    last_error.clear();
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown exception";
  }
  return on_error;
}

jf::array_base& handle(void* h) { return *static_cast<jf::array_base*>(h); }
// A jagged array of any dtype: a record of one field "x" (records are untyped).
jf::jagged_record& lists(void* h) { return *static_cast<jf::jagged_record*>(h); }

}  // namespace

extern "C" {

#define JFS_API __attribute__((visibility("default")))

JFS_API const char* jfs_last_error() { return last_error.c_str(); }
JFS_API int jfs_cuda_available() { return jf::cuda_available() ? 1 : 0; }

// Takes the managed tensor (versioned != 0: a DLManagedTensorVersioned); on failure it stays the
// caller's. Read-only versioned tensors are refused.
JFS_API void* jfs_from_dlpack(void* managed, int versioned) {
  return guarded(
      [&]() -> void* {
        jf::array_base a = versioned ? jf::from_dlpack(static_cast<DLManagedTensorVersioned*>(managed))
                                     : jf::from_dlpack(static_cast<DLManagedTensor*>(managed));
        return new jf::array_base(std::move(a));
      },
      nullptr);
}

// A new managed tensor viewing the handle's array (the caller calls its deleter, or a consumer).
JFS_API void* jfs_to_dlpack(void* h, int versioned) {
  return guarded(
      [&]() -> void* {
        if (versioned) return jf::to_dlpack_versioned(handle(h));
        return jf::to_dlpack(handle(h));
      },
      nullptr);
}

// Calls the deleter of a managed tensor nobody consumed (a capsule destructor).
JFS_API void jfs_delete_dlpack(void* managed, int versioned) {
  if (!managed) return;
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(managed);
    if (m->deleter) m->deleter(m);
  } else {
    auto* m = static_cast<DLManagedTensor*>(managed);
    if (m->deleter) m->deleter(m);
  }
}

// scale * x + shift evaluated by jetfuse into a new array of x's dtype on x's backend (numeric
// dtypes; integer dtypes take integral scale and shift).
JFS_API void* jfs_affine(void* h, double scale, double shift) {
  return guarded(
      [&]() -> void* {
        const jf::array_base& x = handle(h);
        return jf::visit_dtype(x.dtype(), [&](auto tag) -> void* {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<T, bool>) {
            throw jf::dtype_error("jfs_affine: not for bool arrays");
          } else {
            const jf::array<T> a(x);
            jf::array<T> r;
            if constexpr (std::is_integral_v<T>)
              r = a * static_cast<std::int64_t>(scale) + static_cast<std::int64_t>(shift);
            else
              r = a * static_cast<T>(scale) + static_cast<T>(shift);
            return new jf::array_base(std::move(r));
          }
        });
      },
      nullptr);
}

// Jagged arrays as (offsets, content) tensors: taken together or not at all.
JFS_API void* jfs_jagged_from_dlpack(void* offsets, void* content, int versioned) {
  return guarded(
      [&]() -> void* {
        jf::jagged_record r =
            versioned ? jf::record_from_dlpack(
                            jf::dlpack_record_versioned{static_cast<DLManagedTensorVersioned*>(offsets),
                                                        {{"x", static_cast<DLManagedTensorVersioned*>(content)}}})
                      : jf::record_from_dlpack(jf::dlpack_record{static_cast<DLManagedTensor*>(offsets),
                                                                 {{"x", static_cast<DLManagedTensor*>(content)}}});
        return new jf::jagged_record(std::move(r));
      },
      nullptr);
}
JFS_API void jfs_jagged_release(void* h) { delete static_cast<jf::jagged_record*>(h); }
JFS_API std::int64_t jfs_jagged_length(void* h) { return lists(h).size(); }
JFS_API void* jfs_jagged_offsets(void* h) { return new jf::array_base(lists(h).offsets()); }
JFS_API void* jfs_jagged_content(void* h) { return new jf::array_base(lists(h).contents()[0].second); }

// jf::sum(x * 2 + 1, -1) (one fused kernel over the lists) into a new dense array; floats.
JFS_API void* jfs_jagged_sums(void* h) {
  return guarded(
      [&]() -> void* {
        const jf::jagged_field x = lists(h)["x"];
        if (x.dtype() == jf::dtype::float32)
          return new jf::array_base(jf::array<float>(jf::sum(x.as<float>() * 2 + 1, -1)));
        if (x.dtype() == jf::dtype::float64)
          return new jf::array_base(jf::array<double>(jf::sum(x.as<double>() * 2 + 1, -1)));
        throw jf::dtype_error("jfs_jagged_sums: float32 or float64 lists");
      },
      nullptr);
}

// x * 2 as a new jagged array, exported as two tensors (offsets, content) into out[0], out[1].
JFS_API int jfs_jagged_doubled_to_dlpack(void* h, int versioned, void** out) {
  return guarded(
      [&]() -> int {
        const jf::jagged_field x = lists(h)["x"];
        if (x.dtype() != jf::dtype::float32) throw jf::dtype_error("jfs_jagged_doubled_to_dlpack: float32 lists");
        const jf::jagged<float> y = x.as<float>() * 2;
        if (versioned) {
          const auto t = jf::to_dlpack_versioned(y);
          out[0] = t.offsets;
          out[1] = t.content;
        } else {
          const auto t = jf::to_dlpack(y);
          out[0] = t.offsets;
          out[1] = t.content;
        }
        return 0;
      },
      -1);
}

JFS_API void jfs_release(void* h) { delete static_cast<jf::array_base*>(h); }
JFS_API void* jfs_data(void* h) { return handle(h).raw_data(); }
JFS_API int jfs_ndim(void* h) { return handle(h).ndim(); }
JFS_API std::int64_t jfs_size(void* h) { return handle(h).size(); }
JFS_API void jfs_shape(void* h, std::int64_t* out) {
  for (int i = 0; i < handle(h).ndim(); ++i) out[i] = handle(h).shape()[i];
}
JFS_API void jfs_strides(void* h, std::int64_t* out) {  // in elements
  for (int i = 0; i < handle(h).ndim(); ++i) out[i] = handle(h).strides()[i];
}
JFS_API int jfs_dtype(void* h) { return static_cast<int>(handle(h).dtype()); }  // jf::dtype's order
JFS_API int jfs_is_cuda(void* h) { return handle(h).device().kind == jf::device_kind::cuda ? 1 : 0; }
JFS_API int jfs_synchronize() {
  return guarded(
      [] {
        jf::synchronize();
        return 0;
      },
      -1);
}

}  // extern "C"
