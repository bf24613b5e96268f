// Copyright 2026 The inflow Authors.

#include "pipeline_stages.h"

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <benchmark/benchmark.h>

#include "inflow/example/decode_raw.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/readers.h"
#include "inflow/io/crc32c.h"
#include "inflow/queue/random_shuffle_queue.h"

#include "pipeline_data.h"
#include "pipeline_inflow.h"
#include "pipeline_plain.h"

namespace inflow::bench {
namespace {

// This thread's CPU time in seconds: a stage's own work, without the
// time the thread waits for a core on a busy machine.
double ThreadSeconds() {
  timespec ts;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::shared_ptr<QueueInterface> Filenames(
    const std::vector<std::string>& paths) {
  auto q = OrDie(
      RandomShuffleQueue::Create({.capacity = 32, .dtypes = {DType::kString}}));
  for (const std::string& p : paths) {
    OrDie(q->Enqueue({Tensor::Scalar<std::string>(p)}));
  }
  OrDie(q->Close());
  return q;
}

}  // namespace

std::vector<std::pair<std::string, double>> MeasureStages(
    const std::vector<std::string>& paths) {
  auto reader = OrDie(NewTFRecordReader(Env::Default()));
  auto filenames = Filenames(paths);
  const ExampleParser parser = OrDie(
      ExampleParser::Create({{"image_raw", FixedLenFeature{{}, DType::kString}},
                             {"label", FixedLenFeature{{}, DType::kInt64}}}));
  auto queue = OrDie(RandomShuffleQueue::Create(
      {.capacity = kCapacity,
       .dtypes = {DType::kFloat32, DType::kInt64},
       .shapes = {PartialShape({kImageBytes}), PartialShape({})},
       .min_after_dequeue = kMinAfterDequeue,
       .seed = 1,
       .seed2 = 2}));
  // One batch at a time through every stage, a clock read between stages,
  // nothing kept: memory is recycled as in the running pipeline.
  enum { kRead, kCrc, kParse, kConvert, kEnqueue, kDequeue, kConsume, kStages };
  double seconds[kStages] = {};
  size_t records = 0, dequeued = 0;
  RecordBatch batch;
  uint32_t crc = 0;
  double sum = 0;
  while (true) {
    double t = ThreadSeconds();
    auto lap = [&](int stage) {
      const double now = ThreadSeconds();
      seconds[stage] += now - t;
      t = now;
    };
    Status s = reader->ReadUpTo(*filenames, kReadUpTo, &batch);
    if (IsOutOfRange(s)) break;
    OrDie(s);
    lap(kRead);
    records += batch.size();
    for (std::string_view r : batch.values()) {
      char header[8];
      const uint64_t len = r.size();
      std::memcpy(header, &len, 8);
      crc ^= crc32c::Value(header, 8) ^ crc32c::Value(r);
    }
    lap(kCrc);
    ParsedFeatures parsed = OrDie(parser.ParseBatch(batch.values()));
    lap(kParse);
    Tuple converted = {OrDie(DecodeRawToFloat(parsed.dense[0], 1.0f / 255)),
                       parsed.dense[1]};
    lap(kConvert);
    OrDie(queue->EnqueueMany(std::move(converted)));
    lap(kEnqueue);
    std::vector<Tuple> out;
    while (queue->Size() >= kMinAfterDequeue + kBatchSize) {
      out.push_back(OrDie(queue->DequeueMany(kBatchSize)));
    }
    lap(kDequeue);
    for (const Tuple& b : out) {
      sum += ConsumeBatch(b[0].data<float>(), b[1].data<int64_t>(), kBatchSize);
    }
    dequeued += out.size() * kBatchSize;
    lap(kConsume);
  }
  benchmark::DoNotOptimize(crc);
  benchmark::DoNotOptimize(sum);
  const char* names[kStages] = {"read",    "crc",     "parse",  "convert",
                                "enqueue", "dequeue", "consume"};
  std::vector<std::pair<std::string, double>> result;
  for (int i = 0; i < kStages; ++i) {
    // The dequeue and the consumer per record dequeued.
    const double n = static_cast<double>(i >= kDequeue ? dequeued : records);
    result.emplace_back(names[i], seconds[i] * 1e9 / n);
  }
  return result;
}

}  // namespace inflow::bench
