// Copyright 2026 The inflow Authors.
//
// Input producers: counts per element, a permutation per epoch, the end of
// input cascade, a stop mid-epoch, the runner's names and metric, shared
// queues. Errors are in producer_errors_test.cc, TF's seeded orders in
// producers_tf_golden_test.cc.

#include "inflow/input/producers.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "producer_test_util.h"

namespace inflow {
namespace {

using testing::DrainProducer;
using testing::kCallBound;
using testing::LocalOptions;

class ProducerTest : public ::testing::Test {
 protected:
  ProducerOptions Options() { return LocalOptions(collection_, registry_); }

  QueueRunnerCollection collection_;
  MetricsRegistry registry_;
};

TEST_F(ProducerTest, EveryElementIsDeliveredExactlyNumEpochsTimes) {
  ProducerOptions options = Options();
  options.num_epochs = 3;
  options.capacity = 4;  // the epoch's enqueue blocks element by element
  auto producer = RangeInputProducer(50, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  const std::vector<std::string> out = DrainProducer(*producer);
  ASSERT_EQ(out.size(), 150u);
  std::map<std::string, int> counts;
  for (const std::string& v : out) ++counts[v];
  ASSERT_EQ(counts.size(), 50u);
  for (const auto& [value, count] : counts) EXPECT_EQ(count, 3) << value;
  EXPECT_EQ(producer->epochs->epochs(), 3);
}

TEST_F(ProducerTest, EachEpochIsAFreshPermutation) {
  ProducerOptions options = Options();
  options.num_epochs = 3;
  options.seed = 5;
  auto producer = RangeInputProducer(20, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  const std::vector<std::string> out = DrainProducer(*producer);
  ASSERT_EQ(out.size(), 60u);
  std::vector<std::vector<std::string>> epochs;
  std::vector<std::string> sorted_range;
  for (int i = 0; i < 20; ++i) sorted_range.push_back(std::to_string(i));
  std::sort(sorted_range.begin(), sorted_range.end());
  for (int e = 0; e < 3; ++e) {
    std::vector<std::string> epoch(out.begin() + 20 * e,
                                   out.begin() + 20 * (e + 1));
    epochs.push_back(epoch);
    std::sort(epoch.begin(), epoch.end());
    EXPECT_EQ(epoch, sorted_range) << "epoch " << e;
  }
  EXPECT_NE(epochs[0], epochs[1]);
  EXPECT_NE(epochs[1], epochs[2]);
}

TEST_F(ProducerTest, UnshuffledProducerRepeatsTheInputInOrder) {
  ProducerOptions options = Options();
  options.num_epochs = 2;
  options.shuffle = false;
  auto producer = StringInputProducer({"a", "b", "c"}, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  EXPECT_EQ(DrainProducer(*producer),
            (std::vector<std::string>{"a", "b", "c", "a", "b", "c"}));
}

TEST_F(ProducerTest, SameSeedGivesTheSameOrderTwice) {
  ProducerOptions options = Options();
  options.num_epochs = 2;
  options.seed = 11;
  options.graph_seed = 3;
  auto first = StringInputProducer({"a", "b", "c", "d", "e", "f"}, options);
  auto second = StringInputProducer({"a", "b", "c", "d", "e", "f"}, options);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(DrainProducer(*first), DrainProducer(*second));
}

TEST_F(ProducerTest, ConsumerGetsOutOfRangeAfterDrainingTheClosedQueue) {
  ProducerOptions options = Options();
  options.num_epochs = 1;
  options.shuffle = false;
  options.capacity = 8;
  auto producer = RangeInputProducer(3, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  // Without a coordinator: the thread ends once the second epoch fails with
  // OUT_OF_RANGE and it has closed the queue.
  auto threads = producer->runner->CreateThreads(nullptr, /*start=*/true);
  ASSERT_EQ(threads.size(), 1u);
  threads[0]->Join();
  EXPECT_TRUE(producer->runner->exceptions_raised().empty());
  EXPECT_TRUE(producer->queue->IsClosed());
  EXPECT_EQ(producer->queue->Size(), 3);
  for (int i = 0; i < 3; ++i) {
    auto element = producer->queue->Dequeue(CallOptions{kCallBound});
    ASSERT_TRUE(element.ok()) << element.status();
    EXPECT_EQ(*(*element)[0].data<int32_t>(), i);
  }
  auto end = producer->queue->Dequeue(CallOptions{kCallBound});
  EXPECT_EQ(end.status().code(), StatusCode::kOutOfRange) << end.status();
  EXPECT_EQ(producer->epochs->epochs(), 1);
}

TEST_F(ProducerTest, StopMidEpochReleasesTheBlockedRunnerAndTheEpochCounts) {
  ProducerOptions options = Options();
  options.num_epochs = 1;
  options.capacity = 2;
  auto producer = RangeInputProducer(100, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  Coordinator coord;
  auto threads = producer->runner->CreateThreads(&coord, /*start=*/true);
  ASSERT_EQ(threads.size(), 2u);  // enqueue + closer
  // One element out means the epoch has started; the runner then blocks on
  // the full queue with 97 elements still to go.
  ASSERT_TRUE(producer->queue->Dequeue(CallOptions{kCallBound}).ok());
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, std::chrono::seconds(10)).ok());
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive()) << t->name();
  EXPECT_EQ(producer->epochs->epochs(), 1);  // TF's caveat
  EXPECT_TRUE(producer->queue->IsClosed());
  EXPECT_LE(producer->queue->Size(), 2);
}

TEST_F(ProducerTest, CancelOpRunsWhenTheCoordinatorStops) {
  ProducerOptions options = Options();
  auto cancelled = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<QueueInterface> queue;
  options.cancel_op = [cancelled, &queue](const CallOptions&) {
    cancelled->fetch_add(1);
    return queue->Close(/*cancel_pending_enqueues=*/true);
  };
  auto producer = RangeInputProducer(10, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  queue = producer->queue;
  Coordinator coord;
  auto threads = producer->runner->CreateThreads(&coord, /*start=*/true);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, std::chrono::seconds(10)).ok());
  EXPECT_EQ(cancelled->load(), 1);
  EXPECT_TRUE(queue->IsClosed());
}

TEST_F(ProducerTest, ResetStartsTheEpochCountAgain) {
  auto limit = EpochLimit::Create({Tensor::Scalar<int32_t>(7)}, 2);
  ASSERT_TRUE(limit.ok()) << limit.status();
  EXPECT_TRUE((*limit)->Next().ok());
  EXPECT_TRUE((*limit)->Next().ok());
  auto third = (*limit)->Next();
  EXPECT_EQ(third.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(third.status().message(), "Reached limit of 2");
  EXPECT_EQ((*limit)->epochs(), 2);  // the failed check does not count
  (*limit)->Reset();
  EXPECT_EQ((*limit)->epochs(), 0);
  auto again = (*limit)->Next();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*(*again)[0].data<int32_t>(), 7);
}

TEST_F(ProducerTest, UnlimitedEpochLimitKeepsYielding) {
  auto limit = EpochLimit::Create({Tensor::Scalar<int32_t>(1)}, std::nullopt);
  ASSERT_TRUE(limit.ok()) << limit.status();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE((*limit)->Next().ok());
  EXPECT_EQ((*limit)->epochs(), 1000);
}

TEST_F(ProducerTest, RunnerIsRegisteredAndNamedAfterTheUniqueScope) {
  ProducerOptions options = Options();
  options.capacity = 4;
  auto first = RangeInputProducer(3, options);
  auto second = RangeInputProducer(3, options);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(collection_.Get(), (std::vector<std::shared_ptr<QueueRunner>>{
                                   first->runner, second->runner}));
  EXPECT_EQ(first->metrics.scope(), "input_producer");
  EXPECT_EQ(second->metrics.scope(), "input_producer_1");
  EXPECT_EQ(second->queue->name(), "input_producer_1");
  EXPECT_EQ(second->runner->name(), "input_producer_1");
  Coordinator coord;
  auto threads = second->runner->CreateThreads(&coord);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0]->name(), "input_producer_1/enqueue:0");
  EXPECT_EQ(threads[1]->name(), "input_producer_1/close");
}

TEST_F(ProducerTest, FillMetricIsSizeOverCapacity) {
  ProducerOptions options = Options();
  options.name = "files";
  options.num_epochs = 1;
  options.shuffle = false;
  options.capacity = 4;
  auto producer = RangeInputProducer(3, options);
  ASSERT_TRUE(producer.ok()) << producer.status();
  EXPECT_EQ(registry_.Read("files/fraction_of_4_full"), 0.0);
  auto threads = producer->runner->CreateThreads(nullptr, /*start=*/true);
  threads[0]->Join();  // one epoch of 3 enqueued, then the queue closed
  EXPECT_EQ(registry_.Read("files/fraction_of_4_full"), 0.75);
  producer->metrics.Reset();
  EXPECT_EQ(registry_.Read("files/fraction_of_4_full"), std::nullopt);
}

TEST_F(ProducerTest, ProducersWithTheSameSharedNameShareTheQueue) {
  ProducerOptions options = Options();
  options.shared_name = "producers_test_shared";
  options.num_epochs = 1;
  options.shuffle = false;
  options.capacity = 10;
  auto first = RangeInputProducer(5, options);
  auto second = RangeInputProducer(5, options);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->queue, second->queue);
  EXPECT_NE(first->runner, second->runner);
  EXPECT_NE(first->epochs, second->epochs);  // each its own counter (as TF)
  auto threads = first->runner->CreateThreads(nullptr, /*start=*/true);
  threads[0]->Join();
  for (int i = 0; i < 5; ++i) {
    auto element = second->queue->Dequeue(CallOptions{kCallBound});
    ASSERT_TRUE(element.ok()) << element.status();
    EXPECT_EQ(*(*element)[0].data<int32_t>(), i);
  }
  options.capacity = 11;
  auto mismatched = RangeInputProducer(5, options);
  EXPECT_EQ(mismatched.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ProducerTest, SliceProducerStepsReturnTheRowsOfEveryTensor) {
  ProducerOptions options = Options();
  options.num_epochs = 2;
  options.shuffle = false;
  Tensor strings(DType::kString, TensorShape({3, 2}));
  auto flat = strings.mutable_flat<std::string>();
  ASSERT_TRUE(flat.ok());
  for (int i = 0; i < 6; ++i) {
    (*flat)[i] = "s";
    (*flat)[i] += std::to_string(i);
  }
  auto slice = SliceInputProducer(
      {Tensor::FromVector<int64_t>({10, 20, 30}), strings}, options);
  ASSERT_TRUE(slice.ok()) << slice.status();
  EXPECT_EQ(slice->dtypes, (std::vector<DType>{DType::kInt64, DType::kString}));
  EXPECT_EQ(slice->shapes,
            (std::vector<PartialShape>{PartialShape(TensorShape()),
                                       PartialShape({2})}));
  EXPECT_EQ(slice->indices.metrics.scope(), "input_producer/input_producer");
  EXPECT_TRUE(
      registry_.Read("input_producer/input_producer/fraction_of_32_full"));
  Coordinator coord;
  auto threads = slice->indices.runner->CreateThreads(&coord, true);
  for (int e = 0; e < 2; ++e) {
    for (int i = 0; i < 3; ++i) {
      auto row = slice->step(CallOptions{kCallBound});
      ASSERT_TRUE(row.ok()) << row.status();
      ASSERT_EQ(row->size(), 2u);
      EXPECT_EQ(*(*row)[0].data<int64_t>(), 10 * (i + 1));
      EXPECT_EQ((*row)[1].shape(), TensorShape({2}));
      EXPECT_EQ((*row)[1].flat<std::string>()[1],
                "s" + std::to_string(2 * i + 1));
    }
  }
  auto end = slice->step(CallOptions{kCallBound});
  EXPECT_EQ(end.status().code(), StatusCode::kOutOfRange) << end.status();
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads).ok());
}

}  // namespace
}  // namespace inflow
