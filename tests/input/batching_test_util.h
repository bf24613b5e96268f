// Copyright 2026 The inflow Authors.
//
// Steps and drivers shared by the batching tests.

#ifndef INFLOW_TESTS_INPUT_BATCHING_TEST_UTIL_H_
#define INFLOW_TESTS_INPUT_BATCHING_TEST_UTIL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "inflow/input/batching.h"
#include "inflow/threads/coordinator.h"

namespace inflow::testing {

// Every blocking call has a limit, so that a bug fails a test instead of
// hanging it.
constexpr std::chrono::milliseconds kCallLimit{10000};
constexpr std::chrono::seconds kShutdownBound{5};

// Hands out begin, begin+1, ..., end-1 across threads, then OUT_OF_RANGE
// (a reader reaching the end of a closed filename queue). Thread-safe.
class Counter {
 public:
  Counter(int64_t begin, int64_t end) : next_(begin), end_(end) {}
  Result<Tuple> Next() {
    const int64_t v = next_.fetch_add(1);
    if (v >= end_) return OutOfRangeError("counter exhausted");
    return Tuple{Tensor::Scalar<int64_t>(v)};
  }

 private:
  std::atomic<int64_t> next_;
  const int64_t end_;
};

// A scalar int64 input counting [begin, end).
inline BatchInput CountingInput(int64_t begin, int64_t end) {
  auto counter = std::make_shared<Counter>(begin, end);
  return BatchInput{
      .dtypes = {DType::kInt64},
      .shapes = {PartialShape({})},
      .step = [counter](const CallOptions&) { return counter->Next(); }};
}

// What a consumer saw: the batches' component 0 and how Next() ended.
struct Drained {
  std::vector<std::vector<int64_t>> batches;
  Status end;   // Next()'s last status
  Status join;  // the coordinator's Join
};

// Starts the runners of `collection`, calls Next() until it fails, stops
// the coordinator and joins.
Drained Drain(Batcher& batcher, QueueRunnerCollection& collection);

// Every value of every batch, in order.
std::vector<int64_t> Flatten(const std::vector<std::vector<int64_t>>& b);

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_INPUT_BATCHING_TEST_UTIL_H_
