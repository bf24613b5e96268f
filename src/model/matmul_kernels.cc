// Copyright 2026 The inflow Authors.
//
// Which training kernel runs (matmul_kernels.h), and the portable one.

#include "model/matmul_kernels.h"

#include <algorithm>
#include <iterator>

#include "core/kernel_select.h"

namespace inflow::internal {
namespace {

KernelInfo Info(TrainKernel kernel) {
  switch (kernel) {
    case TrainKernel::kAvx512:
      return {"avx512", IsaLevel::kAvx512, CpuHasAvx512F()};
    case TrainKernel::kAvx2:
      return {"avx2", IsaLevel::kAvx2, CpuHasAvx2()};
    case TrainKernel::kPortable:
      break;
  }
  return {"portable", IsaLevel::kPortable, true};
}

}  // namespace

std::string_view TrainKernelName(TrainKernel kernel) {
  return Info(kernel).name;
}

bool TrainKernelSupported(TrainKernel kernel) { return Info(kernel).supported; }

TrainKernel ChooseTrainKernel() {
  return SelectKernelOf("INFLOW_TRAIN_KERNEL", kAllTrainKernels, Info);
}

void SparseMatMul(TrainKernel kernel, const SparseRows& a, const float* b,
                  int64_t n, float* c) {
  SparseMatMulBlock(kernel, a, b, n, {0, a.rows, 0, n}, c);
}

void SparseMatMulBlock(TrainKernel kernel, const SparseRows& a, const float* b,
                       int64_t n, const MatMulBlock& block, float* c) {
  switch (kernel) {
    case TrainKernel::kAvx512:
      return SparseMatMulAvx512(a, b, n, block, c);
    case TrainKernel::kAvx2:
      return SparseMatMulAvx2(a, b, n, block, c);
    case TrainKernel::kPortable:
      break;
  }
  SparseMatMulPortable(a, b, n, block, c);
}

void SparseMatMulPortable(const SparseRows& a, const float* b, int64_t n,
                          const MatMulBlock& block, float* c) {
  constexpr int64_t kWidth = 64;
  float acc[kWidth];
  for (int64_t col0 = block.col_begin; col0 < block.col_end; col0 += kWidth) {
    const int64_t w = std::min(kWidth, block.col_end - col0);
    for (int64_t r = block.row_begin; r < block.row_end; ++r) {
      std::fill(acc, acc + w, 0.0f);
      for (int32_t e = a.begin[r]; e < a.begin[r + 1]; ++e) {
        const float s = a.value[e];
        const float* brow = b + static_cast<int64_t>(a.index[e]) * n + col0;
        for (int64_t j = 0; j < w; ++j) acc[j] += s * brow[j];
      }
      std::copy(acc, acc + w, c + r * n + col0);
    }
  }
}

}  // namespace inflow::internal
