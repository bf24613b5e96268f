// Copyright 2026 The inflow Authors.
//
// AddOne: y = x + 1 for int64 x, in an op library built outside the tree.

#include <cstdint>
#include <span>

#include "inflow/ops/op_library.h"

namespace {

class AddOneKernel : public inflow::ops::OpKernel {
 public:
  inflow::Status Compute(inflow::ops::OpKernelContext& c) override {
    const inflow::Tensor& x = c.input(0);
    INFLOW_ASSIGN_OR_RETURN(inflow::Tensor * y, c.AllocateOutput(0, x.shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<int64_t> out, y->mutable_flat<int64_t>());
    std::span<const int64_t> in = x.flat<int64_t>();
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] + 1;
    return inflow::OkStatus();
  }
};

}  // namespace

INFLOW_OP_LIBRARY(library) {
  using inflow::DType;
  library.AddOp(inflow::ops::OpDef("AddOne")
                    .Input("x", DType::kInt64)
                    .Output("y", DType::kInt64)
                    .SetShapeFn(inflow::ops::SameShapeAsInput(0))
                    .Doc("y = x + 1."));
  library.AddKernel(
      inflow::ops::MakeKernelDef<AddOneKernel>("AddOne", {DType::kInt64}));
}
