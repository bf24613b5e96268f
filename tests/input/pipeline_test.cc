// Copyright 2026 The inflow Authors.
//
// The Pipeline end to end: 7 shards x 1,003 Examples, 3 epochs, 4 reader
// threads; shuffle_batch mixing; determinism; a corrupt record stopping
// everything.

#include "inflow/input/pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/metrics.h"
#include "inflow/io/mem_env.h"
#include "inflow/threads/thread.h"

#include "pipeline_test_util.h"

namespace inflow {
namespace {

using namespace testing_util;  // NOLINT(build/namespaces)
using std::chrono::milliseconds;

constexpr int kFiles = 7;
constexpr int kRecords = 1003;
constexpr int64_t kTotal = 3 * kFiles * kRecords;  // 21,063 rows
constexpr int64_t kBatch = 64;                     // 329 full + 7

// Takes batches until the end of input (which must be OUT_OF_RANGE);
// returns the rows they held.
int64_t RowsUntilTheEnd(Pipeline& pipeline) {
  int64_t rows = 0;
  for (;;) {
    Result<Tuple> b = pipeline.Next();
    if (!b.ok()) {
      EXPECT_TRUE(IsOutOfRange(b.status())) << b.status();
      return rows;
    }
    rows += (*b)[0].shape().dim(0);
  }
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteShards(env_, kFiles, kRecords); }

  PipelineOptions Options(std::string name) {
    PipelineOptions o;
    o.files = {"/data/part-*.tfrecord"};
    o.env = &env_;
    o.num_epochs = 3;
    o.features = IdAndV();
    o.num_readers = 4;
    o.read_batch = 50;
    o.batching.batch_size = kBatch;
    o.batching.seed = 5;
    o.name = std::move(name);
    return o;
  }

