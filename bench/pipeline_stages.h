// Copyright 2026 The inflow Authors.
//
// bench_pipeline --stages: each stage of the inflow side alone on one
// thread, in ns of the thread's CPU time per record, over every record of the
// shards (each stage's input made beforehand, so that a stage's time is its
// own):
//   read      TFRecordReader ReadUpTo(kReadUpTo) into a RecordBatch (both
//             CRCs, the copy into the batch)
//   crc       crc32c of every record's length and data alone
//   parse     ExampleParser::ParseBatch of a batch (image_raw, label)
//   convert   DecodeRawToFloat(1 / 255) of the parsed image_raw
//   queue     EnqueueMany of the converted batches into a RandomShuffleQueue
//             (capacity 10000, min_after_dequeue 5000) and DequeueMany(128)
//   consume   the consumer's sum over a dequeued batch

#ifndef INFLOW_BENCH_PIPELINE_STAGES_H_
#define INFLOW_BENCH_PIPELINE_STAGES_H_

#include <string>
#include <utility>
#include <vector>

namespace inflow::bench {

// (stage, ns per record), in pipeline order.
std::vector<std::pair<std::string, double>> MeasureStages(
    const std::vector<std::string>& paths);

}  // namespace inflow::bench

#endif  // INFLOW_BENCH_PIPELINE_STAGES_H_
