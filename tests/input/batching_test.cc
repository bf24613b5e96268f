// Copyright 2026 The inflow Authors.
//
// Batch and BatchJoin: the end-of-input cascade, enqueue_many, dynamic_pad,
// names, the fill metric, the runner's registration and thread names, and
// errors in a step (docs/conformance.md, "Batching").

#include "inflow/input/batching.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "batching_test_util.h"

namespace inflow {
namespace {

using testing::CountingInput;
using testing::Drain;
using testing::Flatten;
using testing::kCallLimit;
using testing::kShutdownBound;
using Clock = std::chrono::steady_clock;

std::vector<int64_t> Iota(int64_t begin, int64_t end) {
  std::vector<int64_t> v(end - begin);
  std::iota(v.begin(), v.end(), begin);
  return v;
}

struct Fixture : ::testing::Test {
  BatchOptions Options(int64_t batch_size) {
    BatchOptions o;
    o.batch_size = batch_size;
    o.metrics = &registry;
    o.collection = &collection;
    return o;
  }
  MetricsRegistry registry;
  QueueRunnerCollection collection;
};

using BatchTest = Fixture;

TEST_F(BatchTest, FourThreadsDeliverEveryElementOnceAndAShortFinalBatch) {
  BatchOptions o = Options(32);
  o.num_threads = 4;
  o.allow_smaller_final_batch = true;
  auto batcher = Batch(CountingInput(0, 1003), o).value();
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(d.end.code(), StatusCode::kOutOfRange) << d.end;
  EXPECT_TRUE(d.join.ok()) << d.join;
  ASSERT_EQ(d.batches.size(), 32u);  // 31 full + 1003 - 992 = 11
  for (size_t i = 0; i + 1 < d.batches.size(); ++i) {
    EXPECT_EQ(d.batches[i].size(), 32u);
  }
  EXPECT_EQ(d.batches.back().size(), 11u);
  std::vector<int64_t> all = Flatten(d.batches);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Iota(0, 1003));
}

TEST_F(BatchTest, WithoutSmallerFinalBatchTheRemainderStaysInTheQueue) {
  BatchOptions o = Options(32);
  o.num_threads = 4;
  auto batcher = Batch(CountingInput(0, 1003), o).value();
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(d.end.code(), StatusCode::kOutOfRange) << d.end;
  EXPECT_TRUE(d.join.ok()) << d.join;
  ASSERT_EQ(d.batches.size(), 31u);
  std::vector<int64_t> all = Flatten(d.batches);
  EXPECT_EQ(all.size(), 992u);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  // The 11 left over are still in the (closed) queue, never delivered.
  EXPECT_EQ(batcher->queue()->Size(), 11);
  EXPECT_TRUE(batcher->queue()->IsClosed());
}

TEST_F(BatchTest, OneThreadKeepsTheInputOrder) {
  auto batcher = Batch(CountingInput(0, 20), Options(5)).value();
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(Flatten(d.batches), Iota(0, 20));
}

TEST_F(BatchTest, OutputShapesHaveTheBatchDimension) {
  BatchInput in{.dtypes = {DType::kFloat32, DType::kInt64},
                .shapes = {PartialShape({2, 3}), PartialShape({})},
                .step = [](const CallOptions&) -> Result<Tuple> {
                  return OutOfRangeError("empty");
                }};
  auto fixed = Batch(in, Options(8)).value();
  EXPECT_EQ(
      fixed->output_shapes(),
      (std::vector<PartialShape>{PartialShape({8, 2, 3}), PartialShape({8})}));
  BatchOptions o = Options(8);
  o.allow_smaller_final_batch = true;
  auto smaller = Batch(in, o).value();
  EXPECT_EQ(smaller->output_shapes(),
            (std::vector<PartialShape>{PartialShape({-1, 2, 3}),
                                       PartialShape({-1})}));
}

TEST_F(BatchTest, EnqueueManyDropsTheLeadingDimensionAndSplitsRows) {
  auto counter = std::make_shared<std::atomic<int64_t>>(0);
  BatchInput in{.dtypes = {DType::kInt64},
                .shapes = {PartialShape({4})},
                .step = [counter](const CallOptions&) -> Result<Tuple> {
                  const int64_t base = counter->fetch_add(4);
                  if (base >= 40) return OutOfRangeError("done");
                  return Tuple{Tensor::FromVector<int64_t>(
                      {base, base + 1, base + 2, base + 3})};
                }};
  BatchOptions o = Options(6);
  o.enqueue_many = true;
  o.allow_smaller_final_batch = true;
  auto batcher = Batch(in, o).value();
  EXPECT_EQ(batcher->output_shapes()[0], PartialShape({-1}));
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(Flatten(d.batches), Iota(0, 40));
  ASSERT_EQ(d.batches.size(), 7u);
  EXPECT_EQ(d.batches.back().size(), 4u);
}

TEST_F(BatchTest, ShapesOverrideReplacesTheInferredOnes) {
  BatchInput in = CountingInput(0, 4);
  in.shapes = {PartialShape::UnknownRank()};  // would be an error
  BatchOptions o = Options(2);
  o.shapes = {PartialShape({})};
  auto batcher = Batch(in, o).value();
  EXPECT_EQ(batcher->queue()->component_shapes()[0], PartialShape({}));
  EXPECT_EQ(Flatten(Drain(*batcher, collection).batches), Iota(0, 4));
}

TEST_F(BatchTest, DynamicPadPadsEachBatchToItsLongestElement) {
  auto counter = std::make_shared<std::atomic<int64_t>>(0);
  BatchInput in{.dtypes = {DType::kInt64},
                .shapes = {PartialShape({-1})},
                .step = [counter](const CallOptions&) -> Result<Tuple> {
                  const int64_t n = counter->fetch_add(1) + 1;
                  if (n > 4) return OutOfRangeError("done");
                  return Tuple{Tensor::FromVector(std::vector<int64_t>(n, n))};
                }};
  BatchOptions o = Options(3);
  o.dynamic_pad = true;
  o.allow_smaller_final_batch = true;
  auto batcher = Batch(in, o).value();
  EXPECT_EQ(batcher->queue()->name(), "batch/padding_fifo_queue");
  Coordinator coord;
  auto threads = collection.Start(&coord);
  Tuple first = batcher->Next(coord.MakeCallOptions(kCallLimit)).value();
  EXPECT_EQ(first[0], Tensor::FromVector<int64_t>({1, 0, 0, 2, 2, 0, 3, 3, 3},
                                                  TensorShape({3, 3}))
                          .value());
  Tuple last = batcher->Next(coord.MakeCallOptions(kCallLimit)).value();
  EXPECT_EQ(
      last[0],
      Tensor::FromVector<int64_t>({4, 4, 4, 4}, TensorShape({1, 4})).value());
  EXPECT_EQ(batcher->Next(coord.MakeCallOptions(kCallLimit)).status().code(),
            StatusCode::kOutOfRange);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, kShutdownBound).ok());
}

