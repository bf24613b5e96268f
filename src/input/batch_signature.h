// Copyright 2026 The inflow Authors.
//
// The static checks of a batching call (TF's _validate, _dtypes, _shapes):
// what the batching queue is created with, or the INVALID_ARGUMENT that TF
// raises while building the graph.

#ifndef INFLOW_INPUT_BATCH_SIGNATURE_H_
#define INFLOW_INPUT_BATCH_SIGNATURE_H_

#include <string>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/input/batching.h"

#include "input/sparse_rows.h"

namespace inflow::internal {

// The queue's components: one dtype, shape and (optionally) name each.
struct BatchSignature {
  std::vector<DType> dtypes;
  // Per-element shapes (without the batch dimension).
  std::vector<PartialShape> shapes;
  std::vector<std::string> names;
  // One per component. A sparse component is in the queue as its handles
  // (int64 [1]); its values' dtype and row rank are here.
  std::vector<SparseRows::Component> components;
  bool has_sparse = false;
};

// Checks `inputs` (one for batch / shuffle_batch, one per thread for the
// *_join forms) against `options` and infers the element shapes:
// consistent dtypes and names across inputs, known ranks, merged shapes
// (the leading dimension dropped with enqueue_many), fully defined shapes
// unless `options.dynamic_pad`, the same sparse components with
// compatible ranks. `function` names the call in messages.
Result<BatchSignature> MakeBatchSignature(const std::vector<BatchInput>& inputs,
                                          const BatchOptions& options,
                                          const std::string& function);

}  // namespace inflow::internal

#endif  // INFLOW_INPUT_BATCH_SIGNATURE_H_
