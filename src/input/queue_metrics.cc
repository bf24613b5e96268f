// Copyright 2026 The inflow Authors.

#include "inflow/input/queue_metrics.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace inflow {
namespace {

double Seconds(std::chrono::nanoseconds d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

FillMetric FillMetric::Fraction(int64_t capacity) {
  return {.name = "fraction_of_" + std::to_string(capacity) + "_full",
          .offset = 0,
          .capacity = capacity};
}

FillMetric FillMetric::OverMin(int64_t min_after_dequeue, int64_t capacity) {
  const int64_t span = capacity - min_after_dequeue;
  return {.name = "fraction_over_" + std::to_string(min_after_dequeue) +
                  "_of_" + std::to_string(span) + "_full",
          .offset = min_after_dequeue,
          .capacity = span};
}

double FillMetric::Value(int64_t size) const {
  // TF: cast(max(0, size - offset), float32) * (1. / capacity), the
  // Python double 1/capacity becoming a float32 constant; so float32
  // arithmetic, not size / capacity in double.
  const float reciprocal = static_cast<float>(
      1.0 / static_cast<double>(capacity > 0 ? capacity : 1));
  const float over = static_cast<float>(std::max<int64_t>(0, size - offset));
  return static_cast<double>(over * reciprocal);
}

MetricGroup PublishQueueMetrics(MetricsRegistry& registry,
                                std::string_view scope,
                                std::shared_ptr<QueueInterface> queue,
                                const FillMetric& fill) {
  std::vector<Gauge> gauges;
  gauges.push_back(
      {fill.name, [queue, fill] { return fill.Value(queue->Size()); }});
  gauges.push_back({"size", [queue] { return double(queue->Size()); }});
  gauges.push_back(
      {"enqueued", [queue] { return double(queue->stats().enqueued); }});
  gauges.push_back(
      {"dequeued", [queue] { return double(queue->stats().dequeued); }});
  gauges.push_back({"enqueue_blocked_seconds", [queue] {
                      return Seconds(queue->stats().enqueue_blocked);
                    }});
  gauges.push_back({"dequeue_blocked_seconds", [queue] {
                      return Seconds(queue->stats().dequeue_blocked);
                    }});
  return registry.AddGroup(scope, std::move(gauges));
}

}  // namespace inflow
