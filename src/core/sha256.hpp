// SHA-256 (FIPS 180-4), for the digest of the on-disk kernel cache: small, dependency-free and
// incremental (update() any number of times, then digest() once). On x86-64 CPUs with the SHA
// extensions the blocks go through them (sha256_x86.cpp): a first call reads its kernel from the
// disk cache and digests it, 57 KB for the quadratic formula, 186 us portably and 33 with them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace jf::detail {

class sha256 {
 public:
  using digest_t = std::array<std::uint8_t, 32>;

  // Which compression function runs: the CPU's SHA extensions where it has them, else portable C++;
  // `portable` forces the latter (the tests compare the two).
  enum class engine { automatic, portable };

  explicit sha256(engine e = engine::automatic);
  void update(const void* data, std::size_t bytes);
  digest_t digest();  // pads and finishes; the object must not be updated afterwards

  static digest_t of(const void* data, std::size_t bytes, engine e = engine::automatic);
  static bool hardware_available();           // whether engine::automatic uses the SHA extensions here
  static std::string hex(const digest_t& d);  // 64 lowercase hex digits

 private:
  void compress(const std::uint8_t* blocks, std::size_t count);

  std::array<std::uint32_t, 8> h_;
  bool hardware_;
  std::array<std::uint8_t, 64> block_{};
  std::size_t used_ = 0;     // bytes in block_
  std::uint64_t total_ = 0;  // bytes hashed so far
};

}  // namespace jf::detail
