// Copyright 2026 The inflow Authors.
//
// CRC-32C by carry-less multiplication with 256-bit VPCLMULQDQ (AVX2 era:
// AMD Zen 3, Intel Ice Lake and later), for buffers of 256 bytes and more
// (the method: crc32c_fold.h). Eight 256-bit accumulators fold 256 bytes
// per step, as many bytes in flight as the 512-bit kernel's four; they are
// then folded into one, which takes the remaining whole 32-byte blocks,
// then into one 128-bit block, which takes the remaining 16-byte ones; the
// crc32 instruction computes the CRC of that block and of the last bytes.
//
// 256-bit folding alone is no faster than the crc32 instruction on three
// streams, but the two use different execution units: from kHybridMinBytes
// on, each step folds 256 bytes of the buffer's front part and runs three
// crc32 streams over its back part, and the four partial CRCs are joined
// by multiplying states by powers of x (see Hybrid).

#include "io/crc32c_internal.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

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

INFLOW_VPCLMUL256_TARGET inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// For states A and B (bit-reflected), A * B * x^33 mod P: the carry-less
// product of reflected operands comes out multiplied by x, and the crc32
// instruction multiplies its 64-bit operand by x^32 as it reduces it.
INFLOW_VPCLMUL256_TARGET inline uint32_t MulModX33(uint32_t a, uint32_t b) {
  const __m128i product =
      _mm_clmulepi64_si128(_mm_cvtsi32_si128(static_cast<int>(a)),
                           _mm_cvtsi32_si128(static_cast<int>(b)), 0);
  return static_cast<uint32_t>(
      _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(product))));
}

// E(e) = x^(e - 33) mod P, so that MulModX33(E(a), E(b)) = E(a + b) and
// MulModX33(state, E(8 * n)) moves a state n bytes forward (feeds it n
// zero bytes). powers[i] = E(2^i) for i >= 6.
INFLOW_VPCLMUL256_TARGET void FillPowers(uint32_t* powers) {
  powers[6] = 1;  // x^31: the coefficient of x^31 is bit 0
  for (int i = 7; i < 64; ++i) {
    powers[i] = MulModX33(powers[i - 1], powers[i - 1]);
  }
}

const uint32_t* Powers() {
  static const std::array<uint32_t, 64> powers = [] {
    std::array<uint32_t, 64> p{};
    FillPowers(p.data());
    return p;
  }();
  return powers.data();
}

// E(e) for e a multiple of 64, at least 64.
INFLOW_VPCLMUL256_TARGET inline uint32_t E(uint64_t e) {
  const uint32_t* powers = Powers();
  int i = std::countr_zero(e);
  uint32_t acc = powers[i];
  for (e &= e - 1; e != 0; e &= e - 1) {
    acc = MulModX33(acc, powers[std::countr_zero(e)]);
  }
  return acc;
}

// The hybrid path's step: 256 bytes folded and kStreamQwords 8-byte words
// on each of three crc32 streams. The folding (two multiplications per
// 32 bytes) and the crc32 instruction (8 bytes a cycle at best) run in
// different execution units, so each step keeps both busy: on a Zen 4
// each alone runs at about 26 GB/s.
constexpr size_t kStreamQwords = 11;
constexpr size_t kStreamBytes = 8 * kStreamQwords;
constexpr size_t kStep = 256 + 3 * kStreamBytes;
// From this size on (after alignment) RawVpclmul256 runs the hybrid path.
constexpr size_t kHybridMinBytes = 4 * kStep;

// The hybrid path over the first K = n / kStep steps' bytes of [p, p + n),
// p 64-byte aligned, K >= 2: a region F of 256 * K bytes folded, then
// three regions A, B, C of kStreamBytes * K bytes through crc32; the state
// after all four is Shift(Shift(Shift(f, |A|) ^ a, |A|) ^ b, |A|) ^ c,
// where f is the state after F and a, b, c the CRCs of A, B, C from a zero
// state. Returns the state after the K steps' bytes; *used gets their
// count.
INFLOW_VPCLMUL256_TARGET uint32_t Hybrid(uint32_t state, const uint8_t* p,
                                         size_t n, size_t* used) {
  const size_t steps = n / kStep;
  const size_t stream = kStreamBytes * steps;
  const uint8_t* f = p;
  const uint8_t* a = p + 256 * steps;
  const uint8_t* b = a + stream;
  const uint8_t* c = b + stream;
  // Needed only at the end; computed first, its latency hides in the loop.
  const uint32_t shift = E(8 * stream);
  const FoldConstants& k = Constants();
  __m256i x[8];
  for (int i = 0; i < 8; ++i) x[i] = Load(f + 32 * i);
  x[0] = _mm256_xor_si256(
      x[0], _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, static_cast<int>(state)));
  f += 256;
  uint64_t ca = 0, cb = 0, cc = 0;
  const __m256i k2048 = Pair2(k.d2048);
  for (size_t j = 1; j < steps; ++j) {
    for (int i = 0; i < 8; ++i) x[i] = Fold256(x[i], k2048, Load(f + 32 * i));
    f += 256;
    for (size_t q = 0; q < kStreamQwords; ++q) {
      ca = _mm_crc32_u64(ca, Load64(a + 8 * q));
      cb = _mm_crc32_u64(cb, Load64(b + 8 * q));
      cc = _mm_crc32_u64(cc, Load64(c + 8 * q));
    }
    a += kStreamBytes;
    b += kStreamBytes;
    c += kStreamBytes;
  }
  for (size_t q = 0; q < kStreamQwords; ++q) {
    ca = _mm_crc32_u64(ca, Load64(a + 8 * q));
    cb = _mm_crc32_u64(cb, Load64(b + 8 * q));
    cc = _mm_crc32_u64(cc, Load64(c + 8 * q));
  }
  const __m256i k256 = Pair2(k.d256);
  __m256i acc = x[0];
  for (int i = 1; i < 8; ++i) acc = Fold256(acc, k256, x[i]);
  const __m128i v = Fold128(_mm256_castsi256_si128(acc), Pair(k.d128),
                            _mm256_extracti128_si256(acc, 1));
  uint8_t block[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(block), v);
  uint32_t s = RawSse42(0, block, sizeof(block));
  s = MulModX33(s, shift) ^ static_cast<uint32_t>(ca);
  s = MulModX33(s, shift) ^ static_cast<uint32_t>(cb);
  s = MulModX33(s, shift) ^ static_cast<uint32_t>(cc);
  *used = steps * kStep;
  return s;
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
  if (n >= kHybridMinBytes) {
    size_t used;
    state = Hybrid(state, p, n, &used);
    return RawSse42(state, p + used, n - used);
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
