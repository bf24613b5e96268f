// Copyright 2026 The inflow Authors.
//
// The AVX2 and AVX-512 training kernels (matmul_kernels.h). Output columns
// go in passes of a fixed width (the last pass masked); within a pass, the
// rows of `b` in blocks of kRowBlock (16 KiB of the pass's columns, which
// stay in the L1 cache while every row of `a` uses them); within a block,
// row by row of `a`: the output row's accumulators are loaded (stored
// zeros for the first block), stay in registers while the row's nonzero
// entries in the block go by, each broadcast and multiplied by the
// matching row of `b` (one load per multiplication), then added, and are
// stored. Each output element is still one sum in column order.
// Multiplication and addition are separate instructions, rounded each, as
// in the portable loop (matmul_kernels.h says why).

#include <cstdint>
#include <vector>

#include "model/matmul_kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

// GCC 12's intrinsics headers fill lanes a mask leaves out with an
// "undefined" vector, which -Wmaybe-uninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define INFLOW_AVX512 __attribute__((target("avx512f"), always_inline)) inline
#define INFLOW_AVX2 __attribute__((target("avx2"), always_inline)) inline

namespace inflow::internal {
namespace {

// kVectors vectors of 16 columns from col0, the last one `last` (a mask).
// cursor[r]: row r's first entry not yet used in this pass.
template <int kVectors>
INFLOW_AVX512 void PassAvx512(const SparseRows& a, const float* b, int64_t n,
                              int64_t r0, int64_t r1, int64_t col0,
                              __mmask16 last, float* c, int32_t* cursor) {
  constexpr int32_t kRowBlock = 32;
  const int32_t* index = a.index.data();
  const float* value = a.value.data();
  for (int64_t r = r0; r < r1; ++r) cursor[r] = a.begin[r];
  for (int32_t k0 = 0; k0 == 0 || k0 < a.cols; k0 += kRowBlock) {
    const int32_t k1 = k0 + kRowBlock;
    for (int64_t r = r0; r < r1; ++r) {
      int32_t e = cursor[r];
      const int32_t end = a.begin[r + 1];
      if (k0 > 0 && (e == end || index[e] >= k1)) continue;
      float* out = c + r * n + col0;
      __m512 acc[kVectors];
#pragma GCC unroll 8
      for (int v = 0; v < kVectors - 1; ++v) {
        acc[v] = k0 == 0 ? _mm512_setzero_ps() : _mm512_loadu_ps(out + 16 * v);
      }
      acc[kVectors - 1] =
          k0 == 0 ? _mm512_setzero_ps()
                  : _mm512_maskz_loadu_ps(last, out + 16 * (kVectors - 1));
      for (; e < end && index[e] < k1; ++e) {
        const __m512 s = _mm512_set1_ps(value[e]);
        const float* row = b + static_cast<int64_t>(index[e]) * n + col0;
#pragma GCC unroll 8
        for (int v = 0; v < kVectors - 1; ++v) {
          acc[v] = _mm512_add_ps(
              acc[v], _mm512_mul_ps(s, _mm512_loadu_ps(row + 16 * v)));
        }
        acc[kVectors - 1] = _mm512_add_ps(
            acc[kVectors - 1],
            _mm512_mul_ps(
                s, _mm512_maskz_loadu_ps(last, row + 16 * (kVectors - 1))));
      }
      cursor[r] = e;
#pragma GCC unroll 8
      for (int v = 0; v < kVectors - 1; ++v) {
        _mm512_storeu_ps(out + 16 * v, acc[v]);
      }
      _mm512_mask_storeu_ps(out + 16 * (kVectors - 1), last, acc[kVectors - 1]);
    }
  }
}

template <int kVectors>
INFLOW_AVX2 void PassAvx2(const SparseRows& a, const float* b, int64_t n,
                          int64_t r0, int64_t r1, int64_t col0, __m256i last,
                          float* c, int32_t* cursor) {
  constexpr int32_t kRowBlock = 64;
  const int32_t* index = a.index.data();
  const float* value = a.value.data();
  for (int64_t r = r0; r < r1; ++r) cursor[r] = a.begin[r];
  for (int32_t k0 = 0; k0 == 0 || k0 < a.cols; k0 += kRowBlock) {
    const int32_t k1 = k0 + kRowBlock;
    for (int64_t r = r0; r < r1; ++r) {
      int32_t e = cursor[r];
      const int32_t end = a.begin[r + 1];
      if (k0 > 0 && (e == end || index[e] >= k1)) continue;
      float* out = c + r * n + col0;
      __m256 acc[kVectors];
#pragma GCC unroll 8
      for (int v = 0; v < kVectors - 1; ++v) {
        acc[v] = k0 == 0 ? _mm256_setzero_ps() : _mm256_loadu_ps(out + 8 * v);
      }
      acc[kVectors - 1] =
          k0 == 0 ? _mm256_setzero_ps()
                  : _mm256_maskload_ps(out + 8 * (kVectors - 1), last);
      for (; e < end && index[e] < k1; ++e) {
        const __m256 s = _mm256_set1_ps(value[e]);
        const float* row = b + static_cast<int64_t>(index[e]) * n + col0;
#pragma GCC unroll 8
        for (int v = 0; v < kVectors - 1; ++v) {
          acc[v] = _mm256_add_ps(
              acc[v], _mm256_mul_ps(s, _mm256_loadu_ps(row + 8 * v)));
        }
        acc[kVectors - 1] = _mm256_add_ps(
            acc[kVectors - 1],
            _mm256_mul_ps(s,
                          _mm256_maskload_ps(row + 8 * (kVectors - 1), last)));
      }
      cursor[r] = e;
#pragma GCC unroll 8
      for (int v = 0; v < kVectors - 1; ++v) {
        _mm256_storeu_ps(out + 8 * v, acc[v]);
      }
      _mm256_maskstore_ps(out + 8 * (kVectors - 1), last, acc[kVectors - 1]);
    }
  }
}

}  // namespace

__attribute__((target("avx512f"))) void SparseMatMulAvx512(
    const SparseRows& a, const float* b, int64_t n, const MatMulBlock& block,
    float* c) {
  constexpr int64_t kWidth = 128;
  const int64_t r0 = block.row_begin, r1 = block.row_end;
  const int64_t col1 = block.col_end;
  std::vector<int32_t> cursors(a.rows);
  int32_t* cursor = cursors.data();
  for (int64_t col0 = block.col_begin; col0 < col1; col0 += kWidth) {
    const int64_t w = col1 - col0 < kWidth ? col1 - col0 : kWidth;
    const int vectors = static_cast<int>((w + 15) / 16);
    const int tail = static_cast<int>(w - 16 * (vectors - 1));
    const __mmask16 last = static_cast<__mmask16>((1u << tail) - 1);
    switch (vectors) {
      case 1:
        PassAvx512<1>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 2:
        PassAvx512<2>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 3:
        PassAvx512<3>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 4:
        PassAvx512<4>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 5:
        PassAvx512<5>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 6:
        PassAvx512<6>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 7:
        PassAvx512<7>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      default:
        PassAvx512<8>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
    }
  }
}

__attribute__((target("avx2"))) void SparseMatMulAvx2(const SparseRows& a,
                                                      const float* b, int64_t n,
                                                      const MatMulBlock& block,
                                                      float* c) {
  constexpr int64_t kWidth = 64;
  const int64_t r0 = block.row_begin, r1 = block.row_end;
  const int64_t col1 = block.col_end;
  std::vector<int32_t> cursors(a.rows);
  int32_t* cursor = cursors.data();
  for (int64_t col0 = block.col_begin; col0 < col1; col0 += kWidth) {
    const int64_t w = col1 - col0 < kWidth ? col1 - col0 : kWidth;
    const int vectors = static_cast<int>((w + 7) / 8);
    const int tail = static_cast<int>(w - 8 * (vectors - 1));
    alignas(32) int32_t lanes[8];
    for (int i = 0; i < 8; ++i) lanes[i] = i < tail ? -1 : 0;
    const __m256i last =
        _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
    switch (vectors) {
      case 1:
        PassAvx2<1>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 2:
        PassAvx2<2>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 3:
        PassAvx2<3>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 4:
        PassAvx2<4>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 5:
        PassAvx2<5>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 6:
        PassAvx2<6>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      case 7:
        PassAvx2<7>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
      default:
        PassAvx2<8>(a, b, n, r0, r1, col0, last, c, cursor);
        break;
    }
  }
}

}  // namespace inflow::internal

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#else  // not x86-64

namespace inflow::internal {
void SparseMatMulAvx512(const SparseRows& a, const float* b, int64_t n,
                        const MatMulBlock& block, float* c) {
  SparseMatMulPortable(a, b, n, block, c);
}
void SparseMatMulAvx2(const SparseRows& a, const float* b, int64_t n,
                      const MatMulBlock& block, float* c) {
  SparseMatMulPortable(a, b, n, block, c);
}
}  // namespace inflow::internal

#endif
