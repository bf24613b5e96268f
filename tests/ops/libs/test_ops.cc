// Copyright 2026 The inflow Authors.
//
// The op library the ops tests load (libinflow_test_ops.so): one op of
// each kind the registration API has. ZeroOut (an attribute with a
// default, a shape function), Scale (float attributes), Counter (stateful,
// no input, ends the input with OUT_OF_RANGE), RunningSum (stateful, one
// input), LineLength (stateful, a string input, ends after a limit),
// Lengths (over a vector: a chunk of records),
// WrongShape (a kernel writing an output of another shape than declared),
// AddInPlace (a mutable input, no output) and Fail (a kernel error).

#include <cstdint>
#include <span>
#include <string>

#include "inflow/ops/op_library.h"

namespace {

using inflow::DType;
using inflow::OkStatus;
using inflow::PartialShape;
using inflow::Result;
using inflow::Status;
using inflow::Tensor;
using inflow::TensorShape;
using inflow::ops::AttrType;
using inflow::ops::MakeKernelDef;
using inflow::ops::OpDef;
using inflow::ops::OpKernel;
using inflow::ops::OpKernelConstruction;
using inflow::ops::OpKernelContext;

// Zeroes every element of an int32 tensor but the one at preserve_index.
class ZeroOutKernel : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(preserve_, c.GetAttr<int64_t>("preserve_index"));
    if (preserve_ < 0) {
      return inflow::InvalidArgumentError("preserve_index must be >= 0, got " +
                                          std::to_string(preserve_));
    }
    return OkStatus();
  }
  Status Compute(OpKernelContext& c) override {
    const Tensor& in = c.input(0);
    if (preserve_ >= in.num_elements() && in.num_elements() > 0) {
      return inflow::InvalidArgumentError(
          "preserve_index " + std::to_string(preserve_) + " is not below " +
          std::to_string(in.num_elements()) + " elements");
    }
    INFLOW_ASSIGN_OR_RETURN(Tensor * out, c.AllocateOutput(0, in.shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<int32_t> values,
                            out->mutable_flat<int32_t>());
    if (!values.empty()) values[preserve_] = in.flat<int32_t>()[preserve_];
    return OkStatus();
  }

 private:
  int64_t preserve_ = 0;
};

// y = x * factor + bias.
class ScaleKernel : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(factor_, c.GetAttr<double>("factor"));
    INFLOW_ASSIGN_OR_RETURN(bias_, c.GetAttr<double>("bias"));
    return OkStatus();
  }
  Status Compute(OpKernelContext& c) override {
    const Tensor& x = c.input(0);
    INFLOW_ASSIGN_OR_RETURN(Tensor * y, c.AllocateOutput(0, x.shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<float> out, y->mutable_flat<float>());
    std::span<const float> in = x.flat<float>();
    for (size_t i = 0; i < in.size(); ++i) {
      out[i] = static_cast<float>(in[i] * factor_ + bias_);
    }
    return OkStatus();
  }

 private:
  double factor_ = 1;
  double bias_ = 0;
};

// 0, 1, ..., limit - 1, then OUT_OF_RANGE on every call.
class CounterKernel : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(limit_, c.GetAttr<int64_t>("limit"));
    return OkStatus();
  }
  Status Compute(OpKernelContext& c) override {
    if (next_ >= limit_) {
      return inflow::OutOfRangeError("counted to " + std::to_string(limit_));
    }
    return c.SetOutput(0, Tensor::Scalar<int64_t>(next_++));
  }

 private:
  int64_t limit_ = 0;
  int64_t next_ = 0;  // the state kept across calls
};

// The sum of every x seen so far.
class RunningSumKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    sum_ += c.input(0).flat<int64_t>()[0];
    return c.SetOutput(0, Tensor::Scalar<int64_t>(sum_));
  }

 private:
  int64_t sum_ = 0;
};

// Declares an output of shape [2] and writes one of shape [3].
class WrongShapeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    return c.SetOutput(0, Tensor(DType::kFloat32, TensorShape({3})));
  }
};

// The length of each line, for `limit` lines (-1: all), then the end of
// the input.
class LineLengthKernel : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(limit_, c.GetAttr<int64_t>("limit"));
    return OkStatus();
  }
  Status Compute(OpKernelContext& c) override {
    if (limit_ >= 0 && seen_ >= limit_) {
      return inflow::OutOfRangeError("read " + std::to_string(limit_) +
                                     " lines");
    }
    ++seen_;
    const std::string& line = c.input(0).flat<std::string>()[0];
    return c.SetOutput(
        0, Tensor::Scalar<int64_t>(static_cast<int64_t>(line.size())));
  }

 private:
  int64_t limit_ = -1;
  int64_t seen_ = 0;
};

