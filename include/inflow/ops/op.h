// Copyright 2026 The inflow Authors.
//
// A use of a registered op (op_library.h): the op with its attributes and
// one kernel object, run as a step of a Dataset map, a Pipeline map or
// directly.
//
//   INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<Op> op,
//                           Op::Create("ZeroOut", {{"preserve_index", 1}}));
//   INFLOW_ASSIGN_OR_RETURN(Tuple out, op->Run({Tensor::FromVector(v)}));
//   data::Dataset zeroed = ds.Map(OpMapFn(op));
//
// Every error names the op ("op 'ZeroOut': ...").

#ifndef INFLOW_OPS_OP_H_
#define INFLOW_OPS_OP_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/data/dataset.h"
#include "inflow/input/pipeline.h"
#include "inflow/ops/op_def.h"

namespace inflow::ops {

// The declaration of the registered op `name`, or nullptr. A registered op
// stays registered for the life of the process. Thread-safe.
const OpDef* FindOp(std::string_view name);
// The names of every registered op, sorted. Thread-safe.
std::vector<std::string> RegisteredOps();

// What one call of an op in a Pipeline map gets.
enum class OpMapUnit {
  // One parsed record: component i of its row shape; the outputs are
  // stacked into the chunk's.
  kRecord,
  // A chunk of the n records read together (PipelineOptions::read_batch):
  // component i of shape [n] + its row shape; every output must have n
  // rows. For an op written over batches: one call per chunk.
  kChunk,
};

// Thread-safe: Run may be called from several threads; a stateful op's
// kernel runs one call at a time, a stateless one's at once.
class Op {
 public:
  // The op `name` with `attrs` (the declared defaults fill in the others)
  // for inputs of static shapes `input_shapes` (empty: the declared
  // shapes). Makes and initializes its kernel.
  // Errors: NOT_FOUND for an op not registered; INVALID_ARGUMENT for an
  // attribute the op does not declare, of another type (an int is taken
  // for a float) or missing without a default, input shapes of another
  // count or not compatible with the declared ones, output shapes (of the
  // shape function) not compatible with the declared ones, and the
  // shape function's and the kernel's Initialize errors.
  static Result<std::shared_ptr<Op>> Create(
      std::string_view name, AttrMap attrs = {},
      std::vector<PartialShape> input_shapes = {});

  struct Rep;
  // Use Create (a Rep is inflow's own).
  explicit Op(std::unique_ptr<Rep> rep);
  ~Op();
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  const OpDef& def() const;
  const std::string& name() const;
  // With the defaults filled in.
  const AttrMap& attrs() const;
  const std::vector<PartialShape>& input_shapes() const;
  std::vector<DType> output_dtypes() const;
  // The declared output shapes, refined by the shape function.
  const std::vector<PartialShape>& output_shapes() const;

  // One call of the kernel. INVALID_ARGUMENT (naming the op and the input)
  // for inputs of another count, dtype or shape than the op takes, and
  // (naming the output) for an output the kernel did not set or set to
  // another dtype or an incompatible shape. The kernel's own errors come
  // back with the op's name added, OUT_OF_RANGE (the end of the input)
  // included.
  [[nodiscard]] Result<Tuple> Run(const Tuple& inputs,
                                  const CallOptions& options = {}) const;

 private:
  friend Result<MapFunction> OpPipelineMap(std::shared_ptr<const Op> op,
                                           OpMapUnit unit);
  class Context;
  // One kernel call on a Context; OK once every output is set.
  Status Compute(Context& context) const;
  // The same with a stateful kernel's lock held (or not needed).
  Status ComputeHeld(Context& context) const;
  // One call per row of `chunk` (input i: [n] + a row shape of input i,
  // checked once), writing row r's outputs into row r of `batch` (output
  // i: a zeroed, writable [n] + its fully defined static shape, numeric;
  // at most 64 outputs): the kernel's AllocateOutput hands out the row, an
  // output the kernel sets is copied into it.
  [[nodiscard]] Status RunRows(const Tuple& chunk, Tuple& batch) const;

  std::unique_ptr<Rep> rep_;
};

// op as a Dataset map function: an element's components are its inputs,
// its outputs the new element. A kernel's OUT_OF_RANGE ends the iteration
// (Iterator::Next returns it, and a Python loop stops).
data::MapFn OpMapFn(std::shared_ptr<const Op> op);

// op as a Pipeline map (PipelineOptions::map). INVALID_ARGUMENT when an
// output's static shape is not fully defined (kRecord) or not [?] + a
// fully defined row shape (kChunk): the Pipeline's rows are of fixed
// shape. A kChunk call whose outputs have another number of rows than its
// inputs fails naming the op. A kernel's OUT_OF_RANGE ends the input: the
// pipeline hands out what is batched, then OUT_OF_RANGE.
Result<MapFunction> OpPipelineMap(std::shared_ptr<const Op> op,
                                  OpMapUnit unit = OpMapUnit::kRecord);

}  // namespace inflow::ops

#endif  // INFLOW_OPS_OP_H_
