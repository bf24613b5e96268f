// Copyright 2026 The inflow Authors.
//
// What the model component's own parts and tests reach inside an Mlp for:
// its math threads (which an Optimizer shares) and a training step with
// dropout masks from outside (the tests that compare with TF).

#ifndef INFLOW_SRC_MODEL_MLP_INTERNAL_H_
#define INFLOW_SRC_MODEL_MLP_INTERNAL_H_

#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/model/mlp.h"

namespace inflow::internal {

class MathPool;

// Dropout masks for one step: one float32 tensor per dropout,
// [batch, layer_sizes[i]] for i = 0 (the input) .. hidden layers, an
// element kept where it is nonzero. The mask of a dropout whose keep
// probability is 1 is checked but not used.
struct DropoutMasks {
  std::vector<Tensor> keep;
};

class MlpPeer {
 public:
  // The model's math threads; valid for the life of the model.
  static MathPool* Pool(Mlp& model);
  // Mlp::ComputeGradients with the masks given instead of drawn.
  static Result<float> ComputeGradients(Mlp& model, const Tensor& images,
                                        const Tensor& labels,
                                        const DropoutMasks& masks);
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_MODEL_MLP_INTERNAL_H_
