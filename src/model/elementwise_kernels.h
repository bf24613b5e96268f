// Copyright 2026 The inflow Authors.
//
// Internal: the training step's elementwise loops that run per element of
// every parameter or activation (the optimizers' updates, dropout, the
// gradient through ReLU and dropout), compiled once per kernel of
// matmul_kernels.h (the portable build and AVX2 / AVX-512 builds of the
// same loop). They use only IEEE-exact operations (+ - * / sqrt, no
// contraction), so every kernel gives the same bits.

#ifndef INFLOW_MODEL_ELEMENTWISE_KERNELS_H_
#define INFLOW_MODEL_ELEMENTWISE_KERNELS_H_

#include <cstdint>

#include "model/matmul_kernels.h"

namespace inflow::internal {

struct RmsPropParams {
  float lr, one_minus_decay, momentum, epsilon;
};
struct AdamParams {
  float lr_t, one_minus_beta1, one_minus_beta2, epsilon;
};

// TF's ApplyRMSProp, ApplyAdam and ApplyGradientDescent on n elements.
void RmsPropUpdate(TrainKernel kernel, const RmsPropParams& h, int64_t n,
                   const float* g, float* ms, float* mom, float* var);
void AdamUpdate(TrainKernel kernel, const AdamParams& h, int64_t n,
                const float* g, float* m, float* v, float* var);
void SgdUpdate(TrainKernel kernel, float lr, int64_t n, const float* g,
               float* var);

// x[i] = draw[i] < threshold ? x[i] * scale : 0.
void DropoutApply(TrainKernel kernel, int64_t n, const uint32_t* draw,
                  uint32_t threshold, float scale, float* x);
// d[i] = activation[i] > 0 ? d[i] * scale : 0.
void ReluDropoutGrad(TrainKernel kernel, int64_t n, const float* activation,
                     float scale, float* d);

}  // namespace inflow::internal

#endif  // INFLOW_MODEL_ELEMENTWISE_KERNELS_H_
