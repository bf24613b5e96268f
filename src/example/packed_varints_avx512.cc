// Copyright 2026 The inflow Authors.
//
// The AVX-512 (VBMI2) group decoder of packed varints (varint_kernels.h).

#include <bit>
#include <cstddef>
#include <cstdint>

#include "example/varint_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace inflow::internal {

// AVX-512 (VBMI2): eight varints at a time. The terminator bytes of a
// 64-byte window are compressed into a vector of end positions; each
// 64-bit lane then gathers its varint's bytes with one byte permutation and
// joins their 7-bit groups with shifts, as Compact() does.
// GCC 12's intrinsics headers fill lanes a full mask overwrites with an
// "undefined" vector, which -Wmaybe-uninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define INFLOW_AVX512_VARINT_TARGET \
  __attribute__((                   \
      target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))

// Decodes groups of 8 varints of at most 8 bytes each from the front of
// `payload` while every byte touched lies before p + loadable and the
// group ends inside the payload. Returns the number of bytes consumed
// (a varint boundary); *count gets the values written (a multiple of 8,
// at most capacity).
INFLOW_AVX512_VARINT_TARGET size_t DecodeGroupsAvx512(const uint8_t* p,
                                                      size_t n, size_t loadable,
                                                      int64_t* out,
                                                      int64_t capacity,
                                                      int64_t* count) {
  // Lane k (bytes 8k..8k+7) gathers the bytes of the k-th varint.
  const __m512i lane_of = _mm512_set_epi64(
      0x0707070707070707, 0x0606060606060606, 0x0505050505050505,
      0x0404040404040404, 0x0303030303030303, 0x0202020202020202,
      0x0101010101010101, 0x0000000000000000);
  const __m512i byte_in_lane = _mm512_set1_epi64(0x0706050403020100);
  const __m512i iota = _mm512_set_epi8(
      63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46,
      45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28,
      27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
      8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i one = _mm512_set1_epi8(1);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i low7 = _mm512_set1_epi8(0x7f);
  size_t start = 0;
  int64_t done = 0;
  while (start + 64 <= loadable && done + 8 <= capacity) {
    const __m512i w = _mm512_loadu_si512(p + start);
    const uint64_t ends = ~_mm512_movepi8_mask(w);
    // The 8th varint's last byte, and all 8 within the payload.
    if (std::popcount(ends) < 8) break;
    const uint64_t eighth = _pdep_u64(uint64_t{1} << 7, ends);
    const unsigned last = static_cast<unsigned>(std::countr_zero(eighth));
    if (start + last >= n) break;
    // End positions e_0..e_7, and starts s_k = e_{k-1} + 1 (s_0 = 0).
    const __m512i e = _mm512_mask_compress_epi8(zero, ends, iota);
    const __m512i s =
        _mm512_mask_expand_epi8(zero, ~uint64_t{1}, _mm512_add_epi8(e, one));
    // Lengths e_k - s_k + 1 must be at most 8.
    const __m512i len = _mm512_sub_epi8(_mm512_add_epi8(e, one), s);
    if (_mm512_mask_cmpgt_epu8_mask(0xff, len, _mm512_set1_epi8(8)) != 0) break;
    const __m512i s_b =
        _mm512_mask_permutexvar_epi8(zero, ~uint64_t{0}, lane_of, s);
    const __m512i len_b =
        _mm512_mask_permutexvar_epi8(zero, ~uint64_t{0}, lane_of, len);
    const __mmask64 keep = _mm512_cmplt_epu8_mask(byte_in_lane, len_b);
    const __m512i idx = _mm512_add_epi8(s_b, byte_in_lane);
    __m512i x = _mm512_mask_permutexvar_epi8(zero, keep, idx, w);
    x = _mm512_and_si512(x, low7);
    // Join the 7-bit groups: pairs, pairs of pairs, then halves.
    x = _mm512_or_si512(
        _mm512_and_si512(x, _mm512_set1_epi64(0x007f007f007f007fll)),
        _mm512_srli_epi64(
            _mm512_and_si512(x, _mm512_set1_epi64(0x7f007f007f007f00ll)), 1));
    x = _mm512_or_si512(
        _mm512_and_si512(x, _mm512_set1_epi64(0x00003fff00003fffll)),
        _mm512_srli_epi64(
            _mm512_and_si512(x, _mm512_set1_epi64(0x3fff00003fff0000ll)), 2));
    x = _mm512_or_si512(
        _mm512_and_si512(x, _mm512_set1_epi64(0x000000000fffffffll)),
        _mm512_srli_epi64(
            _mm512_and_si512(x, _mm512_set1_epi64(0x0fffffff00000000ll)), 4));
    _mm512_storeu_si512(out + done, x);
    done += 8;
    start += last + 1;
  }
  *count = done;
  return start;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool Avx512Vbmi2Supported() {
  static const bool kHas =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") &&
                                 __builtin_cpu_supports("avx512bw") &&
                                 __builtin_cpu_supports("avx512vbmi") &&
                                 __builtin_cpu_supports("avx512vbmi2") &&
                                 __builtin_cpu_supports("bmi2") &&
                                 __builtin_cpu_supports("popcnt"));
  return kHas;
}

}  // namespace inflow::internal

#else

namespace inflow::internal {

bool Avx512Vbmi2Supported() { return false; }
size_t DecodeGroupsAvx512(const uint8_t*, size_t, size_t, int64_t*, int64_t,
                          int64_t* count) {
  *count = 0;
  return 0;
}

}  // namespace inflow::internal

#endif
