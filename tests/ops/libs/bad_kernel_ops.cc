// Copyright 2026 The inflow Authors.
//
// An op library whose kernel writes int32 for an op declaring a float32
// output, beside a good op: loading it registers neither.

#include "inflow/ops/op_library.h"

namespace {

class Identity : public inflow::ops::OpKernel {
 public:
  inflow::Status Compute(inflow::ops::OpKernelContext& c) override {
    return c.SetOutput(0, c.input(0));
  }
};

}  // namespace

INFLOW_OP_LIBRARY(library) {
  using inflow::DType;
  library.AddOp(inflow::ops::OpDef("GoodIdentity")
                    .Input("x", DType::kFloat32)
                    .Output("y", DType::kFloat32));
  library.AddKernel(
      inflow::ops::MakeKernelDef<Identity>("GoodIdentity", {DType::kFloat32}));
  library.AddOp(inflow::ops::OpDef("BadKernel")
                    .Input("x", DType::kFloat32)
                    .Output("y", DType::kFloat32));
  library.AddKernel(
      inflow::ops::MakeKernelDef<Identity>("BadKernel", {DType::kInt32}));
}
