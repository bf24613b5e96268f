// Copyright 2026 The inflow Authors.
//
// The per-thread work of a Pipeline: read a chunk of records, parse it,
// map it. Each reader thread has its own ReadStage (its own reader); the
// parser and the map function are shared.

#ifndef INFLOW_SRC_INPUT_PIPELINE_STAGES_H_
#define INFLOW_SRC_INPUT_PIPELINE_STAGES_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/pipeline.h"
#include "inflow/input/reader_base.h"
#include "inflow/input/record_batch.h"

#include "input/raw_to_float.h"

namespace inflow {
namespace internal {

// Names, dtypes and row shapes of a stage's output.
struct Signature {
  std::vector<std::string> names;
  std::vector<DType> dtypes;
  std::vector<PartialShape> row_shapes;
  // Empty, or one per component: true for a VarLenFeature's SparseTensor
  // (three tensors in the output; its dtype the values', its row shape
  // [-1]).
  std::vector<bool> sparse = {};
};

// The reader PipelineOptions::format asks for.
Result<std::unique_ptr<ReaderBase>> NewReader(Env& env,
                                              const PipelineOptions& options);

class ReadStage {
 public:
  // What every reader thread shares. Immutable once made.
  struct Shared {
    int64_t read_batch = 1;
    std::optional<ExampleParser> parser;
    // PipelineOptions::raw_to_float, when given.
    std::optional<RawToFloat> raw_to_float;
    bool include_key = false;
    std::optional<MapFunction> map;
    // After parsing (and the key).
    Signature parsed;
    // The pipeline's: `parsed`, or the map's.
    Signature output;
    // Whether StepInto writes rows in place: raw_to_float without a map or
    // the key, and every component numeric. The queue then holds the fused
    // values as bytes (RawToFloat::Write) and its signature is `queued`:
    // `output` with each fused component uint8 [length]; Decode(batch)
    // turns a dequeued batch into `output`'s.
    bool in_place = false;
    Signature queued;
  };
  // INVALID_ARGUMENT for a FixedLenSequenceFeature, a VarLenFeature with
  // raw_to_float or a map, a parser configuration ExampleParser rejects,
  // or a malformed map signature.
  static Result<std::shared_ptr<const Shared>> MakeShared(
      const PipelineOptions& options);

  ReadStage(std::shared_ptr<const Shared> shared,
            std::unique_ptr<ReaderBase> reader,
            std::shared_ptr<QueueInterface> filenames)
      : shared_(std::move(shared)),
        reader_(std::move(reader)),
        filenames_(std::move(filenames)) {
    // The reader is this stage's alone, and a chunk is done with before
    // the next read.
    records_.set_borrow(true);
  }

  // One chunk of rows (one thread at a time): OUT_OF_RANGE once the filename
  // queue is closed and drained (and CANCELLED on a stop) as the reader returns
  // them; any other error with its stage ("read", "parse", "map") and records.
  Result<Tuple> Step(const CallOptions& options);
  // With Shared::in_place (only), a Step that enqueues into `queue`, of
  // Shared::queued: a chunk that RawToFloat::Prepare takes is written
  // straight into the queue (EnqueueManyInPlace: the values go from the
  // records into the queue's slots, with no batch in between); another is
  // parsed in full and enqueued as a batch.
  Status StepInto(QueueInterface& queue, const CallOptions& options);

 private:
  // ReaderBase::ReadUpTo into records_, its errors as Step returns them.
  Status Read(const CallOptions& options);
  Result<Tuple> Parse();
  // Every feature through the parser; raw_to_float's components are left
  // strings [n].
  Result<Tuple> ParseAll() const;
  Result<Tuple> Map(Tuple rows) const;

  const std::shared_ptr<const Shared> shared_;
  const std::unique_ptr<ReaderBase> reader_;
  const std::shared_ptr<QueueInterface> filenames_;
  // The last read's records, reused; they may view the reader's buffer
  // (RecordBatch::set_borrow).
  RecordBatch records_;
  RawToFloat::Scratch raw_to_float_scratch_;
};

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_SRC_INPUT_PIPELINE_STAGES_H_
