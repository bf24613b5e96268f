// Copyright 2026 The inflow Authors.
//
// PipelineOptions::raw_to_float: DecodeRawToFloat fused into a Pipeline's
// parse. The features it names are left out of the parser; each record's
// value is found in the record itself (ExampleView) and converted straight
// from the record bytes into the float batch, with no std::string per
// record. A chunk with anything unusual (a record the reduced parse
// rejects, the feature missing, of another kind or count, split over
// several fields) takes the general path instead: the full ParseBatch,
// then the conversion of its strings, so that defaults, TF's choice among
// repeated keys and every error stay exactly the parser's.

#ifndef INFLOW_SRC_INPUT_RAW_TO_FLOAT_H_
#define INFLOW_SRC_INPUT_RAW_TO_FLOAT_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"
#include "inflow/input/pipeline.h"
#include "inflow/input/record_batch.h"

#include "queue/batch_pool.h"

namespace inflow {
namespace internal {

class RawToFloat {
 public:
  // One thread's reusable state.
  struct Scratch {
    ExampleView view;
    std::vector<std::vector<std::string_view>> values;  // by fused feature
    // Prepare's: the other features' components, parsed (empty tensors in
    // the fused components' places), and the chunk's rows.
    Tuple rest;
    size_t rows = 0;
  };

  // nullopt when options.raw_to_float is empty. INVALID_ARGUMENT for a
  // name that is not a feature, a feature named twice or not declared
  // FixedLenFeature({}, kString), or a length < 1.
  static Result<std::optional<RawToFloat>> Create(
      const PipelineOptions& options);

  // The component of each fused feature, and its row length.
  size_t num_fused() const { return fused_.size(); }
  size_t component(size_t k) const { return fused_[k].component; }
  int64_t length(size_t k) const { return fused_[k].length; }

  // The parsed components of `records` (one per feature, in order), or
  // nullopt when the chunk needs the general path.
  std::optional<Tuple> TryParse(const RecordBatch& records,
                                Scratch* scratch) const;

  // The form a Pipeline's shuffle queue takes (docs/ARCHITECTURE.md, "The
  // copies of a sample"): the fused values travel through the queue as
  // their bytes, uint8 [length], and Decode converts each dequeued batch;
  // 4 times fewer bytes written into the queue and gathered from it than
  // as float32, and the conversion writes into a batch the consumer is
  // about to read. Prepare parses the other features and finds each fused
  // value in its record (views into `records`, which must stay as they are
  // until Write); false when the chunk needs the general path (ParseAll,
  // then ToBytes). Write then writes the scratch->rows rows, row r of
  // component c to rows[c * scratch->rows + r] (as a RowWriter): the
  // other features' values and the fused values' bytes. Every component
  // must be numeric (the other features' dtypes).
  bool Prepare(const RecordBatch& records, Scratch* scratch) const;
  void Write(const Scratch& scratch, std::span<char* const> rows) const;
  // The general path's second half for that form: `rows` from the full
  // parser, whose fused components are strings [n], turned into uint8
  // [n, length]; errors as Convert's.
  Status ToBytes(const RecordBatch& records, Tuple* rows) const;
  // A dequeued batch of that form: its fused components, uint8 [n,
  // length], converted to float32 [n, length] in `pool`'s buffers.
  void Decode(Tuple* batch, BatchPool* pool) const;

  // The general path's second half: `rows` from the full parser, whose
  // fused components are strings [n], converted in place. A value of
  // another length is INVALID_ARGUMENT naming the feature and the record
  // (as "record <key>: ...").
  Status Convert(const RecordBatch& records, Tuple* rows) const;

 private:
  struct Fused {
    size_t component;
    std::string feature;
    int64_t length;
    float scale;
  };
  RawToFloat() = default;
  // INVALID_ARGUMENT, naming the record, when a fused value of `rows`
  // (strings [n] from the parser) is not of its length.
  Status CheckLengths(const RecordBatch& records, const Tuple& rows) const;
  // numeric_'s values of `view` into row `row` of their tensors in
  // `rest`; false when one is absent or of another kind or count.
  bool ReadNumeric(const ExampleView& view, size_t row, Tuple* rest) const;

  std::vector<Fused> fused_;
  // The parser of the other features (nullopt when there are none), and
  // the component of each of its dense outputs.
  std::optional<ExampleParser> rest_;
  std::vector<size_t> rest_components_;
  // When every other feature is a FixedLenFeature of int64 or float32,
  // each, read from the record's ExampleView with the fused ones (one walk
  // of the record instead of the parser's and FindOneBytes'); a record
  // where one is absent or of another kind or count takes the general
  // path, so defaults and errors stay the parser's.
  struct Numeric {
    size_t component;
    std::string feature;
    DType dtype;
    TensorShape shape;
  };
  std::vector<Numeric> numeric_;
  bool rest_from_view_ = false;
  size_t num_components_ = 0;
};

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_SRC_INPUT_RAW_TO_FLOAT_H_
