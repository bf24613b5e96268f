// Copyright 2026 The inflow Authors.
//
// bench_pipeline's inflow side: the pipeline as a TF1 user writes it, from
// inflow's pieces: StringInputProducer(shards, num_epochs) -> N reader
// threads (ShuffleBatchJoin's inputs), each with its own TFRecordReader
// doing ReadUpTo(kReadUpTo) into a RecordBatch -> ExampleParser::ParseBatch
// (image_raw bytes, label int64) -> DecodeRawToFloat(1 / 255) ->
// ShuffleBatchJoin(enqueue_many, batch 128, capacity 10000,
// min_after_dequeue 5000) -> the consumer's Next() until OUT_OF_RANGE.

#ifndef INFLOW_BENCH_PIPELINE_INFLOW_H_
#define INFLOW_BENCH_PIPELINE_INFLOW_H_

#include <string>
#include <vector>

#include "pipeline_plain.h"

namespace inflow::bench {

inline constexpr int kReadUpTo = 128;

// Runs the pipeline over `paths` for `num_epochs` with `num_readers`
// reader threads, which add `nice` to their niceness (BatchOptions::nice);
// the consumer runs on the calling thread. Aborts on an error.
LoopResult RunInflowPipeline(const std::vector<std::string>& paths,
                             int num_epochs, int num_readers, int nice);

// The same through the Pipeline builder (input/pipeline.h): features
// image_raw and label, a map function doing DecodeRawToFloat(1 / 255),
// shuffle batching with the same parameters, read_batch kReadUpTo.
LoopResult RunPipelineBuilder(const std::vector<std::string>& paths,
                              int num_epochs, int num_readers, int nice);

}  // namespace inflow::bench

#endif  // INFLOW_BENCH_PIPELINE_INFLOW_H_
