// Copyright 2026 The inflow Authors.
//
// Helpers for the train tests: random batches and masks, bitwise float
// comparison, the kernels this CPU runs.

#ifndef INFLOW_TESTS_TRAIN_TRAIN_TEST_UTIL_H_
#define INFLOW_TESTS_TRAIN_TRAIN_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "inflow/core/tensor.h"

#include "kernel_test_util.h"
#include "model/matmul_kernels.h"

namespace inflow::testing {

inline std::vector<internal::TrainKernel> RunnableTrainKernels(
    const char* test) {
  return RunnableKernels<internal::TrainKernel>(
      test, internal::kAllTrainKernels, internal::TrainKernelSupported,
      internal::TrainKernelName);
}

inline uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// float32 [rows, cols]: about `zero_fraction` zeros, the rest uniform in
// [0, 1) (like scaled pixels).
inline Tensor RandomImages(std::mt19937* rng, int64_t rows, int64_t cols,
                           double zero_fraction) {
  Tensor t(DType::kFloat32, TensorShape({rows, cols}));
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  float* d = t.mutable_flat<float>().value().data();
  for (int64_t i = 0; i < rows * cols; ++i) {
    d[i] = u(*rng) < zero_fraction ? 0.0f : u(*rng);
  }
  return t;
}

inline Tensor RandomLabels(std::mt19937* rng, int64_t rows, int64_t classes) {
  Tensor t(DType::kInt64, TensorShape({rows}));
  int64_t* d = t.mutable_flat<int64_t>().value().data();
  for (int64_t i = 0; i < rows; ++i) d[i] = (*rng)() % classes;
  return t;
}

// 0/1 float32 [rows, cols], 1 with probability `keep`.
inline Tensor RandomMask(std::mt19937* rng, int64_t rows, int64_t cols,
                         double keep) {
  Tensor t(DType::kFloat32, TensorShape({rows, cols}));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  float* d = t.mutable_flat<float>().value().data();
  for (int64_t i = 0; i < rows * cols; ++i) d[i] = u(*rng) < keep ? 1.0f : 0.0f;
  return t;
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_TRAIN_TRAIN_TEST_UTIL_H_
