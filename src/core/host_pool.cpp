// Host memory kept for reuse (host_pool.hpp).
#include "core/host_pool.hpp"

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>

#include "jetfuse/errors.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace jf::detail {
namespace {

constexpr std::align_val_t alignment{64};
constexpr std::size_t pooled_from = std::size_t{1} << 20;  // smaller blocks: malloc's own caches
// No host has more address space than this (x86-64 and AArch64 use at most 57 bits); larger
// requests fail here, before the allocator (sanitizers abort on them instead of throwing).
constexpr std::size_t max_host_bytes = std::size_t(1) << 57;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

// The size a block of `bytes` is allocated with: 16 classes per power of two.
std::size_t size_class(std::size_t bytes) {
  if (bytes < pooled_from) return bytes == 0 ? 1 : bytes;
  const std::size_t step = std::size_t{1} << (std::bit_width(bytes) - 5);
  return (bytes + step - 1) / step * step;
}

struct pool {
  std::mutex m;
  std::multimap<std::size_t, void*> kept;  // size class -> free blocks
  std::size_t kept_bytes = 0;
  const std::size_t cap = [] {
    if (sanitized) return std::size_t{0};
    const char* v = std::getenv("JF_HOST_CACHE_BYTES");
    if (v && *v) return static_cast<std::size_t>(std::strtoull(v, nullptr, 10));
    return std::size_t{1} << 30;
  }();

  void* take(std::size_t cls) {
    std::lock_guard<std::mutex> lock(m);
    const auto it = kept.find(cls);
    if (it == kept.end()) return nullptr;
    void* p = it->second;
    kept.erase(it);
    kept_bytes -= cls;
    return p;
  }
  void give(void* p, std::size_t cls) noexcept {
    if (cls > cap) return ::operator delete(p, alignment);
    std::lock_guard<std::mutex> lock(m);
    kept.emplace(cls, p);
    kept_bytes += cls;
    while (kept_bytes > cap) {  // the largest first: the fewest blocks to free
      const auto last = std::prev(kept.end());
      kept_bytes -= last->first;
      ::operator delete(last->second, alignment);
      kept.erase(last);
    }
  }
  void trim() noexcept {
    std::lock_guard<std::mutex> lock(m);
    for (const auto& [cls, p] : kept) ::operator delete(p, alignment);
    kept.clear();
    kept_bytes = 0;
  }
};

pool& the_pool() {
  static auto* p = new pool;  // never destroyed: arrays may be released by static destructors
  return *p;
}

// Fresh blocks of 4 MiB and more are advised into transparent huge pages, as numpy does for its
// arrays (where the kernel's THP mode is "madvise", a common default, nothing else gets them):
// fewer TLB misses when streaming or gathering. On a 2-core machine with THP on madvise, medians
// of five alternated runs of bench_cpu, off / on: the quadratic formula of 2^24 float64 39.5 /
// 37.7 ms, a random gather of 2^24 float64 93.0 / 88.0, sum(x, 0) of 4096 x 4096 float64 7.40 /
// 7.04, x += 1 6.00 / 6.10 (noise). JF_MADVISE_HUGEPAGE=0 turns it off (as numpy's
// NUMPY_MADVISE_HUGEPAGE=0 does).
void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  static const bool on = [] {
    const char* v = std::getenv("JF_MADVISE_HUGEPAGE");
    return !(v && v[0] == '0' && v[1] == '\0');
  }();
  if (!on || bytes < (std::size_t{1} << 22)) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (a + 4095) / 4096 * 4096, last = (a + bytes) / 4096 * 4096;
  if (last > first)
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice: failure is harmless
#endif
}

void* fresh_block(std::size_t cls) {
  void* p = ::operator new(cls, alignment);
  advise_huge_pages(p, cls);
  return p;
}

[[noreturn]] void no_memory(std::size_t bytes) {
  throw out_of_memory("jetfuse: cannot allocate " + std::to_string(bytes) + " bytes on the host");
}

}  // namespace

void* host_pool_allocate(std::size_t bytes) {
  if (bytes > max_host_bytes) no_memory(bytes);
  const std::size_t cls = size_class(bytes);
  if (cls >= pooled_from)
    if (void* p = the_pool().take(cls)) return p;
  try {
    return fresh_block(cls);
  } catch (const std::bad_alloc&) {
  }
  the_pool().trim();
  try {
    return fresh_block(cls);
  } catch (const std::bad_alloc&) {
    no_memory(bytes);
  }
}

void host_pool_release(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  const std::size_t cls = size_class(bytes);
  if (cls < pooled_from) return ::operator delete(p, alignment);
  the_pool().give(p, cls);
}

std::size_t host_pool_kept_bytes() {
  pool& p = the_pool();
  std::lock_guard<std::mutex> lock(p.m);
  return p.kept_bytes;
}

void host_pool_trim() { the_pool().trim(); }

}  // namespace jf::detail
