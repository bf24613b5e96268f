// Copyright 2026 The inflow Authors.
//
// The op library bench_custom_ops loads: two trivial stateless ops whose
// cost is the custom-op machinery's, beside the same computations as plain
// map functions. BenchAddOne: y = x + 1 (int64, any shape). BenchLength:
// the byte length of a string scalar, made as a tensor of the kernel's
// (SetOutput); BenchLengthInto: the same written into the output the
// context allocates (AllocateOutput); BenchLengths: of each string of a
// vector.

#include <cstdint>
#include <span>
#include <string>

#include "inflow/ops/op_library.h"

namespace {

using inflow::DType;
using inflow::PartialShape;
using inflow::Status;
using inflow::Tensor;

class AddOne : public inflow::ops::OpKernel {
 public:
  Status Compute(inflow::ops::OpKernelContext& c) override {
    const Tensor& x = c.input(0);
    INFLOW_ASSIGN_OR_RETURN(Tensor * y, c.AllocateOutput(0, x.shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<int64_t> out, y->mutable_flat<int64_t>());
    std::span<const int64_t> in = x.flat<int64_t>();
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] + 1;
    return inflow::OkStatus();
  }
};

class Length : public inflow::ops::OpKernel {
 public:
  Status Compute(inflow::ops::OpKernelContext& c) override {
    const std::string& s = c.input(0).flat<std::string>()[0];
    return c.SetOutput(0,
                       Tensor::Scalar<int64_t>(static_cast<int64_t>(s.size())));
  }
};

// Length's computation written into AllocateOutput's tensor.
class LengthInto : public inflow::ops::OpKernel {
 public:
  Status Compute(inflow::ops::OpKernelContext& c) override {
    const std::string& s = c.input(0).flat<std::string>()[0];
    INFLOW_ASSIGN_OR_RETURN(Tensor * out,
                            c.AllocateOutput(0, inflow::TensorShape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<int64_t> v, out->mutable_flat<int64_t>());
    v[0] = static_cast<int64_t>(s.size());
    return inflow::OkStatus();
  }
};

// The length of each string of a vector (a chunk of records).
class Lengths : public inflow::ops::OpKernel {
 public:
  Status Compute(inflow::ops::OpKernelContext& c) override {
    std::span<const std::string> in = c.input(0).flat<std::string>();
    INFLOW_ASSIGN_OR_RETURN(Tensor * out,
                            c.AllocateOutput(0, c.input(0).shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<int64_t> v, out->mutable_flat<int64_t>());
    for (size_t i = 0; i < in.size(); ++i) {
      v[i] = static_cast<int64_t>(in[i].size());
    }
    return inflow::OkStatus();
  }
};

}  // namespace

INFLOW_OP_LIBRARY(library) {
  using inflow::ops::MakeKernelDef;
  using inflow::ops::OpDef;
  library.AddOp(OpDef("BenchAddOne")
                    .Input("x", DType::kInt64)
                    .Output("y", DType::kInt64)
                    .SetShapeFn(inflow::ops::SameShapeAsInput(0)));
  library.AddKernel(MakeKernelDef<AddOne>("BenchAddOne", {DType::kInt64}));
  library.AddOp(OpDef("BenchLength")
                    .Input("s", DType::kString, PartialShape({}))
                    .Output("length", DType::kInt64, PartialShape({})));
  library.AddKernel(MakeKernelDef<Length>("BenchLength", {DType::kInt64}));
  library.AddOp(OpDef("BenchLengthInto")
                    .Input("s", DType::kString, PartialShape({}))
                    .Output("length", DType::kInt64, PartialShape({})));
  library.AddKernel(
      MakeKernelDef<LengthInto>("BenchLengthInto", {DType::kInt64}));
  library.AddOp(OpDef("BenchLengths")
                    .Input("s", DType::kString, PartialShape({-1}))
                    .Output("lengths", DType::kInt64, PartialShape({-1})));
  library.AddKernel(MakeKernelDef<Lengths>("BenchLengths", {DType::kInt64}));
}