TEST_F(BatchTest, NextNamedKeysTheBatchByTheInputsNames) {
  BatchInput in = CountingInput(0, 4);
  in.names = {"label"};
  auto batcher = Batch(in, Options(2)).value();
  Coordinator coord;
  auto threads = collection.Start(&coord);
  NamedTuple batch =
      batcher->NextNamed(coord.MakeCallOptions(kCallLimit)).value();
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch.at("label"), Tensor::FromVector<int64_t>({0, 1}));
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, kShutdownBound).ok());

  auto unnamed = Batch(CountingInput(0, 4), Options(2)).value();
  EXPECT_EQ(unnamed->NextNamed().status().code(), StatusCode::kInvalidArgument);
}

TEST_F(BatchTest, RegistersOneRunnerWithThreadsNamedByTheScope) {
  BatchOptions o = Options(4);
  o.num_threads = 3;
  o.collection_name = "mine";
  auto batcher = Batch(CountingInput(0, 8), o).value();
  ASSERT_EQ(collection.Get("mine").size(), 1u);
  EXPECT_EQ(collection.Get("mine")[0], batcher->runner());
  EXPECT_TRUE(collection.Get().empty());
  EXPECT_EQ(batcher->runner()->num_enqueue_ops(), 3u);
  Coordinator coord;
  auto threads = collection.Start(&coord, true, "mine");
  std::vector<std::string> names;
  for (const auto& t : threads) names.push_back(t->name());
  EXPECT_EQ(names,
            (std::vector<std::string>{"batch/enqueue:0", "batch/enqueue:1",
                                      "batch/enqueue:2", "batch/close"}));
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, kShutdownBound).ok());
}

TEST(BatchDefaultsTest, UsesTheDefaultCollectionAndRegistry) {
  BatchOptions o;
  o.batch_size = 4;
  o.name = "batch_defaults_test";
  o.collection_name = "batch_defaults_test";
  auto batcher = Batch(CountingInput(0, 4), o).value();
  auto runners = QueueRunnerCollection::Default().Get("batch_defaults_test");
  QueueRunnerCollection::Default().Clear("batch_defaults_test");
  ASSERT_EQ(runners.size(), 1u);
  EXPECT_EQ(runners[0], batcher->runner());
  EXPECT_EQ(MetricsRegistry::Default().Read(batcher->fill_metric_tag()), 0.0);
  const std::string tag = batcher->fill_metric_tag();
  batcher.reset();  // unregisters the gauges
  runners.clear();
  EXPECT_FALSE(MetricsRegistry::Default().Read(tag).has_value());
}

