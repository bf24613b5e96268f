// Copyright 2026 The inflow Authors.
//
// One answer to one stop (issue 12): a consumer blocked in DequeueMany with
// coord.MakeCallOptions(), on a queue whose QueueRunner has a closer
// thread, is answered CANCELLED when RequestStop() comes, although the
// closer's Close(true), which the same stop triggers, would also finish
// it (with OUT_OF_RANGE).

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "inflow/queue/fifo_queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

#include "queue/queue_adapter.h"

namespace inflow {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kCallLimit{10000};
constexpr int kRounds = 200;

// An enqueue op that produces nothing until a stop releases it (a reader
// waiting for input that never comes).
Status WaitForStopOp(const CallOptions& options) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_for(lock, options.stop, kCallLimit, [] { return false; });
  return CancelledError("stopped while producing");
}

// Waits (bounded) until `queue` has `n` pending dequeues.
bool AwaitPendingDequeues(const QueueInterface& queue, size_t n) {
  const auto end = Clock::now() + kCallLimit;
  while (internal::CoreOf(queue)->PendingDequeues() != n) {
    if (Clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(StopRaceTest,
     RequestStopCancelsABlockedDequeueManyDespiteTheCloserIssue12) {
  const auto start = Clock::now();
  int cancelled = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto queue = FIFOQueue::Create({.capacity = 10,
                                    .dtypes = {DType::kInt64},
                                    .shapes = {PartialShape({})}})
                     .value();
    ASSERT_TRUE(queue->EnqueueMany({Tensor::FromVector<int64_t>({1, 2})}).ok());
    auto runner = QueueRunner::Create(queue, {WaitForStopOp}).value();
    Coordinator coord;
    auto threads = runner->CreateThreads(&coord, /*start=*/true);
    auto consumer = std::async(std::launch::async, [&] {
      return queue->DequeueMany(4, coord.MakeCallOptions(kCallLimit));
    });
    ASSERT_TRUE(AwaitPendingDequeues(*queue, 1));
    coord.RequestStop();
    ASSERT_EQ(consumer.wait_for(kCallLimit), std::future_status::ready);
    const Result<Tuple> batch = consumer.get();
    EXPECT_TRUE(IsCancelled(batch.status()))
        << "round " << round << ": " << batch.status();
    if (IsCancelled(batch.status())) ++cancelled;
    EXPECT_TRUE(coord.Join(threads, kCallLimit).ok());
    // The closer ran, and the cancelled DequeueMany gave its two back.
    EXPECT_TRUE(queue->IsClosed());
    EXPECT_EQ(queue->Size(), 2);
  }
  EXPECT_EQ(cancelled, kRounds);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(60));
}

}  // namespace
}  // namespace inflow
