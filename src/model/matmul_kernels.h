// Copyright 2026 The inflow Authors.
//
// Internal: the training step's matrix product, c = a * b with `a` given
// as SparseRows (its nonzero entries) and `b` dense, its kernels, and which
// one runs. Every kernel forms each output element as the same sum in the
// same order (over a's nonzero entries in column order, starting from 0),
// one multiplication and one addition a term, each rounded to float (no
// fused multiply-add): the kernels give the same bits, so a model trains
// to the same weights whichever one runs (docs/PERFORMANCE.md, "Training").
//
// Kernel choice: INFLOW_TRAIN_KERNEL=avx512|avx2|portable, and
// INFLOW_KERNELS (core/kernel_select.h).

#ifndef INFLOW_MODEL_MATMUL_KERNELS_H_
#define INFLOW_MODEL_MATMUL_KERNELS_H_

#include <cstdint>
#include <string_view>

#include "model/sparse_rows.h"

namespace inflow::internal {

// Best first.
enum class TrainKernel {
  kAvx512,    // "avx512": AVX-512F, 128 output columns a pass
  kAvx2,      // "avx2": AVX2, 64 output columns a pass
  kPortable,  // "portable": plain loops
};
inline constexpr TrainKernel kAllTrainKernels[] = {
    TrainKernel::kAvx512, TrainKernel::kAvx2, TrainKernel::kPortable};

std::string_view TrainKernelName(TrainKernel kernel);
bool TrainKernelSupported(TrainKernel kernel);
// The kernel the environment and the CPU choose, worked out now.
TrainKernel ChooseTrainKernel();

// Rows [row_begin, row_end) and columns [col_begin, col_end) of a
// product's output.
struct MatMulBlock {
  int64_t row_begin, row_end, col_begin, col_end;
};

// c (a.rows x n, row-major) = a * b, b (a.cols x n, row-major). `c` must
// not overlap `b`. Precondition: TrainKernelSupported(kernel).
void SparseMatMul(TrainKernel kernel, const SparseRows& a, const float* b,
                  int64_t n, float* c);
// The same for one block of c, the rest of c untouched: each element of
// the block gets the bits SparseMatMul gives it (its sum does not depend
// on which other elements are formed with it), so that blocks covering c
// may be formed on different threads.
void SparseMatMulBlock(TrainKernel kernel, const SparseRows& a, const float* b,
                       int64_t n, const MatMulBlock& block, float* c);

// The kernels (matmul_kernels_x86.cc; chosen only where the CPU has
// them: CpuHasAvx512F, CpuHasAvx2).
void SparseMatMulAvx512(const SparseRows& a, const float* b, int64_t n,
                        const MatMulBlock& block, float* c);
void SparseMatMulAvx2(const SparseRows& a, const float* b, int64_t n,
                      const MatMulBlock& block, float* c);
void SparseMatMulPortable(const SparseRows& a, const float* b, int64_t n,
                          const MatMulBlock& block, float* c);

}  // namespace inflow::internal

#endif  // INFLOW_MODEL_MATMUL_KERNELS_H_
