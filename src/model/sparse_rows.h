// Copyright 2026 The inflow Authors.
//
// Internal: SparseRows, a row-compressed float matrix (the nonzero entries
// of each row, in column order), which the training kernels take as their
// left operand. ReLU and dropout leave most activations zero, and the
// images' background is zero: a product that walks only the nonzero
// entries does a quarter to a half of a dense product's work. Entries that
// are zero (of either sign) are left out, so a product over SparseRows
// equals the dense product term for term in the same order, except that
// 0 * inf and 0 * NaN terms are not formed.

#ifndef INFLOW_MODEL_SPARSE_ROWS_H_
#define INFLOW_MODEL_SPARSE_ROWS_H_

#include <cstdint>
#include <vector>

namespace inflow::internal {

struct SparseRows {
  int64_t rows = 0;
  int64_t cols = 0;
  // Row r's entries are [begin[r], begin[r + 1]) of index / value (which
  // may be longer: their size only grows, so that refilling allocates
  // nothing).
  std::vector<int32_t> begin;
  std::vector<int32_t> index;
  std::vector<float> value;

  int64_t nonzeros() const { return rows == 0 ? 0 : begin[rows]; }

  // The nonzero entries of the row-major rows x cols matrix `a`.
  void AssignDense(const float* a, int64_t rows, int64_t cols);
  // `a`'s transpose (cols x rows): row c holds column c of `a`, its
  // entries in row order.
  void AssignTransposed(const SparseRows& a);

 private:
  std::vector<int32_t> next_;  // AssignTransposed's scratch
};

// out (cols x rows, row-major) = the transpose of the row-major rows x cols
// matrix `in`.
void Transpose(const float* in, int64_t rows, int64_t cols, float* out);
// The rows [col_begin, col_end) of that transpose (columns of `in`), the
// rest of `out` untouched.
void TransposeColumns(const float* in, int64_t rows, int64_t cols,
                      int64_t col_begin, int64_t col_end, float* out);

}  // namespace inflow::internal

#endif  // INFLOW_MODEL_SPARSE_ROWS_H_
