// SHA-256 blocks through SHA256RNDS2 / SHA256MSG1 / SHA256MSG2 (Intel SDM, "Intel SHA Extensions").
// The state lives in two registers as the instructions want it: ABEF and CDGH (lane 3 first). Each
// SHA256RNDS2 does two rounds with the two low lanes of W + K; 16 groups of four rounds, each group
// also computing the message schedule four words ahead (6.2.2 step 1).
#include "core/sha256_x86.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

namespace jf::detail {

bool sha256_x86_available() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (b & (1u << 29)) != 0;  // CPUID.(EAX=7,ECX=0):EBX.SHA[bit 29]
}

__attribute__((target("sha,sse4.1,ssse3"))) void sha256_x86_compress(std::uint32_t* state, const std::uint8_t* blocks,
                                                                     std::size_t count) {
  // Big-endian words of the message: a byte swap within each 32-bit lane.
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  // state a b c d / e f g h -> ABEF and CDGH.
  __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));         // d c b a (lane 3..0)
  __m128i cdgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));  // h g f e
  t = _mm_shuffle_epi32(t, 0xB1);                                               // c d a b
  cdgh = _mm_shuffle_epi32(cdgh, 0x1B);                                         // e f g h
  __m128i abef = _mm_alignr_epi8(t, cdgh, 8);                                   // a b e f
  cdgh = _mm_blend_epi16(cdgh, t, 0xF0);                                        // c d g h
  const auto* k = reinterpret_cast<const __m128i*>(sha256_round_constants);
  for (std::size_t blk = 0; blk < count; ++blk) {
    const auto* p = reinterpret_cast<const __m128i*>(blocks + 64 * blk);
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];  // w[g % 4] holds W[4g .. 4g+3] when group g runs
    for (int i = 0; i < 4; ++i) w[i] = _mm_shuffle_epi8(_mm_loadu_si128(p + i), swap);
    for (int g = 0; g < 16; ++g) {
      __m128i wk = _mm_add_epi32(w[g & 3], _mm_load_si128(k + g));
      // Rounds 4g and 4g+1 leave ABEF in `cdgh` (the old ABEF is now CDGH); 4g+2 and 4g+3 swap back.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
      if (g < 12) {  // W[4g+16 .. 4g+19] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16]
        __m128i next = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);                   // W[t-16] + s0(W[t-15])
        next = _mm_add_epi32(next, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));  // + W[t-7]
        w[g & 3] = _mm_sha256msg2_epu32(next, w[(g + 3) & 3]);                           // + s1(W[t-2])
      }
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  // ABEF and CDGH -> a b c d / e f g h.
  t = _mm_shuffle_epi32(abef, 0x1B);      // f e b a
  cdgh = _mm_shuffle_epi32(cdgh, 0xB1);   // d c h g
  abef = _mm_blend_epi16(t, cdgh, 0xF0);  // d c b a
  cdgh = _mm_alignr_epi8(cdgh, t, 8);     // h g f e
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), abef);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), cdgh);
}

}  // namespace jf::detail

#else

namespace jf::detail {

bool sha256_x86_available() { return false; }
void sha256_x86_compress(std::uint32_t*, const std::uint8_t*, std::size_t) {}

}  // namespace jf::detail

#endif
