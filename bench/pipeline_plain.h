// Copyright 2026 The inflow Authors.
//
// bench_pipeline's reference: the pipeline's work written as one plain loop
// per thread, with no framework. Each thread reads its shards with POSIX
// reads in 256 KiB chunks, checks both CRCs of every record (inflow's
// crc32c, the fastest kernel), walks the Example by hand for image_raw and
// label, converts the pixels to float32 in [0, 1] straight into a slot of
// its own shuffle buffer (capacity 10000, min_after_dequeue 5000: once
// more than 5000 are held, each new sample evicts a random one into the
// batch), assembles batches of 128 and hands each to the consumer. The
// remainder short of a batch at the end is dropped, as shuffle_batch does.

#ifndef INFLOW_BENCH_PIPELINE_PLAIN_H_
#define INFLOW_BENCH_PIPELINE_PLAIN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace inflow::bench {

inline constexpr int kBatchSize = 128;
inline constexpr int kCapacity = 10000;
inline constexpr int kMinAfterDequeue = 5000;

// What the consumer does with every batch: sums its pixels and labels (so
// that every byte is read). Returns the sum.
double ConsumeBatch(const float* images, const int64_t* labels, size_t n);

struct LoopResult {
  size_t samples = 0;  // delivered in batches
  double checksum = 0;
  // The consuming thread's CPU seconds in Next() and in ConsumeBatch()
  // (the inflow sides; zero for the plain loops, which have no consumer).
  double next_cpu_s = 0;
  double consume_cpu_s = 0;
};

// `num_threads` plain loops; thread t reads paths t, t + num_threads, ...
// num_epochs times over. Aborts on a bad record (the shards are ours).
LoopResult RunPlainLoops(const std::vector<std::string>& paths, int num_epochs,
                         int num_threads);

}  // namespace inflow::bench

#endif  // INFLOW_BENCH_PIPELINE_PLAIN_H_
