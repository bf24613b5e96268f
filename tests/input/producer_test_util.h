// Copyright 2026 The inflow Authors.
//
// Helpers for the producer tests: run a producer's runner under a
// Coordinator and drain its queue to the end of input, every blocking call
// bounded.

#ifndef INFLOW_TESTS_INPUT_PRODUCER_TEST_UTIL_H_
#define INFLOW_TESTS_INPUT_PRODUCER_TEST_UTIL_H_

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/producers.h"
#include "inflow/threads/coordinator.h"

namespace inflow::testing {

inline constexpr std::chrono::milliseconds kCallBound{10000};

// Options that register with `collection` and `registry`, not the
// process-wide defaults.
inline ProducerOptions LocalOptions(QueueRunnerCollection& collection,
                                    MetricsRegistry& registry) {
  ProducerOptions options;
  options.collection = &collection;
  options.metrics = &registry;
  return options;
}

// A dequeued scalar element as text: int32 and int64 as numbers, strings
// as they are.
inline std::string ScalarText(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kInt32:
      return std::to_string(*t.data<int32_t>());
    case DType::kInt64:
      return std::to_string(*t.data<int64_t>());
    case DType::kString:
      return *t.data<std::string>();
    default:
      return t.DebugString();
  }
}

// Starts `producer`'s runner, dequeues until OUT_OF_RANGE (each dequeue
// bounded by kCallBound), stops and joins. Returns the elements as text.
inline std::vector<std::string> DrainProducer(const Producer& producer) {
  Coordinator coord;
  auto threads = producer.runner->CreateThreads(&coord, /*start=*/true);
  std::vector<std::string> out;
  while (true) {
    Result<Tuple> element = producer.queue->Dequeue(CallOptions{kCallBound});
    if (!element.ok()) {
      EXPECT_EQ(element.status().code(), StatusCode::kOutOfRange)
          << element.status();
      break;
    }
    out.push_back(ScalarText((*element)[0]));
  }
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads).ok());
  return out;
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_INPUT_PRODUCER_TEST_UTIL_H_
