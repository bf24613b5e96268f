// Copyright 2026 The inflow Authors.
//
// The metrics a producer or batching queue publishes (docs/conformance.md,
// "Queue fill metrics"): TF's fill summary under TF's tag, the queue's
// size and its counters (QueueStats). `scope` is made unique by the
// registry ("batch", "batch_1", ...).
//
//   fraction_of_<C>_full                   size / C       (batch, producers)
//   fraction_over_<M>_of_<C-M>_full        max(0, size - M) / (C - M)
//                                                         (shuffle_batch)
//   size                                   elements in the queue
//   enqueued, dequeued                     elements, since the queue began
//   enqueue_blocked_seconds,               time calls waited on each side,
//   dequeue_blocked_seconds                  cumulative (QueueStats)
//
// The fractions are computed in float32 as TF's summaries are (size cast
// to float32 times the float32 of 1/C): 7 of 10 reads 0.699999988079071.
// Each gauge reads the queue when it is read, one by one.

#ifndef INFLOW_INPUT_QUEUE_METRICS_H_
#define INFLOW_INPUT_QUEUE_METRICS_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "inflow/core/metrics.h"
#include "inflow/queue/queue.h"

namespace inflow {

// How the fill gauge is computed.
struct FillMetric {
  // TF's fraction_of_<capacity>_full.
  static FillMetric Fraction(int64_t capacity);
  // TF's fraction_over_<min_after_dequeue>_of_<capacity - min>_full.
  static FillMetric OverMin(int64_t min_after_dequeue, int64_t capacity);

  // The gauge's value for a queue of `size` elements, as TF computes it.
  double Value(int64_t size) const;

  std::string name;
  int64_t offset = 0;    // subtracted from the size, clamped at 0
  int64_t capacity = 1;  // the divisor (1 if not positive)
};

// Publishes `queue`'s gauges under `scope` in `registry`. The group keeps
// the queue alive until it is destroyed.
[[nodiscard]] MetricGroup PublishQueueMetrics(
    MetricsRegistry& registry, std::string_view scope,
    std::shared_ptr<QueueInterface> queue, const FillMetric& fill);

}  // namespace inflow

#endif  // INFLOW_INPUT_QUEUE_METRICS_H_
