// Copyright 2026 The inflow Authors.
//
// Pipeline: TF1's reading-from-files input pipeline in one object
// (docs/ARCHITECTURE.md, "Pipeline"):
//
//   files -> string_input_producer(num_epochs, shuffle, seed)
//         -> N reader threads, each: ReadUpTo(read_batch) -> parse the
//            Examples (ParseBatch) -> the map function, if any
//         -> batch_join / shuffle_batch_join (batch / shuffle_batch for
//            one reader), fed with enqueue_many
//         -> Next()
//
//   auto pipeline = Pipeline::Create({
//       .files = {"/data/train-*.tfrecord"},
//       .num_epochs = 3,
//       .features = {{"image", FixedLenFeature({784}, DType::kFloat32)},
//                    {"label", FixedLenFeature({}, DType::kInt64)}},
//       .num_readers = 4,
//       .batching = {.batch_size = 128, .shuffle = true,
//                    .min_after_dequeue = 5000, .seed = 1}}).value();
//   for (Result<Tuple> b = pipeline->Next(); b.ok(); b = pipeline->Next()) {}
//
// The pipeline owns its Coordinator and every thread; its runners go to a
// private collection, not the default one. End of input follows TF's
// cascade (the last epoch's files read, the batching queue closes, Next()
// drains it and returns OUT_OF_RANGE). Any other error of any stage stops
// the pipeline and is returned by Next() (and Close()) with the stage
// first: "read: corrupted record (data checksum) at offset 1041 in f.rec",
// "parse: record f.rec:1041: ...", "map: records f.rec:0 .. f.rec:5210
// (64): ...".

#ifndef INFLOW_INPUT_PIPELINE_H_
#define INFLOW_INPUT_PIPELINE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/metrics.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/batch_source.h"
#include "inflow/input/readers.h"
#include "inflow/io/env.h"

namespace inflow {

enum class RecordFormat {
  kTFRecord,     // TFRecordReader
  kTextLine,     // TextLineReader
  kFixedLength,  // FixedLengthRecordReader
};

// A user function applied to parsed records, a chunk at a time: `rows`
// holds n >= 1 consecutive records of one file (component i of shape [n] +
// row shape i); the result must hold n rows of the declared signature.
struct MapFunction {
  std::function<Result<Tuple>(Tuple rows)> fn;
  std::vector<DType> dtypes;
  std::vector<PartialShape> row_shapes;  // fully defined
  std::vector<std::string> names = {};   // empty or one per dtype
};

struct PipelineOptions {
  // File names and patterns (input/file_match.h), expanded at Create.
  std::vector<std::string> files;
  // nullptr: Env::Default().
  Env* env = nullptr;

  // The filename producer (string_input_producer).
  std::optional<int64_t> num_epochs = std::nullopt;  // nullopt: unlimited
  bool shuffle_files = true;
  int64_t filename_capacity = 32;

  // Reading.
  RecordFormat format = RecordFormat::kTFRecord;
  std::string compression_type = {};  // TFRecord: "", "ZLIB", "GZIP"
  int64_t skip_header_lines = 0;      // text lines
  FixedLengthRecordOptions fixed_length = FixedLengthRecordOptions();

  // The Example features to parse (FixedLenFeature and VarLenFeature), as
  // components in this order, named by their keys. A VarLenFeature is a
  // sparse component (BatchSource::sparse()): each row's values with the
  // dense shape parse_single_example gives that row ([number of values]),
  // batched as tf.train.batch batches SparseTensors. Empty: no parsing; the
  // component is the record itself (a string scalar named "value").
  FeatureSpecs features = {};
  // DecodeRawToFloat fused into parsing, without a string per record: each
  // names a feature of `features` declared FixedLenFeature({}, kString),
  // whose component becomes float32 of row shape [length], byte i of the
  // value times `scale`. A value of another length is a parse error naming
  // the feature and the record. Without a map or the key, and with every
  // other feature numeric, the values go through the batching queue as
  // their bytes and Next() converts each batch (docs/ARCHITECTURE.md, "The
  // copies of a sample").
  struct RawToFloat {
    std::string feature;
    int64_t length = 0;  // >= 1
    float scale = 1.0f;
  };
  std::vector<RawToFloat> raw_to_float = {};
  // Appends the record's key (a string scalar named "key"; readers.h
  // describes the keys) to the parsed components.
  bool include_key = false;
  // Applied after parsing (to the components above); its signature is the
  // pipeline's.
  std::optional<MapFunction> map = std::nullopt;

  // Reader threads, one reader each.
  int num_readers = 1;
  // Records per read (ReadUpTo), parsed and enqueued together.
  int64_t read_batch = 64;

  // Batching; `batching.seed` also seeds the file shuffling.
  BatchingOptions batching = {};

  // Scope of the queues, threads and fill metrics ("<name>/input_producer",
  // "<name>/batch", ...).
  std::string name = "pipeline";
  // nullptr: MetricsRegistry::Default().
  MetricsRegistry* metrics = nullptr;
  // How long Close() waits for the threads once they were told to stop.
  std::chrono::milliseconds stop_grace_period{10000};
};

class Pipeline : public BatchSource {
 public:
  // Matches the files, builds every stage and starts the threads.
  // Errors: NOT_FOUND for a pattern matching no file; INVALID_ARGUMENT for
  // a FixedLenSequenceFeature, a VarLenFeature with raw_to_float or a map,
  // num_readers or read_batch < 1, a bad map signature, or options a stage
  // rejects.
  static Result<std::shared_ptr<Pipeline>> Create(PipelineOptions options);

  // The files the patterns matched, sorted.
  virtual const std::vector<std::string>& files() const = 0;
  // The fill metric tag of the batching queue.
  virtual const std::string& fill_metric_tag() const = 0;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_PIPELINE_H_
