// Copyright 2026 The inflow Authors.
//
// An op's implementation (TF's OpKernel): a class whose Compute reads the
// inputs and attributes from its context and writes the outputs.
//
//   class ZeroOutKernel : public OpKernel {
//    public:
//     Status Initialize(const OpKernelConstruction& c) override {
//       INFLOW_ASSIGN_OR_RETURN(keep_, c.GetAttr<int64_t>("preserve_index"));
//       return OkStatus();
//     }
//     Status Compute(OpKernelContext& c) override {
//       const Tensor& in = c.input(0);
//       INFLOW_ASSIGN_OR_RETURN(Tensor* out, c.AllocateOutput(0, in.shape()));
//       ...
//       return OkStatus();
//     }
//    private:
//     int64_t keep_ = 0;
//   };
//
// One kernel object serves one use of the op (a Node, a Dataset map, a
// Pipeline map) for that use's life: a stateful op keeps its state in its
// members. Compute of a stateless op (OpDef without SetStateful) may run
// on several threads at once and must be thread-safe; a stateful op's
// calls never overlap. Compute runs on inflow's threads, without Python's
// GIL.
//
// Errors: a Compute that fails returns the Status; inflow adds the op's
// name ("op 'ZeroOut': ..."). OUT_OF_RANGE ends the input, as a reader's
// end does: a Dataset iterator (or the Python loop) ends there, a batching
// call's threads stop and close its queue.

#ifndef INFLOW_OPS_OP_KERNEL_H_
#define INFLOW_OPS_OP_KERNEL_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/ops/op_def.h"

namespace inflow::ops {

// What a kernel sees when it is made: its op and the attributes, defaults
// filled in.
class OpKernelConstruction {
 public:
  OpKernelConstruction(const OpDef& op, const AttrMap& attrs,
                       const std::vector<PartialShape>& input_shapes)
      : op_(op), attrs_(attrs), input_shapes_(input_shapes) {}

  const OpDef& op() const { return op_; }
  const AttrMap& attrs() const { return attrs_; }
  // The static shapes of the inputs (unknown rank when not known).
  const std::vector<PartialShape>& input_shapes() const {
    return input_shapes_;
  }
  template <typename T>
  Result<T> GetAttr(std::string_view name) const {
    return attrs_.Get<T>(name);
  }

 private:
  const OpDef& op_;
  const AttrMap& attrs_;
  const std::vector<PartialShape>& input_shapes_;
};

// One call of a kernel: its inputs, attributes and outputs. Implemented by
// inflow; valid during Compute only. Not thread-safe (one per call).
class OpKernelContext {
 public:
  virtual ~OpKernelContext() = default;

  virtual const OpDef& op() const = 0;
  virtual const AttrMap& attrs() const = 0;
  // The inputs, of the declared dtypes and shapes (inflow checks them
  // before Compute). Read-only: a kernel writes only into the inputs
  // declared mutable, through MutableInput.
  virtual int num_inputs() const = 0;
  virtual const Tensor& input(int i) const = 0;
  // Input i for writing in place: the caller's tensor, sharing its buffer.
  // INVALID_ARGUMENT (naming the op and the input) unless the op declares
  // it with MutableInput; FAILED_PRECONDITION when the tensor is read-only.
  virtual Result<Tensor> MutableInput(int i) = 0;
  // Blocking kernels wait with these (their stop token, their deadline).
  virtual const CallOptions& options() const = 0;

  // A new zero-filled tensor of output i's dtype and `shape`, set as output
  // i; the kernel writes its values through mutable_flat(). The pointer is
  // the context's, valid until Compute returns (or output i is set again).
  // INVALID_ARGUMENT (naming the op and the output) for an index out of
  // range or a shape not compatible with the output's static shape.
  virtual Result<Tensor*> AllocateOutput(int i, const TensorShape& shape) = 0;
  // Sets output i to `value` (a tensor the kernel made, or an input passed
  // through). INVALID_ARGUMENT (naming the op and the output) for an index
  // out of range, another dtype or an incompatible shape.
  virtual Status SetOutput(int i, Tensor value) = 0;
  virtual int num_outputs() const = 0;

  const std::string& op_name() const { return op().name(); }
  template <typename T>
  Result<T> GetAttr(std::string_view name) const {
    return attrs().Get<T>(name);
  }
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Called once, before the first Compute; an error fails the creation of
  // the op's use (a Node, a map) with the op's name added.
  virtual Status Initialize(const OpKernelConstruction& /*construction*/) {
    return OkStatus();
  }
  // One call. Every output must be set (AllocateOutput or SetOutput) when
  // it returns OK; inflow checks that and names the op when one is not.
  virtual Status Compute(OpKernelContext& context) = 0;
};

// A kernel's registration (TF's REGISTER_KERNEL_BUILDER): the op it
// implements, the dtypes of the outputs it writes (checked against the
// op's declaration when the library is registered) and how to make one.
struct KernelDef {
  std::string op;
  std::vector<DType> output_dtypes;
  std::function<std::unique_ptr<OpKernel>()> factory;
};

// The KernelDef of kernel class K (default-constructible).
template <typename K>
KernelDef MakeKernelDef(std::string op, std::vector<DType> output_dtypes) {
  return KernelDef{
      std::move(op), std::move(output_dtypes),
      []() -> std::unique_ptr<OpKernel> { return std::make_unique<K>(); }};
}

}  // namespace inflow::ops

#endif  // INFLOW_OPS_OP_KERNEL_H_
