// Copyright 2026 The inflow Authors.
//
// CRC-32C by carry-less multiplication with 256-bit VPCLMULQDQ (AVX2 era:
// AMD Zen 3, Intel Ice Lake and later), for buffers of 256 bytes and more
// (the method: crc32c_fold.h). Eight 256-bit accumulators fold 256 bytes
// per step, as many bytes in flight as the 512-bit kernel's four; they are
// then folded into one, which takes the remaining whole 32-byte blocks,
// then into one 128-bit block, which takes the remaining 16-byte ones; the
// crc32 instruction computes the CRC of that block and of the last bytes.

#include "io/crc32c_internal.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <array>
#include <cstdint>

#include "io/crc32c_fold.h"

namespace inflow::crc32c::internal {
namespace {

#define INFLOW_VPCLMUL256_TARGET \
  __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

INFLOW_VPCLMUL256_TARGET inline __m256i Fold256(__m256i x, __m256i k,
                                                __m256i data) {
  const __m256i a = _mm256_clmulepi64_epi128(x, k, 0x00);
  const __m256i b = _mm256_clmulepi64_epi128(x, k, 0x11);
  return _mm256_xor_si256(_mm256_xor_si256(a, data), b);
}

INFLOW_VPCLMUL256_TARGET inline __m128i Fold128(__m128i x, __m128i k,
                                                __m128i data) {
  const __m128i a = _mm_clmulepi64_si128(x, k, 0x00);
  const __m128i b = _mm_clmulepi64_si128(x, k, 0x11);
  return _mm_xor_si128(_mm_xor_si128(a, data), b);
}

INFLOW_VPCLMUL256_TARGET inline __m128i Pair(const std::array<uint64_t, 2>& k) {
  return _mm_set_epi64x(static_cast<long long>(k[1]),
                        static_cast<long long>(k[0]));
}

INFLOW_VPCLMUL256_TARGET inline __m256i Pair2(
    const std::array<uint64_t, 2>& k) {
  const auto lo = static_cast<long long>(k[0]);
  const auto hi = static_cast<long long>(k[1]);
  return _mm256_set_epi64x(hi, lo, hi, lo);
}

INFLOW_VPCLMUL256_TARGET inline __m256i Load(const uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

}  // namespace

bool Vpclmul256Supported() {
  static const bool supported =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq") &&
      __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2");
  return supported;
}

INFLOW_VPCLMUL256_TARGET uint32_t RawVpclmul256(uint32_t state,
                                                const uint8_t* p, size_t n) {
  if (n < 256) return RawSse42(state, p, n);
  // Loads that straddle two cache lines cost two: the crc32 instruction
  // takes the bytes up to the next line boundary first.
  if (const size_t misaligned = reinterpret_cast<uintptr_t>(p) & 63) {
    const size_t head = 64 - misaligned;
    state = RawSse42(state, p, head);
    p += head;
    n -= head;
    if (n < 256) return RawSse42(state, p, n);
  }
  const FoldConstants& c = Constants();
  __m256i x[8];
  for (int i = 0; i < 8; ++i) x[i] = Load(p + 32 * i);
  // The incoming state joins the first four bytes.
  x[0] = _mm256_xor_si256(
      x[0], _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, static_cast<int>(state)));
  p += 256;
  n -= 256;
  const __m256i k2048 = Pair2(c.d2048);
  while (n >= 256) {
    for (int i = 0; i < 8; ++i) x[i] = Fold256(x[i], k2048, Load(p + 32 * i));
    p += 256;
    n -= 256;
  }
  // Each accumulator onto the next (32 bytes later), then the remaining
  // whole 32-byte blocks (up to seven) onto the last.
  const __m256i k256 = Pair2(c.d256);
  __m256i acc = x[0];
  for (int i = 1; i < 8; ++i) acc = Fold256(acc, k256, x[i]);
  while (n >= 32) {
    acc = Fold256(acc, k256, Load(p));
    p += 32;
    n -= 32;
  }
  // The two 128-bit lanes, earlier onto later, then 16-byte blocks.
  const __m128i k128 = Pair(c.d128);
  __m128i v = Fold128(_mm256_castsi256_si128(acc), k128,
                      _mm256_extracti128_si256(acc, 1));
  while (n >= 16) {
    v = Fold128(v, k128, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    p += 16;
    n -= 16;
  }
  uint8_t block[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(block), v);
  const uint32_t folded = RawSse42(0, block, sizeof(block));
  return RawSse42(folded, p, n);
}

}  // namespace inflow::crc32c::internal

#endif  // defined(__x86_64__)