// The length of each string of a vector: an op over a chunk of records.
class LengthsKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    std::span<const std::string> in = c.input(0).flat<std::string>();
    INFLOW_ASSIGN_OR_RETURN(Tensor * out,
                            c.AllocateOutput(0, c.input(0).shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<int64_t> v, out->mutable_flat<int64_t>());
    for (size_t i = 0; i < in.size(); ++i) {
      v[i] = static_cast<int64_t>(in[i].size());
    }
    return OkStatus();
  }
};

// acc += x, in place.
class AddInPlaceKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    INFLOW_ASSIGN_OR_RETURN(Tensor acc, c.MutableInput(0));
    INFLOW_ASSIGN_OR_RETURN(std::span<float> a, acc.mutable_flat<float>());
    std::span<const float> x = c.input(1).flat<float>();
    if (x.size() != a.size()) {
      return inflow::InvalidArgumentError("acc and x differ in size");
    }
    for (size_t i = 0; i < a.size(); ++i) a[i] += x[i];
    return OkStatus();
  }
};

class FailKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    INFLOW_ASSIGN_OR_RETURN(std::string message,
                            c.GetAttr<std::string>("message"));
    return inflow::FailedPreconditionError(message);
  }
};

}  // namespace

INFLOW_OP_LIBRARY(library) {
  library.AddOp(OpDef("ZeroOut")
                    .Input("to_zero", DType::kInt32)
                    .Output("zeroed", DType::kInt32)
                    .Attr("preserve_index", 0)
                    .SetShapeFn(inflow::ops::SameShapeAsInput(0))
                    .Doc("Zeroes every element of to_zero but the one at "
                         "preserve_index."));
  library.AddKernel(MakeKernelDef<ZeroOutKernel>("ZeroOut", {DType::kInt32}));

  library.AddOp(OpDef("Scale")
                    .Input("x", DType::kFloat32)
                    .Output("y", DType::kFloat32)
                    .Attr("factor", 2.0)
                    .Attr("bias", 0.0)
                    .SetShapeFn(inflow::ops::SameShapeAsInput(0))
                    .Doc("y = x * factor + bias."));
  library.AddKernel(MakeKernelDef<ScaleKernel>("Scale", {DType::kFloat32}));

  library.AddOp(OpDef("Counter")
                    .Output("value", DType::kInt64, PartialShape({}))
                    .Attr("limit", AttrType::kInt)
                    .SetStateful()
                    .Doc("0, 1, ..., limit - 1, then the end of the input."));
  library.AddKernel(MakeKernelDef<CounterKernel>("Counter", {DType::kInt64}));

  library.AddOp(OpDef("RunningSum")
                    .Input("x", DType::kInt64, PartialShape({}))
                    .Output("sum", DType::kInt64, PartialShape({}))
                    .SetStateful()
                    .Doc("The sum of every x so far."));
  library.AddKernel(
      MakeKernelDef<RunningSumKernel>("RunningSum", {DType::kInt64}));

  library.AddOp(OpDef("LineLength")
                    .Input("line", DType::kString, PartialShape({}))
                    .Output("length", DType::kInt64, PartialShape({}))
                    .Attr("limit", -1)
                    .SetStateful()
                    .Doc("The length of each line; the end of the input "
                         "after `limit` lines (-1: never)."));
  library.AddKernel(
      MakeKernelDef<LineLengthKernel>("LineLength", {DType::kInt64}));

  library.AddOp(OpDef("Lengths")
                    .Input("lines", DType::kString, PartialShape({-1}))
                    .Output("lengths", DType::kInt64, PartialShape({-1}))
                    .Doc("The length of each line."));
  library.AddKernel(MakeKernelDef<LengthsKernel>("Lengths", {DType::kInt64}));

  library.AddOp(OpDef("WrongShape")
                    .Input("x", DType::kFloat32)
                    .Output("y", DType::kFloat32, PartialShape({2})));
  library.AddKernel(
      MakeKernelDef<WrongShapeKernel>("WrongShape", {DType::kFloat32}));

  library.AddOp(OpDef("AddInPlace")
                    .MutableInput("acc", DType::kFloat32)
                    .Input("x", DType::kFloat32)
                    .Doc("acc += x, in place."));
  library.AddKernel(MakeKernelDef<AddInPlaceKernel>("AddInPlace", {}));

  library.AddOp(OpDef("Fail")
                    .Input("x", DType::kFloat32)
                    .Output("y", DType::kFloat32)
                    .Attr("message", "failed"));
  library.AddKernel(MakeKernelDef<FailKernel>("Fail", {DType::kFloat32}));
}
