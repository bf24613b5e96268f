// Copyright 2026 The inflow Authors.
//
// An op library declaring ZeroOut, which libinflow_test_ops.so declares
// too: loading both is an error.

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
  library.AddOp(inflow::ops::OpDef("ZeroOut")
                    .Input("x", DType::kInt32)
                    .Output("y", DType::kInt32));
  library.AddKernel(
      inflow::ops::MakeKernelDef<Identity>("ZeroOut", {DType::kInt32}));
}
