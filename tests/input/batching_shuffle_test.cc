// Copyright 2026 The inflow Authors.
//
// ShuffleBatch and ShuffleBatchJoin: permutations, mixing against
// min_after_dequeue, seeds (TF's batches in TF's order), the fill metric
// (docs/conformance.md, "Batching").

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/batching.h"

#include "batching_test_util.h"

namespace inflow {
namespace {

using testing::CountingInput;
using testing::Drain;
using testing::Flatten;
using testing::kCallLimit;
using testing::kShutdownBound;
using Clock = std::chrono::steady_clock;

struct ShuffleBatchTest : ::testing::Test {
  ShuffleBatchOptions Options(int64_t batch_size, int64_t capacity,
                              int64_t min_after_dequeue) {
    ShuffleBatchOptions o;
    o.batch_size = batch_size;
    o.capacity = capacity;
    o.min_after_dequeue = min_after_dequeue;
    o.metrics = &registry;
    o.collection = &collection;
    return o;
  }

  // One enqueue thread runs to the end of [0, n) (every element in the
  // queue) before the first batch is taken: the order then depends only on
  // the seeds, as in TF.
  std::vector<std::vector<int64_t>> FilledThenDrained(
      int64_t n, const ShuffleBatchOptions& o) {
    auto batcher = ShuffleBatch(CountingInput(0, n), o).value();
    Coordinator coord;
    auto threads = batcher->runner()->CreateThreads(&coord, true);
    EXPECT_TRUE(threads[0]->WaitUntil(Clock::now() + kCallLimit));
    std::vector<std::vector<int64_t>> batches;
    for (;;) {
      Result<Tuple> b = batcher->Next(coord.MakeCallOptions(kCallLimit));
      if (!b.ok()) {
        EXPECT_EQ(b.status().code(), StatusCode::kOutOfRange) << b.status();
        break;
      }
      auto v = (*b)[0].flat<int64_t>();
      batches.emplace_back(v.begin(), v.end());
    }
    coord.RequestStop();
    EXPECT_TRUE(coord.Join(threads, kShutdownBound).ok());
    return batches;
  }

