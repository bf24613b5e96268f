// Copyright 2026 The inflow Authors.

#include "inflow/input/queue_metrics.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace inflow {

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

MetricGroup PublishQueueMetrics(MetricsRegistry& registry,
                                std::string_view scope,
                                std::shared_ptr<QueueInterface> queue,
                                const FillMetric& fill) {
  const int64_t offset = fill.offset;
  const double divisor = fill.capacity > 0 ? double(fill.capacity) : 1.0;
  std::vector<Gauge> gauges;
  gauges.push_back(
      {fill.name, [queue, offset, divisor] {
         return double(std::max<int64_t>(0, queue->Size() - offset)) / divisor;
       }});
  gauges.push_back({"size", [queue] { return double(queue->Size()); }});
  return registry.AddGroup(scope, std::move(gauges));
}

}  // namespace inflow
