// Buffers: 64-byte aligned host memory (large blocks kept for reuse: host_pool.hpp) or pool memory
// on the GPU, and byte copies between them.
#include "jetfuse/buffer.hpp"

#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include "core/host_pool.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {
namespace {

void check_device(device d) {
  if (d.kind == device_kind::cuda && d.ordinal != 0)
    throw no_device("jetfuse: " + to_string(d) + " is not supported (only cuda:0 is used)");
}

void check_range(const buffer& b, std::size_t offset, std::size_t bytes, const char* what) {
  if (offset > b.bytes || bytes > b.bytes - offset)
    throw error(std::string("jetfuse: copy ") + what + " of " + std::to_string(bytes) + " bytes at offset " +
                std::to_string(offset) + " is outside a buffer of " + std::to_string(b.bytes) + " bytes");
}

// Device pointers are addresses, not host pointers: offset them as integers.
void* at(const buffer& b, std::size_t offset) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(b.ptr) + offset);
}

// Device copies of overlapping ranges are undefined: go through a temporary when ranges overlap.
void copy_within_device(void* d, const void* s, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(d), b = reinterpret_cast<std::uintptr_t>(s);
  if (a + bytes <= b || b + bytes <= a) return cuda_rt::copy_dtod(d, s, bytes);
  void* tmp = cuda_rt::allocate(bytes);
  try {
    cuda_rt::copy_dtod(tmp, s, bytes);
    cuda_rt::copy_dtod(d, tmp, bytes);
  } catch (...) {
    cuda_rt::deallocate(tmp);
    throw;
  }
  cuda_rt::deallocate(tmp);
}

}  // namespace

buffer_ptr allocate(device dev, std::size_t bytes) {
  check_device(dev);
  auto b = std::make_shared<buffer>();
  b->bytes = bytes;
  b->dev = dev;
  if (dev.kind == device_kind::cpu) {
    b->ptr = host_pool_allocate(bytes);
    b->release = [bytes](void* p) { host_pool_release(p, bytes); };
  } else {
    b->ptr = cuda_rt::allocate(bytes);
    b->release = [](void* p) { cuda_rt::deallocate(p); };
  }
  return b;
}

buffer_ptr adopt(device dev, void* ptr, std::size_t bytes, std::function<void(void*)> deleter) {
  check_device(dev);
  if (ptr == nullptr && bytes != 0)
    throw value_error("jetfuse: adopt of a null pointer for " + std::to_string(bytes) + " bytes");
  if (dev.kind == device_kind::cuda) cuda_rt::require();
  auto b = std::make_shared<buffer>();
  b->ptr = ptr;
  b->bytes = bytes;
  b->dev = dev;
  b->release = std::move(deleter);
  note_external(*b);  // the caller keeps the pointer
  return b;
}

void copy_bytes(const buffer& dst, std::size_t dst_offset, const buffer& src, std::size_t src_offset,
                std::size_t bytes) {
  check_range(dst, dst_offset, bytes, "destination");
  check_range(src, src_offset, bytes, "source");
  note_write(dst);
  if (bytes == 0) return;
  const bool dst_host = dst.dev.kind == device_kind::cpu, src_host = src.dev.kind == device_kind::cpu;
  void* d = at(dst, dst_offset);
  const void* s = at(src, src_offset);
  if (dst_host && src_host) std::memmove(d, s, bytes);  // views of one buffer may overlap
  else if (src_host) cuda_rt::copy_htod(d, s, bytes);
  else if (dst_host) cuda_rt::copy_dtoh(d, s, bytes);
  else if (&dst == &src || dst.ptr == src.ptr) copy_within_device(d, s, bytes);
  else cuda_rt::copy_dtod(d, s, bytes);
}

void copy_from_host(const buffer& dst, std::size_t dst_offset, const void* src, std::size_t bytes) {
  check_range(dst, dst_offset, bytes, "destination");
  note_write(dst);
  if (bytes == 0) return;
  if (dst.dev.kind == device_kind::cpu) std::memmove(at(dst, dst_offset), src, bytes);
  else cuda_rt::copy_htod(at(dst, dst_offset), src, bytes);
}

void copy_to_host(void* dst, const buffer& src, std::size_t src_offset, std::size_t bytes) {
  check_range(src, src_offset, bytes, "source");
  if (bytes == 0) return;
  if (src.dev.kind == device_kind::cpu) std::memmove(dst, at(src, src_offset), bytes);
  else cuda_rt::copy_dtoh(dst, at(src, src_offset), bytes);
}

}  // namespace jf::detail
