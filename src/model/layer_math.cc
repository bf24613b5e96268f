// Copyright 2026 The inflow Authors.

#include "model/layer_math.h"

#include <algorithm>
#include <cmath>

namespace inflow::internal {

void BiasRelu(float* z, int64_t rows, int64_t cols, const float* bias) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = z + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = row[c] + bias[c];
      row[c] = v > 0.0f ? v : 0.0f;
    }
  }
}

void AddBias(float* z, int64_t rows, int64_t cols, const float* bias) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = z + r * cols;
    for (int64_t c = 0; c < cols; ++c) row[c] += bias[c];
  }
}

double SoftmaxCrossEntropy(const float* logits, const int64_t* labels,
                           int64_t rows, int64_t cols, float grad_scale,
                           float* grad) {
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits + r * cols;
    const float max = *std::max_element(row, row + cols);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - max);
    const float log_sum = std::log(sum);
    total += static_cast<double>(log_sum - (row[labels[r]] - max));
    if (grad == nullptr) continue;
    float* g = grad + r * cols;
    for (int64_t c = 0; c < cols; ++c) {
      const float p = std::exp(row[c] - max) / sum;
      g[c] = (p - (c == labels[r] ? 1.0f : 0.0f)) * grad_scale;
    }
  }
  return total;
}

void Softmax(const float* logits, int64_t rows, int64_t cols, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = logits + r * cols;
    float* o = out + r * cols;
    const float max = *std::max_element(row, row + cols);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      o[c] = std::exp(row[c] - max);
      sum += o[c];
    }
    for (int64_t c = 0; c < cols; ++c) o[c] /= sum;
  }
}

void ColumnSums(const float* d, int64_t rows, int64_t cols, float* out) {
  std::fill(out, out + cols, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = d + r * cols;
    for (int64_t c = 0; c < cols; ++c) out[c] += row[c];
  }
}

}  // namespace inflow::internal
