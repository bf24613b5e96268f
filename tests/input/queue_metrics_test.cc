// Copyright 2026 The inflow Authors.
//
// PublishQueueMetrics: TF's fill summaries under TF's tags with TF's
// float32 values (the expected values are what TF 2's graph mode printed
// for tf.compat.v1.train.batch / shuffle_batch queues holding those many
// elements), the size, and the queue's counters.

#include "inflow/input/queue_metrics.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/random_shuffle_queue.h"

namespace inflow {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<QueueInterface> Fifo(int64_t capacity) {
  return *FIFOQueue::Create({.capacity = capacity,
                             .dtypes = {DType::kInt32},
                             .shapes = {PartialShape({})}});
}

std::shared_ptr<QueueInterface> Shuffle(int64_t capacity, int64_t min_after) {
  return *RandomShuffleQueue::Create({.capacity = capacity,
                                      .dtypes = {DType::kInt32},
                                      .shapes = {PartialShape({})},
                                      .min_after_dequeue = min_after,
                                      .seed = 1});
}

// Fills `q` up to `size` elements.
void FillTo(QueueInterface& q, int64_t size) {
  while (q.Size() < size) {
    ASSERT_TRUE(q.Enqueue({Tensor::Scalar<int32_t>(0)}).ok());
  }
}

// The fill gauge's value at each size, filling the queue in order.
std::vector<double> FillValues(MetricsRegistry& registry,
                               const std::string& tag, QueueInterface& q,
                               const std::vector<int64_t>& sizes) {
  std::vector<double> values;
  for (int64_t size : sizes) {
    FillTo(q, size);
    values.push_back(registry.Read(tag).value_or(-1));
  }
  return values;
}

TEST(FillMetricTest, NamesAreTensorFlowSummaryNames) {
  EXPECT_EQ(FillMetric::Fraction(32).name, "fraction_of_32_full");
  EXPECT_EQ(FillMetric::OverMin(5000, 10000).name,
            "fraction_over_5000_of_5000_full");
  EXPECT_EQ(FillMetric::OverMin(30, 100).name, "fraction_over_30_of_70_full");
}

TEST(QueueMetricsTest, FractionIsSizeOverCapacityInFloat32AsTensorFlow) {
  MetricsRegistry registry;
  auto q = Fifo(10);
  MetricGroup g =
      PublishQueueMetrics(registry, "batch", q, FillMetric::Fraction(10));
  EXPECT_EQ(
      FillValues(registry, "batch/fraction_of_10_full", *q, {0, 1, 3, 7, 10}),
      (std::vector<double>{0.0, 0.10000000149011612, 0.30000001192092896,
                           0.699999988079071, 1.0}));
  auto q3 = Fifo(3);
  MetricGroup g3 =
      PublishQueueMetrics(registry, "batch", q3, FillMetric::Fraction(3));
  EXPECT_EQ(g3.scope(), "batch_1");
  EXPECT_EQ(FillValues(registry, "batch_1/fraction_of_3_full", *q3, {1, 2, 3}),
            (std::vector<double>{0.3333333432674408, 0.6666666865348816, 1.0}));
}

TEST(QueueMetricsTest, OverMinIsClampedExcessOverCapacityLessMinInFloat32) {
  MetricsRegistry registry;
  auto q = Shuffle(100, 30);
  MetricGroup g = PublishQueueMetrics(registry, "shuffle_batch", q,
                                      FillMetric::OverMin(30, 100));
  EXPECT_EQ(FillValues(registry, "shuffle_batch/fraction_over_30_of_70_full",
                       *q, {0, 29, 30, 31, 37, 100}),
            (std::vector<double>{0.0, 0.0, 0.0, 0.014285714365541935,
                                 0.10000000149011612, 1.0}));
  auto small = Shuffle(10, 7);
  MetricGroup g2 = PublishQueueMetrics(registry, "shuffle_batch", small,
                                       FillMetric::OverMin(7, 10));
  EXPECT_EQ(
      FillValues(registry, "shuffle_batch_1/fraction_over_7_of_3_full", *small,
                 {7, 8, 9, 10}),
      (std::vector<double>{0.0, 0.3333333432674408, 0.6666666865348816, 1.0}));
}

TEST(QueueMetricsTest, PublishesSizeCountsAndBlockedSecondsUnderTheScope) {
  MetricsRegistry registry;
  auto q = Fifo(32);
  MetricGroup g = PublishQueueMetrics(registry, "input_producer", q,
                                      FillMetric::Fraction(32));
  EXPECT_EQ(g.tags(), (std::vector<std::string>{
                          "input_producer/fraction_of_32_full",
                          "input_producer/size",
                          "input_producer/enqueued",
                          "input_producer/dequeued",
                          "input_producer/enqueue_blocked_seconds",
                          "input_producer/dequeue_blocked_seconds",
                      }));
  ASSERT_TRUE(
      q->EnqueueMany({Tensor::FromVector<int32_t>({1, 2, 3, 4, 5})}).ok());
  ASSERT_TRUE(q->DequeueMany(2).ok());
  EXPECT_EQ(registry.Read("input_producer/size"), 3);
  EXPECT_EQ(registry.Read("input_producer/enqueued"), 5);
  EXPECT_EQ(registry.Read("input_producer/dequeued"), 2);
  EXPECT_EQ(registry.Read("input_producer/enqueue_blocked_seconds"), 0);
  EXPECT_EQ(registry.Read("input_producer/dequeue_blocked_seconds"), 0);
  // A DequeueMany that waits 20 ms for elements that never come.
  EXPECT_TRUE(IsDeadlineExceeded(
      q->DequeueMany(10, CallOptions{.timeout = 20ms}).status()));
  EXPECT_GE(registry.Read("input_producer/dequeue_blocked_seconds").value(),
            0.020);
  EXPECT_EQ(registry.Read("input_producer/dequeued"), 2);
}

TEST(QueueMetricsTest, GroupKeepsTheQueueAliveAndItsEndRemovesTheTags) {
  MetricsRegistry registry;
  auto q = Fifo(4);
  std::weak_ptr<QueueInterface> weak = q;
  MetricGroup g = PublishQueueMetrics(registry, "batch", std::move(q),
                                      FillMetric::Fraction(4));
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(registry.Read("batch/size"), 0);
  g.Reset();
  EXPECT_TRUE(weak.expired());
  EXPECT_TRUE(registry.Snapshot().empty());
}

}  // namespace
}  // namespace inflow
