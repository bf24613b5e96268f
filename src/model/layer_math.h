// Copyright 2026 The inflow Authors.
//
// Internal: the per-row parts of the training step (bias, ReLU, softmax
// cross-entropy, bias gradients), plain loops; the products are
// matmul_kernels.h's, the per-element loops elementwise_kernels.h's.

#ifndef INFLOW_MODEL_LAYER_MATH_H_
#define INFLOW_MODEL_LAYER_MATH_H_

#include <cstdint>

namespace inflow::internal {

// z[r, :] += bias; then ReLU, in place.
void BiasRelu(float* z, int64_t rows, int64_t cols, const float* bias);
// z[r, :] += bias, in place.
void AddBias(float* z, int64_t rows, int64_t cols, const float* bias);

// Softmax cross-entropy of `logits` [rows, cols] against `labels`, as TF's
// SoftmaxCrossEntropyWithLogits with one-hot labels: returns the sum of
// the rows' losses; with `grad`, grad = (softmax - onehot) * grad_scale.
double SoftmaxCrossEntropy(const float* logits, const int64_t* labels,
                           int64_t rows, int64_t cols, float grad_scale,
                           float* grad);
// Softmax of each row, into `out` (may be `logits`).
void Softmax(const float* logits, int64_t rows, int64_t cols, float* out);

// out[c] = sum over rows of d[r, c], rows in order.
void ColumnSums(const float* d, int64_t rows, int64_t cols, float* out);

}  // namespace inflow::internal

#endif  // INFLOW_MODEL_LAYER_MATH_H_
