// The host pool (src/core/host_pool.hpp): large blocks are kept and handed out again, small ones
// are not, blocks are 64-byte aligned, trimming gives everything back, and arrays built on it keep
// their values. (Under AddressSanitizer the pool keeps nothing: the reuse checks are skipped.)
#include <gtest/gtest.h>

#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <vector>

#include "core/host_pool.hpp"

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
