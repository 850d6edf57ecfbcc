// Host memory for arrays and the CPU executor's buffers: large blocks are kept for reuse. A fresh
// block of many megabytes costs a page fault and a cleared page per 4 KiB on first touch (glibc
// maps such blocks anew on every malloc and unmaps them on free): on a 2-core machine that was
// three quarters of a 2^24-element cumsum on jf::cpu. Blocks of 1 MiB and more are rounded up to a
// size class (at most 1/16 more) and kept when released, up to a cap (JF_HOST_CACHE_BYTES, default
// 1 GiB; 0 keeps nothing), the largest given back first beyond it. Thread-safe. Under
// AddressSanitizer nothing is kept, so that a use after release is still reported.
#pragma once

#include <cstddef>
#include <utility>

namespace jf::detail {

// 64-byte aligned memory of at least `bytes` (one byte for none); jf::out_of_memory when the host
// has none, after giving back every kept block and trying once more.
void* host_pool_allocate(std::size_t bytes);
// Returns a block host_pool_allocate gave for `bytes`.
void host_pool_release(void* p, std::size_t bytes) noexcept;
// The bytes kept for reuse now, and giving them all back (tests; a program that wants its memory).
std::size_t host_pool_kept_bytes();
void host_pool_trim();

// An owned block (the CPU executor's buffers).
struct host_block {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit host_block(std::size_t n) : p(host_pool_allocate(n)), bytes(n) {}
  host_block(host_block&& o) noexcept : p(std::exchange(o.p, nullptr)), bytes(o.bytes) {}
  host_block(const host_block&) = delete;
  host_block& operator=(const host_block&) = delete;
  host_block& operator=(host_block&&) = delete;
  ~host_block() { host_pool_release(p, bytes); }
};

}  // namespace jf::detail
