// SHA-256: the FIPS 180-4 example vectors (NIST CSRC "Examples with intermediate values", SHA256.pdf
// and SHA2_Additional), lengths around the padding boundaries (55/56/64 bytes) checked against
// Python's hashlib, and incremental updates split at every point; each through both compression
// functions (the x86 SHA extensions where this CPU has them, and the portable one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "core/sha256.hpp"

namespace jf::detail {
// Readable test names in ctest's listing.
void PrintTo(sha256::engine e, std::ostream* os) { *os << (e == sha256::engine::portable ? "portable" : "automatic"); }
}  // namespace jf::detail

namespace {

using jf::detail::sha256;

class Sha256 : public ::testing::TestWithParam<sha256::engine> {
 protected:
  std::string hex_of(const std::string& s) const { return sha256::hex(sha256::of(s.data(), s.size(), GetParam())); }
};

INSTANTIATE_TEST_SUITE_P(Engines, Sha256, ::testing::Values(sha256::engine::automatic, sha256::engine::portable),
                         [](const auto& info) {
                           return info.param == sha256::engine::portable ? std::string("Portable")
                                                                         : std::string("Automatic");
                         });

TEST_P(Sha256, Fips180Vectors) {
  EXPECT_EQ(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex_of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                   "mnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(hex_of(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// bytes (i * 7 + 3) mod 256; digests from Python's hashlib.sha256.
std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + 3) % 256);
  return s;
}

TEST_P(Sha256, PaddingBoundaries) {
  const std::vector<std::pair<std::size_t, const char*>> cases = {
      {1, "084fed08b978af4d7d196a7446a86b58009e636b611db16211b65a9aadff29c5"},
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {57, "35df609437dcfea3279283ab79fd554e2bf78f8f7ae2de532d8ee300b09e8f73"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
      {1000, "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"},
  };
  for (const auto& [n, want] : cases) EXPECT_EQ(hex_of(pattern(n)), want) << n << " bytes";
}

TEST_P(Sha256, IncrementalUpdatesMatchOneShot) {
  const std::string msg = pattern(200);
  const sha256::digest_t whole = sha256::of(msg.data(), msg.size(), GetParam());
  for (std::size_t a = 0; a <= msg.size(); a += 7)
    for (std::size_t b = a; b <= msg.size(); b += 13) {
      sha256 s(GetParam());
      s.update(msg.data(), a);
      s.update(msg.data() + a, b - a);
      s.update(msg.data() + b, msg.size() - b);
      ASSERT_EQ(s.digest(), whole) << "split at " << a << " and " << b;
    }
  sha256 bytewise(GetParam());
  for (char c : msg) bytewise.update(&c, 1);
  EXPECT_EQ(bytewise.digest(), whole);
}

// Random messages of every length up to 4 KiB and a few large ones, hashed whole and in random
// pieces: the SHA extensions' digests equal the portable ones (the same where this CPU lacks them).
TEST(Sha256Engines, HardwareMatchesPortableOnRandomMessages) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u; SHA extensions %s\n", seed, sha256::hardware_available() ? "used" : "not on this CPU");
  std::mt19937 rng(seed);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 4096; ++n) lengths.push_back(n);
  for (std::size_t n : {65536u, 57791u, 1000003u}) lengths.push_back(n);
  for (std::size_t n : lengths) {
    std::string msg(n, '\0');
    for (char& c : msg) c = static_cast<char>(rng());
    const sha256::digest_t want = sha256::of(msg.data(), n, sha256::engine::portable);
    ASSERT_EQ(sha256::of(msg.data(), n), want) << n << " bytes, seed " << seed;
    sha256 pieces;
    for (std::size_t at = 0; at < n;) {
      const std::size_t take = std::min<std::size_t>(n - at, rng() % 200);
      pieces.update(msg.data() + at, take);
      at += take;
    }
    ASSERT_EQ(pieces.digest(), want) << n << " bytes in pieces, seed " << seed;
  }
}

}  // namespace
