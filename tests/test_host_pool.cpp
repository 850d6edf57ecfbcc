// The host pool (src/core/host_pool.hpp): large blocks are kept and handed out again, small ones
// are not, blocks are 64-byte aligned, trimming gives everything back, and arrays built on it keep
// their values, and fresh large blocks are advised into huge pages. (Under AddressSanitizer the pool
// keeps nothing: the reuse checks are skipped.)
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <jetfuse/jetfuse.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/host_pool.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool keeps = false;
#else
constexpr bool keeps = true;
#endif

using jf::detail::host_pool_allocate;
using jf::detail::host_pool_kept_bytes;
using jf::detail::host_pool_release;

TEST(HostPool, LargeBlocksAreReused) {
  if (!keeps) GTEST_SKIP() << "AddressSanitizer build: the pool keeps nothing";
  jf::detail::host_pool_trim();
  const std::size_t n = (std::size_t{3} << 20) + 5;
  void* a = host_pool_allocate(n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
  host_pool_release(a, n);
  EXPECT_GE(host_pool_kept_bytes(), n);
  void* b = host_pool_allocate(n + 1000);  // the same size class (16 per power of two)
  EXPECT_EQ(a, b);
  EXPECT_EQ(host_pool_kept_bytes(), 0u);
  host_pool_release(b, n + 1000);
  jf::detail::host_pool_trim();
  EXPECT_EQ(host_pool_kept_bytes(), 0u);
}

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// The VmFlags of the mapping holding address p, from /proc/self/smaps ("" when not found).
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(' ') > line.find('-')) {
      inside = lo <= a && a < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

// Fresh blocks of 4 MiB and more are advised into transparent huge pages (numpy does the same):
// the kernel marks their mapping "hg" in /proc/self/smaps; smaller blocks are not advised.
TEST(HostPool, LargeFreshBlocksAreAdvisedIntoHugePages) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "no transparent huge pages on this system";
  {  // Does this kernel take the advice and show it? (Sandboxed kernels may do neither.)
    const std::size_t len = std::size_t{4} << 20;
    void* probe = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(probe, MAP_FAILED);
    const bool shown = madvise(probe, len, MADV_HUGEPAGE) == 0 && vm_flags_at(probe).find(" hg") != std::string::npos;
    munmap(probe, len);
    if (!shown) GTEST_SKIP() << "this kernel does not show MADV_HUGEPAGE in /proc/self/smaps";
  }
  jf::detail::host_pool_trim();  // a fresh block, not a kept one
  const std::size_t big = std::size_t{9} << 20, small = std::size_t{2} << 20;
  void* a = host_pool_allocate(big);
  void* b = host_pool_allocate(small);
  const std::string fa = vm_flags_at(static_cast<char*>(a) + big / 2),
                    fb = vm_flags_at(static_cast<char*>(b) + small / 2);
  host_pool_release(a, big);
  host_pool_release(b, small);
  jf::detail::host_pool_trim();
  ASSERT_FALSE(fa.empty()) << "no mapping found for the block";
  const char* off = std::getenv("JF_MADVISE_HUGEPAGE");  // "0" turns the advice off
  EXPECT_EQ(fa.find(" hg") != std::string::npos, !(off && std::string(off) == "0")) << fa;
  EXPECT_EQ(fb.find(" hg"), std::string::npos) << fb;
}
#endif

TEST(HostPool, SmallBlocksAreNotKept) {
  jf::detail::host_pool_trim();
  void* a = host_pool_allocate(1000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
  host_pool_release(a, 1000);
  EXPECT_EQ(host_pool_kept_bytes(), 0u);
  void* z = host_pool_allocate(0);  // one byte: a unique, freeable address
  EXPECT_NE(z, nullptr);
  host_pool_release(z, 0);
}

TEST(HostPool, ArraysOnReusedBlocksHoldTheirValues) {
  for (int round = 0; round < 3; ++round) {
    const std::int64_t n = (std::int64_t{1} << 19) + round;  // 4 MiB of doubles and more
    const jf::array<double> x = jf::arange<double>(0, static_cast<double>(n), 1);
    const jf::array<double> y = x * 2 + 1;
    const std::vector<double> v = y.to_vector();
    ASSERT_EQ(static_cast<std::int64_t>(v.size()), n);
    for (std::int64_t i = 0; i < n; i += 4099) ASSERT_EQ(v[static_cast<std::size_t>(i)], 2.0 * static_cast<double>(i) + 1);
  }
  EXPECT_EQ(jf::detail::host_pool_kept_bytes() <= (std::size_t{1} << 30), true);
}

}  // namespace