  MetricsRegistry registry;
  QueueRunnerCollection collection;
};

double MeanDisplacement(const std::vector<int64_t>& order) {
  double sum = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    sum += std::abs(order[i] - static_cast<int64_t>(i));
  }
  return sum / order.size();
}

TEST_F(ShuffleBatchTest, OutputIsAPermutationWhoseMixingGrowsWithMinAfter) {
  constexpr int64_t kN = 4000;
  std::vector<double> displacement;
  for (int64_t min_after : {0, 100, 1000}) {
    ShuffleBatchOptions o = Options(16, min_after + 64, min_after);
    o.num_threads = 2;
    o.allow_smaller_final_batch = true;
    auto batcher = ShuffleBatch(CountingInput(0, kN), o).value();
    testing::Drained d = Drain(*batcher, collection);
    collection.Clear();
    EXPECT_EQ(d.end.code(), StatusCode::kOutOfRange);
    EXPECT_TRUE(d.join.ok()) << d.join;
    std::vector<int64_t> all = Flatten(d.batches);
    displacement.push_back(MeanDisplacement(all));
    RecordProperty("mean_displacement_min_after_" + std::to_string(min_after),
                   std::to_string(displacement.back()));
    std::sort(all.begin(), all.end());
    std::vector<int64_t> expected(kN);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(all, expected) << "min_after_dequeue " << min_after;
  }
  // Expected about 21, 80 and 700 (an element waits among about
  // min_after_dequeue + 64 others); asserted loosely.
  EXPECT_GT(displacement[1], 1.5 * displacement[0]);
  EXPECT_GT(displacement[2], 3.0 * displacement[1]);
}

// From TensorFlow 2.x (tf.compat.v1, graph mode): a FIFOQueue holding
// 0..49, closed; x = its dequeue(); tf.compat.v1.train.shuffle_batch([x],
// batch_size=8, capacity=64, min_after_dequeue=10, seed=7, num_threads=1,
// allow_smaller_final_batch=True); the batches taken once the shuffle queue
// held all 50. Second case: tf.compat.v1.set_random_seed(3) as well.
TEST_F(ShuffleBatchTest, OneThreadAndAnOpSeedGiveTensorFlowsBatches) {
  ShuffleBatchOptions o = Options(8, 64, 10);
  o.seed = 7;
  o.allow_smaller_final_batch = true;
  const std::vector<std::vector<int64_t>> tf_batches = {
      {37, 4, 13, 34, 32, 38, 44, 23},
      {43, 19, 20, 25, 40, 10, 31, 16},
      {12, 22, 11, 35, 49, 0, 1, 15},
      {27, 28, 24, 46, 5, 48, 47, 6},
      {17, 33, 14, 8, 18, 26, 2, 7},
      {39, 41, 36, 30, 29, 9, 3, 21},
      {42, 45}};
  EXPECT_EQ(FilledThenDrained(50, o), tf_batches);
}

// The same run without allow_smaller_final_batch: TF gives the same six
// full batches, then OUT_OF_RANGE with 2 elements left in the queue.
TEST_F(ShuffleBatchTest, WithoutSmallerFinalBatchTheRemainderIsDropped) {
  ShuffleBatchOptions o = Options(8, 64, 10);
  o.seed = 7;
  const std::vector<std::vector<int64_t>> tf_batches = {
      {37, 4, 13, 34, 32, 38, 44, 23}, {43, 19, 20, 25, 40, 10, 31, 16},
      {12, 22, 11, 35, 49, 0, 1, 15},  {27, 28, 24, 46, 5, 48, 47, 6},
      {17, 33, 14, 8, 18, 26, 2, 7},   {39, 41, 36, 30, 29, 9, 3, 21}};
  EXPECT_EQ(FilledThenDrained(50, o), tf_batches);
}

TEST_F(ShuffleBatchTest, GraphAndOpSeedGiveTensorFlowsBatches) {
  ShuffleBatchOptions o = Options(8, 64, 10);
  o.seed = 7;
  o.graph_seed = 3;
  o.allow_smaller_final_batch = true;
  const std::vector<std::vector<int64_t>> tf_batches = {
      {26, 4, 21, 42, 32, 30, 35, 3},
      {17, 25, 46, 1, 40, 0, 36, 33},
      {19, 45, 34, 31, 15, 10, 38, 5},
      {13, 49, 11, 7, 29, 39, 28, 43},
      {2, 41, 20, 27, 24, 37, 44, 12},
      {22, 47, 8, 48, 18, 14, 23, 16},
      {9, 6}};
  EXPECT_EQ(FilledThenDrained(50, o), tf_batches);
}

// Negative seeds are reduced modulo 2^31 - 1 as Python does (never
// negative). Same TF run as above with seed=-7, and with
// set_random_seed(-3) and seed=7.
TEST_F(ShuffleBatchTest, NegativeSeedsGiveTensorFlowsBatches) {
  ShuffleBatchOptions o = Options(8, 64, 10);
  o.seed = -7;
  o.allow_smaller_final_batch = true;
  const std::vector<std::vector<int64_t>> op_seed_minus_7 = {
      {49, 25, 0, 27, 45, 28, 46, 14},
      {1, 32, 17, 18, 30, 33, 24, 20},
      {9, 44, 22, 7, 3, 6, 21, 40},
      {2, 41, 47, 31, 12, 5, 26, 36},
      {34, 23, 8, 43, 19, 37, 42, 11},
      {38, 4, 13, 15, 16, 48, 29, 39},
      {10, 35}};
  EXPECT_EQ(FilledThenDrained(50, o), op_seed_minus_7);
  o.seed = 7;
  o.graph_seed = -3;
  const std::vector<std::vector<int64_t>> graph_seed_minus_3 = {
      {34, 9, 22, 6, 25, 44, 37, 24},
      {33, 20, 2, 38, 26, 32, 43, 7},
      {28, 36, 5, 8, 42, 3, 48, 13},
      {46, 27, 23, 15, 10, 0, 35, 12},
      {4, 30, 47, 19, 11, 31, 16, 40},
      {39, 18, 29, 1, 49, 41, 14, 21},
      {45, 17}};
  EXPECT_EQ(FilledThenDrained(50, o), graph_seed_minus_3);
}

TEST_F(ShuffleBatchTest, OneThreadAndASeedGiveIdenticalRuns) {
  ShuffleBatchOptions o = Options(8, 300, 100);
  o.seed = 11;
  o.allow_smaller_final_batch = true;
  auto first = FilledThenDrained(250, o);
  EXPECT_EQ(FilledThenDrained(250, o), first);
  o.seed = 12;
  EXPECT_NE(FilledThenDrained(250, o), first);
}

TEST_F(ShuffleBatchTest, FillMetricIsTheFractionOverMinAfterDequeue) {
  auto batcher = ShuffleBatch(CountingInput(0, 30), Options(4, 64, 10)).value();
  EXPECT_EQ(batcher->fill_metric_tag(),
            "shuffle_batch/fraction_over_10_of_54_full");
  EXPECT_EQ(batcher->queue()->name(), "shuffle_batch/random_shuffle_queue");
  EXPECT_EQ(registry.Read(batcher->fill_metric_tag()), 0.0);
  Coordinator coord;
  auto threads = batcher->runner()->CreateThreads(&coord, true);
  ASSERT_TRUE(threads[0]->WaitUntil(Clock::now() + kCallLimit));
  // TF's summary in float32: cast(20) * float32(1 / 54).
  EXPECT_EQ(*registry.Read(batcher->fill_metric_tag()),
            double(20.0f * static_cast<float>(1.0 / 54)));
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, kShutdownBound).ok());
}

TEST_F(ShuffleBatchTest, ShuffleBatchJoinMixesEveryInputOnce) {
  ShuffleBatchOptions o = Options(10, 200, 50);
  o.allow_smaller_final_batch = true;
  auto batcher =
      ShuffleBatchJoin({CountingInput(0, 300), CountingInput(300, 600)}, o)
          .value();
  EXPECT_EQ(batcher->runner()->num_enqueue_ops(), 2u);
  EXPECT_EQ(batcher->fill_metric_tag(),
            "shuffle_batch_join/fraction_over_50_of_150_full");
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(d.end.code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(d.join.ok()) << d.join;
  std::vector<int64_t> all = Flatten(d.batches);
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(600);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);
}

}  // namespace
}  // namespace inflow