  MemEnv env_;
};

TEST_F(PipelineTest, EveryRecordComesOutExactlyThreeTimesWithAShortFinalBatch) {
  PipelineOptions o = Options("three_epochs_short");
  o.batching.allow_smaller_final_batch = true;
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ((*pipeline)->files().size(), 7u);
  EXPECT_EQ((*pipeline)->names(), (std::vector<std::string>{"id", "v"}));
  // batch_join's fill metric, capacity 3 * 64, in the default registry.
  EXPECT_EQ((*pipeline)->fill_metric_tag(),
            "three_epochs_short/batch_join/fraction_of_192_full");
  EXPECT_TRUE(MetricsRegistry::Default()
                  .Read((*pipeline)->fill_metric_tag())
                  .has_value());
  Drained d = Drain(**pipeline);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  ASSERT_EQ(static_cast<int64_t>(d.ids.size()), kTotal);
  const std::map<int64_t, int> counts = Counts(d.ids);
  EXPECT_EQ(counts.size(), static_cast<size_t>(kFiles * kRecords));
  for (const auto& [id, n] : counts) {
    ASSERT_EQ(n, 3) << "id " << id;
    ASSERT_LT(id % 10000, kRecords);
  }
  ASSERT_EQ(d.batch_sizes.size(), 330u);
  for (size_t i = 0; i + 1 < d.batch_sizes.size(); ++i) {
    ASSERT_EQ(d.batch_sizes[i], kBatch);
  }
  EXPECT_EQ(d.batch_sizes.back(), kTotal % kBatch);  // 7
  // Every later call still reports the end.
  EXPECT_TRUE(IsOutOfRange((*pipeline)->Next().status()));
  EXPECT_TRUE((*pipeline)->Close().ok());
  EXPECT_TRUE(LiveThreads("three_epochs_short").empty());
}

TEST_F(PipelineTest, WithoutSmallerFinalBatchTheRemainderIsDropped) {
  auto pipeline = Pipeline::Create(Options("three_epochs_full"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Drained d = Drain(**pipeline);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  ASSERT_EQ(d.batch_sizes.size(), static_cast<size_t>(kTotal / kBatch));
  for (int64_t n : d.batch_sizes) ASSERT_EQ(n, kBatch);
  // 21,056 rows out: no record more than 3 times, 7 short of 3 in all.
  int64_t missing = 0;
  const std::map<int64_t, int> counts = Counts(d.ids);
  for (int f = 0; f < kFiles; ++f) {
    for (int i = 0; i < kRecords; ++i) {
      auto it = counts.find(10000 * f + i);
      const int n = it == counts.end() ? 0 : it->second;
      ASSERT_LE(n, 3);
      missing += 3 - n;
    }
  }
  EXPECT_EQ(missing, kTotal % kBatch);
  EXPECT_TRUE((*pipeline)->Close().ok());
}

// Mean |output position - input position| of one epoch read in file order
// by one reader and shuffled by shuffle_batch(min_after_dequeue).
double MeanDisplacement(MemEnv& env, int64_t min_after_dequeue) {
  PipelineOptions o;
  o.files = {"/data/part-*.tfrecord"};
  o.env = &env;
  o.num_epochs = 1;
  o.shuffle_files = false;
  o.features = IdAndV();
  o.batching = {.batch_size = 32,
                .shuffle = true,
                .min_after_dequeue = min_after_dequeue,
                .seed = 3,
                .allow_smaller_final_batch = true};
  o.name = "mixing";
  auto pipeline = Pipeline::Create(o);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  if (!pipeline.ok()) return -1;
  Drained d = Drain(**pipeline);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  EXPECT_TRUE((*pipeline)->Close().ok());
  // A permutation of the epoch.
  std::vector<int64_t> sorted = d.ids;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> expected;
  for (int f = 0; f < kFiles; ++f) {
    for (int i = 0; i < kRecords; ++i) expected.push_back(10000 * f + i);
  }
  EXPECT_EQ(sorted, expected);
  double sum = 0;
  for (size_t out = 0; out < d.ids.size(); ++out) {
    const int64_t in = (d.ids[out] / 10000) * kRecords + d.ids[out] % 10000;
    sum += std::abs(static_cast<double>(in) - static_cast<double>(out));
  }
  return sum / static_cast<double>(d.ids.size());
}

TEST_F(PipelineTest, ShuffleBatchMixingGrowsWithMinAfterDequeue) {
  const double d0 = MeanDisplacement(env_, 0);
  const double d300 = MeanDisplacement(env_, 300);
  const double d3000 = MeanDisplacement(env_, 3000);
  // Capacity is min_after_dequeue + 96: a bag of ~96, ~400, ~3100 rows.
  // Loosely: each tenfold step at least doubles the displacement.
  EXPECT_GT(d0, 1.0);
  EXPECT_GT(d300, 2 * d0) << d0 << " " << d300;
  EXPECT_GT(d3000, 2 * d300) << d300 << " " << d3000;
}

std::vector<int64_t> RunOnce(MemEnv& env, bool shuffle_files) {
  PipelineOptions o;
  o.files = {"/data/part-*.tfrecord"};
  o.env = &env;
  o.num_epochs = 3;
  o.shuffle_files = shuffle_files;
  o.features = IdAndV();
  o.num_readers = 1;
  o.batching = {.batch_size = 100, .seed = 11};
  o.name = "deterministic";
  auto pipeline = Pipeline::Create(o);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  if (!pipeline.ok()) return {};
  Drained d = Drain(**pipeline);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  return d.ids;
}

TEST_F(PipelineTest, OneReaderThreadAndASeedGiveIdenticalRuns) {
  const std::vector<int64_t> a = RunOnce(env_, /*shuffle_files=*/true);
  const std::vector<int64_t> b = RunOnce(env_, /*shuffle_files=*/true);
  ASSERT_EQ(a.size(), static_cast<size_t>(kTotal / 100 * 100));
  EXPECT_EQ(a, b);
  // The seed did shuffle the files: not the sorted order.
  EXPECT_NE(a, RunOnce(env_, /*shuffle_files=*/false));
}

TEST_F(PipelineTest, CorruptRecordInFile5StopsEverythingWithDataLoss) {
  // Corrupt the data of record 600 of part-5 (its data CRC fails).
  std::vector<std::string> records;
  for (int i = 0; i < kRecords; ++i)
    records.push_back(ExampleRecord(50000 + i));
  const std::vector<uint64_t> offsets =
      WriteRecordFile(env_, ShardName(5), records);
  std::string bytes = env_.Contents(ShardName(5)).value();
  bytes[offsets[600] + 12 + 3] ^= 0x40;
  ASSERT_TRUE(WriteStringToFile(env_, ShardName(5), bytes).ok());

  PipelineOptions o = Options("corrupt");
  o.num_epochs = std::nullopt;  // would run forever without the error
  o.batching.shuffle = true;
  o.batching.min_after_dequeue = 500;
  o.stop_grace_period = milliseconds(5000);
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  // The producer's runner and closer, 4 readers and the batching closer.
  EXPECT_GE(LiveThreads("corrupt/").size(), 6u);
  Drained d = Drain(**pipeline);
  const Status error = d.end;
  EXPECT_TRUE(IsDataLoss(error)) << error;
  const std::string message(error.message());
  EXPECT_EQ(message.rfind("read: ", 0), 0u) << error;
  EXPECT_NE(message.find(ShardName(5)), std::string::npos) << error;
  EXPECT_NE(message.find("at offset " + std::to_string(offsets[600])),
            std::string::npos)
      << error;
  // Later calls and Close() report the same first error.
  EXPECT_EQ((*pipeline)->Next().status(), error);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ((*pipeline)->Close(), error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, o.stop_grace_period);
  EXPECT_TRUE(LiveThreads("corrupt/").empty());
  pipeline->reset();
  EXPECT_TRUE(LiveThreads("corrupt/").empty());
}

// A map function held on a latch keeps every batch back, so Next() blocks;
// the caller's stop token releases it (CANCELLED) while the pipeline runs
// on, and every row still comes out once the latch opens.
TEST_F(PipelineTest, TheCallersStopReleasesABlockedNextAndThePipelineRunsOn) {
  PipelineOptions o = Options("caller_stop");
  o.num_epochs = 1;
  o.batching.allow_smaller_final_batch = true;
  std::atomic<bool> open{false};
  o.map = MapFunction{
      .fn = [&open](Tuple rows) -> Result<Tuple> {
        const auto deadline =
            std::chrono::steady_clock::now() + milliseconds(20000);
        while (!open.load() && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(milliseconds(1));
        }
        return rows;
      },
      .dtypes = {DType::kInt64, DType::kFloat32},
      .row_shapes = {PartialShape({}), PartialShape({2})}};
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::stop_source stop;
  Status blocked;
  const auto t0 = std::chrono::steady_clock::now();
  std::thread consumer([&] {
    blocked = (*pipeline)->Next({.stop = stop.get_token()}).status();
  });
  std::this_thread::sleep_for(milliseconds(50));
  stop.request_stop();
  consumer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(10000));
  EXPECT_TRUE(IsCancelled(blocked)) << blocked;
  open.store(true);
  EXPECT_EQ(RowsUntilTheEnd(**pipeline), kFiles * kRecords);
  EXPECT_TRUE((*pipeline)->Close().ok());
}

// batching.nice: the readers (whose map function this records) run at
// the creating thread's niceness plus 6; the consumer keeps its own; every
// row still comes out once.
TEST_F(PipelineTest, NiceLowersTheReadersPriorityAndNothingElseChanges) {
  const int base = CurrentThreadNiceness();
  PipelineOptions o = Options("nice");
  o.num_epochs = 1;
  o.batching.allow_smaller_final_batch = true;
  o.batching.nice = 6;
  std::mutex mu;
  std::set<int> seen;
  o.map = MapFunction{.fn = [&](Tuple rows) -> Result<Tuple> {
                        std::lock_guard<std::mutex> lock(mu);
                        seen.insert(CurrentThreadNiceness());
                        return rows;
                      },
                      .dtypes = {DType::kInt64, DType::kFloat32},
                      .row_shapes = {PartialShape({}), PartialShape({2})}};
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ(RowsUntilTheEnd(**pipeline), kFiles * kRecords);
  EXPECT_TRUE((*pipeline)->Close().ok());
  EXPECT_EQ(seen, std::set<int>{std::min(base + 6, 19)});
  EXPECT_EQ(CurrentThreadNiceness(), base);

  o.batching.nice = 20;
  EXPECT_EQ(Pipeline::Create(o).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(PipelineTest, CloseStopsAnEndlessPipelineAndItsConsumerThread) {
  PipelineOptions o = Options("endless");
  o.num_epochs = std::nullopt;
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::atomic<int64_t> batches{0};
  Status end;
  std::thread consumer([&] {
    for (;;) {
      Result<Tuple> b = (*pipeline)->Next();
      if (!b.ok()) {
        end = b.status();
        return;
      }
      batches.fetch_add(1);
    }
  });
  // Let the consumer take some batches (bounded: 10 s).
  const auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
  while (batches.load() < 10 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_GE(batches.load(), 10);
  EXPECT_FALSE(LiveThreads("endless/").empty());
  EXPECT_TRUE((*pipeline)->Close().ok());
  consumer.join();
  EXPECT_TRUE(IsCancelled(end)) << end;
  EXPECT_TRUE(IsCancelled((*pipeline)->Next().status()));
  EXPECT_TRUE(LiveThreads("endless/").empty());
}

}  // namespace
}  // namespace inflow
