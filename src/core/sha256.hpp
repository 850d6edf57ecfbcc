// SHA-256 (FIPS 180-4), for the digest of the on-disk kernel cache: small, dependency-free and
// incremental (update() any number of times, then digest() once).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace jf::detail {

class sha256 {
 public:
  using digest_t = std::array<std::uint8_t, 32>;

  sha256();
  void update(const void* data, std::size_t bytes);
  digest_t digest();  // pads and finishes; the object must not be updated afterwards

  static digest_t of(const void* data, std::size_t bytes);
  static std::string hex(const digest_t& d);  // 64 lowercase hex digits

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> block_{};
  std::size_t used_ = 0;     // bytes in block_
  std::uint64_t total_ = 0;  // bytes hashed so far
};

}  // namespace jf::detail
