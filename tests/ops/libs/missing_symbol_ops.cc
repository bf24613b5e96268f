// Copyright 2026 The inflow Authors.
//
// An op library calling a function no library defines
// (inflow_test_undefined_function): dlopen fails and names it.

#include "inflow/ops/op_library.h"

extern "C" int inflow_test_undefined_function();

namespace {

class Undefined : public inflow::ops::OpKernel {
 public:
  inflow::Status Compute(inflow::ops::OpKernelContext& c) override {
    return c.SetOutput(
        0, inflow::Tensor::Scalar<int32_t>(inflow_test_undefined_function()));
  }
};

}  // namespace

INFLOW_OP_LIBRARY(library) {
  using inflow::DType;
  library.AddOp(inflow::ops::OpDef("Undefined").Output("y", DType::kInt32));
  library.AddKernel(
      inflow::ops::MakeKernelDef<Undefined>("Undefined", {DType::kInt32}));
}
