// Copyright 2026 The inflow Authors.
//
// Helpers for the queue tests: int32 elements and batches, and waiting
// (with a bound) until a call is pending inside a queue.

#ifndef INFLOW_TESTS_QUEUE_QUEUE_TEST_UTIL_H_
#define INFLOW_TESTS_QUEUE_QUEUE_TEST_UTIL_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"
#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/padding_fifo_queue.h"
#include "inflow/queue/priority_queue.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"
#include "inflow/queue/random_shuffle_queue.h"

#include "queue/queue_adapter.h"
#include "queue/queue_core.h"

namespace inflow::testing {

using namespace std::chrono_literals;

// Bound on every wait in the tests: a hang fails instead of blocking ctest.
inline constexpr auto kTestBound = std::chrono::seconds(20);

inline Tuple Int(int32_t v) { return {Tensor::Scalar<int32_t>(v)}; }
inline Tuple Ints(const std::vector<int32_t>& v) {
  return {Tensor::FromVector(v)};
}
inline int32_t IntOf(const Tuple& t) { return t.at(0).data<int32_t>()[0]; }
inline int32_t IntOf(const Result<Tuple>& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? IntOf(*t) : -1;
}
inline std::vector<int32_t> IntsOf(const Tensor& t) {
  auto f = t.flat<int32_t>();
  return {f.begin(), f.end()};
}
inline std::vector<int32_t> IntsOf(const Result<Tuple>& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? IntsOf(t->at(0)) : std::vector<int32_t>{};
}

inline CallOptions Timeout(std::chrono::milliseconds ms) {
  return CallOptions{.timeout = ms};
}

// An int32 scalar queue of `kind` (shapes [] so DequeueMany works).
inline std::shared_ptr<QueueInterface> IntQueue(QueueKind kind,
                                                int64_t capacity,
                                                int64_t min_after_dequeue = 0) {
  QueueOptions o{.capacity = capacity,
                 .dtypes = {DType::kInt32},
                 .shapes = {PartialShape({})},
                 .min_after_dequeue = min_after_dequeue};
  if (kind == QueueKind::kPriority) {
    o.dtypes = {};
    o.shapes = {};
    o.dtypes.push_back(DType::kInt32);
    o.shapes.push_back(PartialShape({}));
  }
  auto q = CreateQueue(kind, o);
  EXPECT_TRUE(q.ok()) << q.status();
  return q.ok() ? *q : nullptr;
}
// An element of an IntQueue of `kind` holding `v` (PriorityQueue: with
// priority v).
inline Tuple IntElement(QueueKind kind, int32_t v) {
  if (kind == QueueKind::kPriority) {
    return {Tensor::Scalar<int64_t>(v), Tensor::Scalar<int32_t>(v)};
  }
  return Int(v);
}

inline std::shared_ptr<QueueInterface> Fifo(int64_t capacity) {
  return IntQueue(QueueKind::kFIFO, capacity);
}

// Polls until `pred` holds; fails the test after kTestBound.
inline bool Eventually(const std::function<bool()>& pred) {
  const auto end = std::chrono::steady_clock::now() + kTestBound;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) {
      ADD_FAILURE() << "condition not reached within the test bound";
      return false;
    }
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

inline size_t PendingDequeues(const QueueInterface& q) {
  return internal::CoreOf(q)->PendingDequeues();
}
inline size_t PendingEnqueues(const QueueInterface& q) {
  return internal::CoreOf(q)->PendingEnqueues();
}
inline void AwaitPendingDequeues(const QueueInterface& q, size_t n) {
  Eventually([&] { return PendingDequeues(q) == n; });
}
inline void AwaitPendingEnqueues(const QueueInterface& q, size_t n) {
  Eventually([&] { return PendingEnqueues(q) == n; });
}

// Runs `fn` on its own thread.
template <typename F>
auto Async(F fn) {
  return std::async(std::launch::async, std::move(fn));
}
// The result of `f`, failing the test (and returning a default) when it is
// not ready within the bound.
template <typename T>
T Get(std::future<T>& f) {
  if (f.wait_for(kTestBound) != std::future_status::ready) {
    ADD_FAILURE() << "blocked call did not finish within the test bound";
    std::abort();  // a hung thread cannot be joined; stop here loudly
  }
  return f.get();
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_QUEUE_QUEUE_TEST_UTIL_H_
