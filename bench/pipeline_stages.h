// Copyright 2026 The inflow Authors.
//
// bench_pipeline --stages: the stages of the inflow side on one thread,
// one batch of records at a time through all of them, over every record of
// the shards, in ns of the thread's CPU time per record (a clock read
// between stages; nothing kept, so memory is recycled as in the running
// pipeline):
//   read      TFRecordReader ReadUpTo(kReadUpTo) into a RecordBatch (both
//             CRCs, the copy into the batch)
//   crc       crc32c of every record's length and data again, alone
//   parse     ExampleParser::ParseBatch of the batch (image_raw, label)
//   convert   DecodeRawToFloat(1 / 255) of the parsed image_raw
//   enqueue   EnqueueMany of the converted batch into a RandomShuffleQueue
//             (capacity 10000, min_after_dequeue 5000)
//   dequeue   DequeueMany(128) while 5000 + 128 or more are held (per
//             record dequeued)
//   consume   the consumer's sum over the dequeued batches

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