TEST_F(BatchTest, FillMetricIsSizeOverCapacityUnderAUniqueScope) {
  auto first = Batch(CountingInput(0, 16), Options(4)).value();
  auto second = Batch(CountingInput(0, 1), Options(4)).value();
  BatchOptions named = Options(4);
  named.name = "train_input";
  named.capacity = 100;
  auto third = Batch(CountingInput(0, 1), named).value();
  EXPECT_EQ(first->fill_metric_tag(), "batch/fraction_of_32_full");
  EXPECT_EQ(second->fill_metric_tag(), "batch_1/fraction_of_32_full");
  EXPECT_EQ(third->fill_metric_tag(), "train_input/fraction_of_100_full");
  EXPECT_EQ(second->queue()->name(), "batch_1/fifo_queue");
  EXPECT_EQ(registry.Read(first->fill_metric_tag()), 0.0);

  // Run only the first batcher's runner to its end: 16 of 32 slots used.
  Coordinator coord;
  auto threads = first->runner()->CreateThreads(&coord, true);
  ASSERT_TRUE(threads[0]->WaitUntil(Clock::now() + kCallLimit));
  EXPECT_EQ(registry.Read("batch/fraction_of_32_full"), 0.5);
  EXPECT_EQ(registry.Read("batch/size"), 16.0);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, kShutdownBound).ok());
}

TEST_F(BatchTest, BatchJoinRunsOneThreadPerInputAndDeliversEachOnce) {
  std::vector<BatchInput> inputs = {
      CountingInput(0, 100), CountingInput(100, 200), CountingInput(200, 300)};
  BatchOptions o = Options(7);
  o.num_threads = 10;  // ignored by *_join
  o.allow_smaller_final_batch = true;
  auto batcher = BatchJoin(inputs, o).value();
  EXPECT_EQ(batcher->runner()->num_enqueue_ops(), 3u);
  EXPECT_EQ(batcher->fill_metric_tag(), "batch_join/fraction_of_32_full");
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(d.end.code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(d.join.ok()) << d.join;
  std::vector<int64_t> all = Flatten(d.batches);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Iota(0, 300));
  EXPECT_EQ(d.batches.back().size(), 300u % 7);
}

TEST_F(BatchTest, AnErrorInAStepStopsEverythingAndJoinReturnsIt) {
  auto calls = std::make_shared<std::atomic<int64_t>>(0);
  BatchInput in{.dtypes = {DType::kInt64},
                .shapes = {PartialShape({})},
                .step = [calls](const CallOptions&) -> Result<Tuple> {
                  const int64_t v = calls->fetch_add(1);
                  // Every later call fails too, so the queue is never
                  // closed and only the stop can release the consumer.
                  if (v >= 50) return DataLossError("corrupt record at 50");
                  return Tuple{Tensor::Scalar<int64_t>(v)};
                }};
  BatchOptions o = Options(1000);  // the consumer waits for a full batch
  o.num_threads = 4;
  auto batcher = Batch(in, o).value();
  Coordinator coord;
  auto threads = collection.Start(&coord);
  const auto start = Clock::now();
  Result<Tuple> batch = batcher->Next(coord.MakeCallOptions(kCallLimit));
  EXPECT_EQ(batch.status().code(), StatusCode::kCancelled) << batch.status();
  Status joined = coord.Join(threads, kShutdownBound);
  EXPECT_EQ(joined.code(), StatusCode::kDataLoss) << joined;
  EXPECT_LT(Clock::now() - start, kShutdownBound);
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive()) << t->name();
}

TEST_F(BatchTest, AStepOfTheWrongSignatureFailsNamingTheComponent) {
  struct Case {
    Tuple output;
    const char* text;
  };
  const std::vector<Case> cases = {
      {{Tensor::Scalar<float>(1.0f)}, "type mismatch in tuple component 0"},
      {{Tensor::FromVector<int64_t>({1, 2})},
       "shape mismatch in tuple component 0"},
      {{Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(2)},
       "wrong number of components"},
  };
  for (const Case& c : cases) {
    BatchInput in{
        .dtypes = {DType::kInt64},
        .shapes = {PartialShape({})},
        .step = [out = c.output](const CallOptions&) -> Result<Tuple> {
          return out;
        }};
    auto batcher = Batch(in, Options(4)).value();
    testing::Drained d = Drain(*batcher, collection);
    collection.Clear();
    EXPECT_EQ(d.end.code(), StatusCode::kCancelled) << d.end;
    EXPECT_EQ(d.join.code(), StatusCode::kInvalidArgument) << d.join;
    EXPECT_NE(d.join.message().find(batcher->queue()->name()),
              std::string::npos)
        << d.join;
    EXPECT_NE(d.join.message().find(c.text), std::string::npos) << d.join;
  }
}

TEST_F(BatchTest, SharedNameGivesTheSameQueueToTwoCalls) {
  BatchOptions o = Options(4);
  o.shared_name = "batching_test_shared";
  o.allow_smaller_final_batch = true;
  auto a = Batch(CountingInput(0, 10), o).value();
  auto b = Batch(CountingInput(10, 20), o).value();
  EXPECT_EQ(a->queue(), b->queue());
  EXPECT_NE(a->runner(), b->runner());
  BatchOptions other = o;
  other.capacity = 64;  // another capacity: not the same queue
  EXPECT_EQ(Batch(CountingInput(0, 1), other).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace inflow
