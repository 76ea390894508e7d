// SHA-256 blocks on x86-64's SHA extensions. The instructions work on the state as two halves,
// (a, b, e, f) and (c, d, g, h); each `sha256rnds2` does two rounds, so four rounds take the
// four message words plus their constants in one register and two calls, and `sha256msg1`/
// `sha256msg2` extend the message schedule four words at a time.
#include "csha256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int sluice_sha256_accelerated(void) {
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  const int sha = (b >> 29) & 1;
  return ssse3 && sse41 && sha;
}

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
static const uint32_t round_constants[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__attribute__((target("sha,sse4.1,ssse3")))
void sluice_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
  // Message words are big-endian: reverse the bytes of each 32-bit lane.
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  // From (a, b, c, d), (e, f, g, h) to the instructions' (a, b, e, f), (c, d, g, h), each
  // with its first word in the high lane.
  __m128i low = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);   // c d a b
  __m128i high = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);  // h g f e
  __m128i abef = _mm_alignr_epi8(low, high, 8);
  __m128i cdgh = _mm_blend_epi16(high, low, 0xF0);

  while (blocks-- > 0) {
    const __m128i abef_before = abef, cdgh_before = cdgh;
    __m128i words[4];
    for (int group = 0; group < 16; group++) {
      // Rounds 4·group … 4·group + 3 take message words 4·group … 4·group + 3.
      if (group < 4) {
        words[group] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), byte_swap);
      }
      const __m128i current = words[group % 4];
      __m128i input = _mm_add_epi32(current, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, input);
      if (group >= 3 && group <= 14) {
        // The next four words: W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], the σ0 half
        // already added by sha256msg1 below, four groups ago.
        const __m128i previous = words[(group + 3) % 4];
        const __m128i seven_back = _mm_alignr_epi8(current, previous, 4);
        words[(group + 1) % 4] = _mm_sha256msg2_epu32(_mm_add_epi32(words[(group + 1) % 4], seven_back), current);
      }
      input = _mm_shuffle_epi32(input, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, input);
      if (group >= 1 && group <= 12) {
        words[(group + 3) % 4] = _mm_sha256msg1_epu32(words[(group + 3) % 4], current);
      }
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
    data += 64;
  }

  // Back to (a, b, c, d), (e, f, g, h).
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

#else

int sluice_sha256_accelerated(void) { return 0; }

void sluice_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
  (void)state;
  (void)data;
  (void)blocks;
}

#endif
