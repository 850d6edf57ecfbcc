// DLPack (https://dmlc.github.io/dlpack, v1.1, vendored in third_party/dlpack): jetfuse arrays to
// and from other libraries (PyTorch, CuPy, numpy, JAX, ...) without copying. Not included by
// jetfuse.hpp: include <jetfuse/dlpack.hpp> where it is needed.
//
// Ownership, both directions:
//  * jf::from_dlpack(t) takes t: on success the new array's buffer owns it and calls t->deleter(t)
//    exactly once, when the last jetfuse handle (array, view, or an array exported again with
//    to_dlpack) goes away. On a throw nothing was taken: t is untouched and still the caller's
//    (who calls its deleter, as a PyCapsule destructor does when the capsule was not renamed).
//  * jf::to_dlpack(a) returns a new DLManagedTensor whose manager_ctx holds a reference to a's
//    buffer: the memory stays alive until the consumer calls its deleter (once); jetfuse handles
//    may go away before.
#pragma once

#include <cstdint>

#include "jetfuse/array.hpp"
#include "jetfuse/third_party/dlpack/dlpack.h"

namespace jf {

// What from_dlpack does with a versioned tensor flagged DLPACK_FLAG_BITMASK_READ_ONLY: jetfuse
// arrays are always writable, so by default it refuses (value_error); `accept` wraps it anyway and
// the caller promises not to write into the array (writes would be undefined behaviour).
enum class dlpack_read_only : std::uint8_t { reject, accept };

// ---- import ---------------------------------------------------------------------------------
// Wraps the tensor's memory without copying. Accepted: device kDLCPU (jf::cpu) and kDLCUDA
// (jf::cuda with its device id; cuda:0 only, and a usable GPU, else jf::no_device); dtypes
// bool (kDLBool, 8 bits), kDLInt and kDLUInt of 8, 16, 32, 64 bits, kDLFloat of 32, 64 bits, one
// lane; 0 to 8 dimensions; strides in elements (NULL: compact row-major), negative and zero ones
// included; any byte_offset that leaves the first element aligned to its size. Errors (the tensor is left untouched):
//   value_error  a null tensor, a null data pointer with elements, a misaligned first element,
//                another device type (kDLCUDAHost, kDLCUDAManaged, kDLROCM, ...), an unknown
//                major version, a read-only tensor (unless dlpack_read_only::accept)
//   dtype_error  a dtype jetfuse does not have (float16, bfloat16, complex, lanes != 1), or not T
//   shape_error  ndim outside [0, 8], a negative extent, a size or span beyond INT64_MAX bytes
//   no_device    kDLCUDA without a usable GPU, or a device id other than 0
// On jf::cuda the producer's work must be complete (or ordered before jetfuse's stream: the
// DLPack `stream` argument of __dlpack__); when the last handle goes away, jetfuse waits for the
// work it launched on the releasing thread's stream before it calls the deleter.
array_base from_dlpack(DLManagedTensor* t);  // the dtype of the tensor (run time)
array_base from_dlpack(DLManagedTensorVersioned* t, dlpack_read_only read_only = dlpack_read_only::reject);

namespace detail {
array_base from_dlpack_as(DLManagedTensor* t, dtype expected);
array_base from_dlpack_as(DLManagedTensorVersioned* t, dtype expected, dlpack_read_only read_only);
}  // namespace detail

template <class T> array<T> from_dlpack(DLManagedTensor* t) { return array<T>(detail::from_dlpack_as(t, dtype_v<T>)); }
template <class T>
array<T> from_dlpack(DLManagedTensorVersioned* t, dlpack_read_only read_only = dlpack_read_only::reject) {
  return array<T>(detail::from_dlpack_as(t, dtype_v<T>, read_only));
}

// ---- export ---------------------------------------------------------------------------------
// A new managed tensor viewing a's elements (no copy); the caller owns it and must call its
// deleter once (or hand it to a consumer that does). `data` is the address of element (0, ..., 0)
// with byte_offset 0 (what PyTorch, CuPy and numpy export: PyTorch ignores byte_offset on import),
// except for an array without elements, whose data is NULL; shape and strides are in elements
// (views export their own strides, negative ones included); strides are never NULL. On jf::cuda
// it waits for the calling thread's stream first, so the data are complete for a consumer on any
// stream. Only arrays are accepted: evaluate an expression into an array first. A null handle
// throws value_error. The versioned tensor carries version 1.1 and no flags (writable, not a copy).
DLManagedTensor* to_dlpack(const array_base& a);
DLManagedTensorVersioned* to_dlpack_versioned(const array_base& a);

// ---- the mappings they use ------------------------------------------------------------------
DLDataType to_dlpack_dtype(dtype d);
dtype from_dlpack_dtype(DLDataType t);  // dtype_error for anything jetfuse does not have
DLDevice to_dlpack_device(device d);
device from_dlpack_device(DLDevice d);  // value_error for device types jetfuse cannot use

}  // namespace jf
