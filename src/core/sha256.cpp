// SHA-256 as specified in FIPS 180-4, sections 4.1.2, 4.2.2, 5.1.1, 5.3.3 and 6.2.
#include "core/sha256.hpp"

#include <algorithm>
#include <cstring>

#include "core/sha256_x86.hpp"

namespace jf::detail {

alignas(16) const std::uint32_t sha256_round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

namespace {

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// One 64-byte block (6.2.2).
void compress_portable(std::uint32_t* state, const std::uint8_t* p) {
  const std::uint32_t* k = sha256_round_constants;
  std::uint32_t w[64];
  for (int t = 0; t < 16; ++t)
    w[t] = std::uint32_t(p[4 * t]) << 24 | std::uint32_t(p[4 * t + 1]) << 16 | std::uint32_t(p[4 * t + 2]) << 8 |
           std::uint32_t(p[4 * t + 3]);
  for (int t = 16; t < 64; ++t) {
    const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6],
                h = state[7];
  for (int t = 0; t < 64; ++t) {
    const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t];
    const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

}  // namespace

sha256::sha256(engine e)
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      hardware_(e == engine::automatic && hardware_available()) {}

bool sha256::hardware_available() {
  static const bool yes = sha256_x86_available();
  return yes;
}

void sha256::compress(const std::uint8_t* blocks, std::size_t count) {
  if (hardware_) {
    sha256_x86_compress(h_.data(), blocks, count);
    return;
  }
  for (std::size_t i = 0; i < count; ++i) compress_portable(h_.data(), blocks + 64 * i);
}

void sha256::update(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  total_ += bytes;
  if (used_ > 0) {  // complete the buffered block first
    const std::size_t n = std::min(bytes, block_.size() - used_);
    std::memcpy(block_.data() + used_, p, n);
    used_ += n;
    p += n;
    bytes -= n;
    if (used_ < block_.size()) return;
    compress(block_.data(), 1);
    used_ = 0;
  }
  const std::size_t whole = bytes / 64;  // whole blocks straight from the input
  compress(p, whole);
  p += 64 * whole;
  bytes -= 64 * whole;
  std::memcpy(block_.data(), p, bytes);
  used_ = bytes;
}

sha256::digest_t sha256::digest() {
  const std::uint64_t bits = total_ * 8;  // the message length modulo 2^64 bits (5.1.1)
  const std::uint8_t one = 0x80, zero = 0;
  update(&one, 1);
  while (used_ != 56) update(&zero, 1);
  std::uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  update(len, 8);
  digest_t out;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * j));
  return out;
}

sha256::digest_t sha256::of(const void* data, std::size_t bytes, engine e) {
  sha256 s(e);
  s.update(data, bytes);
  return s.digest();
}

std::string sha256::hex(const digest_t& d) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (std::uint8_t b : d) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace jf::detail
