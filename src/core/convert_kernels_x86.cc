// Copyright 2026 The inflow Authors.
//
// The AVX2 and AVX-512 uint8 -> float kernels (convert_kernels.h): 16 bytes
// zero-extended to 32-bit lanes, converted (exact: every uint8 is a float)
// and multiplied by the scale, the same single rounding as the portable
// loop. Tails run the portable loop.

#include <cstddef>
#include <cstdint>

#include "core/convert_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

// GCC 12's intrinsics headers fill lanes a full mask overwrites with an
// "undefined" vector, which -Wmaybe-uninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace inflow::internal {

__attribute__((target("avx512f"))) void Uint8ToFloatAvx512(const uint8_t* in,
                                                           size_t n,
                                                           float scale,
                                                           float* out) {
  const __m512 s = _mm512_set1_ps(scale);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    for (int k = 0; k < 4; ++k) {
      const __m128i b =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 16 * k));
      const __m512 f = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b));
      _mm512_storeu_ps(out + i + 16 * k, _mm512_mul_ps(f, s));
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m512 f = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b));
    _mm512_storeu_ps(out + i, _mm512_mul_ps(f, s));
  }
  Uint8ToFloatPortable(in + i, n - i, scale, out + i);
}

__attribute__((target("avx2"))) void Uint8ToFloatAvx2(const uint8_t* in,
                                                      size_t n, float scale,
                                                      float* out) {
  const __m256 s = _mm256_set1_ps(scale);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      const __m128i b =
          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i + 8 * k));
      const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
      _mm256_storeu_ps(out + i + 8 * k, _mm256_mul_ps(f, s));
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i));
    const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
    _mm256_storeu_ps(out + i, _mm256_mul_ps(f, s));
  }
  Uint8ToFloatPortable(in + i, n - i, scale, out + i);
}

}  // namespace inflow::internal

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else

namespace inflow::internal {

// Never chosen (not supported); defined so that every kernel links.
void Uint8ToFloatAvx512(const uint8_t* in, size_t n, float scale, float* out) {
  Uint8ToFloatPortable(in, n, scale, out);
}
void Uint8ToFloatAvx2(const uint8_t* in, size_t n, float scale, float* out) {
  Uint8ToFloatPortable(in, n, scale, out);
}

}  // namespace inflow::internal

#endif
