// SHA-256's compression function on the x86 SHA extensions (SHA-NI: Intel since Goldmont and Ice
// Lake, AMD since Zen), chosen at run time: the library is built for any x86-64.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jf::detail {

extern const std::uint32_t sha256_round_constants[64];  // K of FIPS 180-4, 4.2.2 (sha256.cpp)

// Whether this CPU (and this build: x86-64 with GCC or Clang) has the SHA extensions and SSE4.1.
bool sha256_x86_available();

// `count` 64-byte blocks into state (a..h); only where sha256_x86_available().
void sha256_x86_compress(std::uint32_t* state, const std::uint8_t* blocks, std::size_t count);

}  // namespace jf::detail
