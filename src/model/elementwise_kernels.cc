// Copyright 2026 The inflow Authors.
//
// The elementwise loops (elementwise_kernels.h): each body is written once,
// always inlined into a portable entry point and, on x86-64, into AVX2 and
// AVX-512 ones, where the compiler vectorizes it for that instruction set.

#include "model/elementwise_kernels.h"

#include <cmath>

#define INFLOW_BODY __attribute__((always_inline)) inline

namespace inflow::internal {
namespace {

INFLOW_BODY void RmsPropBody(const RmsPropParams& h, int64_t n, const float* g,
                             float* ms, float* mom, float* var) {
  for (int64_t k = 0; k < n; ++k) {
    ms[k] += (g[k] * g[k] - ms[k]) * h.one_minus_decay;
    mom[k] = mom[k] * h.momentum + g[k] * h.lr / std::sqrt(ms[k] + h.epsilon);
    var[k] -= mom[k];
  }
}

INFLOW_BODY void AdamBody(const AdamParams& h, int64_t n, const float* g,
                          float* m, float* v, float* var) {
  for (int64_t k = 0; k < n; ++k) {
    m[k] += (g[k] - m[k]) * h.one_minus_beta1;
    v[k] += (g[k] * g[k] - v[k]) * h.one_minus_beta2;
    var[k] -= (m[k] * h.lr_t) / (std::sqrt(v[k]) + h.epsilon);
  }
}

INFLOW_BODY void SgdBody(float lr, int64_t n, const float* g, float* var) {
  for (int64_t k = 0; k < n; ++k) var[k] -= g[k] * lr;
}

INFLOW_BODY void DropoutBody(int64_t n, const uint32_t* draw,
                             uint32_t threshold, float scale, float* x) {
  for (int64_t i = 0; i < n; ++i) {
    x[i] = draw[i] < threshold ? x[i] * scale : 0.0f;
  }
}

INFLOW_BODY void ReluGradBody(int64_t n, const float* activation, float scale,
                              float* d) {
  for (int64_t i = 0; i < n; ++i) {
    d[i] = activation[i] > 0.0f ? d[i] * scale : 0.0f;
  }
}

// One entry point per kernel for each body: Name##Portable, and on x86-64
// Name##Avx2 and Name##Avx512.
#define INFLOW_ENTRY(target, suffix, Body, Name, Params, Args) \
  target void Name##suffix Params { Body Args; }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define INFLOW_ENTRIES(Body, Name, Params, Args)                               \
  INFLOW_ENTRY(, Portable, Body, Name, Params, Args)                           \
  INFLOW_ENTRY(__attribute__((target("avx2"))), Avx2, Body, Name, Params,      \
               Args)                                                           \
  INFLOW_ENTRY(__attribute__((target("avx512f"))), Avx512, Body, Name, Params, \
               Args)
#define INFLOW_DISPATCH(kernel, Name, Args) \
  switch (kernel) {                         \
    case TrainKernel::kAvx512:              \
      return Name##Avx512 Args;             \
    case TrainKernel::kAvx2:                \
      return Name##Avx2 Args;               \
    case TrainKernel::kPortable:            \
      break;                                \
  }                                         \
  return Name##Portable Args
#else
#define INFLOW_ENTRIES(Body, Name, Params, Args) \
  INFLOW_ENTRY(, Portable, Body, Name, Params, Args)
#define INFLOW_DISPATCH(kernel, Name, Args) \
  (void)kernel;                             \
  return Name##Portable Args
#endif

INFLOW_ENTRIES(RmsPropBody, RmsProp,
               (const RmsPropParams& h, int64_t n, const float* g, float* ms,
                float* mom, float* var),
               (h, n, g, ms, mom, var))
INFLOW_ENTRIES(AdamBody, Adam,
               (const AdamParams& h, int64_t n, const float* g, float* m,
                float* v, float* var),
               (h, n, g, m, v, var))
INFLOW_ENTRIES(SgdBody, Sgd, (float lr, int64_t n, const float* g, float* var),
               (lr, n, g, var))
INFLOW_ENTRIES(DropoutBody, Dropout,
               (int64_t n, const uint32_t* draw, uint32_t threshold,
                float scale, float* x),
               (n, draw, threshold, scale, x))
INFLOW_ENTRIES(ReluGradBody, ReluGrad,
               (int64_t n, const float* activation, float scale, float* d),
               (n, activation, scale, d))

}  // namespace

void RmsPropUpdate(TrainKernel kernel, const RmsPropParams& h, int64_t n,
                   const float* g, float* ms, float* mom, float* var) {
  INFLOW_DISPATCH(kernel, RmsProp, (h, n, g, ms, mom, var));
}

void AdamUpdate(TrainKernel kernel, const AdamParams& h, int64_t n,
                const float* g, float* m, float* v, float* var) {
  INFLOW_DISPATCH(kernel, Adam, (h, n, g, m, v, var));
}

void SgdUpdate(TrainKernel kernel, float lr, int64_t n, const float* g,
               float* var) {
  INFLOW_DISPATCH(kernel, Sgd, (lr, n, g, var));
}

void DropoutApply(TrainKernel kernel, int64_t n, const uint32_t* draw,
                  uint32_t threshold, float scale, float* x) {
  INFLOW_DISPATCH(kernel, Dropout, (n, draw, threshold, scale, x));
}

void ReluDropoutGrad(TrainKernel kernel, int64_t n, const float* activation,
                     float scale, float* d) {
  INFLOW_DISPATCH(kernel, ReluGrad, (n, activation, scale, d));
}

}  // namespace inflow::internal
