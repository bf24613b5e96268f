// Copyright 2026 The inflow Authors.
//
// QueueInterface::stats(): elements enqueued and dequeued (rows, exactly;
// what a cancelled or timed-out call gave back is not dequeued) and the
// time blocked on each side (only calls that waited add to it), for every
// queue kind; and the counts across the lock-free path's segments.

#include <atomic>
#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;
using std::chrono::nanoseconds;

Tuple Batch(QueueKind kind, const std::vector<int32_t>& v) {
  if (kind == QueueKind::kPriority) {
    std::vector<int64_t> p(v.begin(), v.end());
    return {Tensor::FromVector(p), Tensor::FromVector(v)};
  }
  return Ints(v);
}

class QueueStatsTest : public ::testing::TestWithParam<QueueKind> {
 protected:
  QueueKind kind() const { return GetParam(); }
  std::shared_ptr<QueueInterface> Make(int64_t capacity) {
    return IntQueue(kind(), capacity);
  }
};

TEST_P(QueueStatsTest, NewQueueHasZeroCounters) {
  auto q = Make(10);
  EXPECT_EQ(q->stats(), QueueStats{});
}

TEST_P(QueueStatsTest, CountsRowsAndCallsThatDidNotWaitAddNoBlockedTime) {
  auto q = Make(10);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2, 3, 4, 5})).ok());
  ASSERT_TRUE(q->Enqueue(IntElement(kind(), 6)).ok());
  QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 6);
  EXPECT_EQ(s.dequeued, 0);
  ASSERT_TRUE(q->DequeueMany(3).ok());
  ASSERT_TRUE(q->Dequeue().ok());
  ASSERT_TRUE(q->DequeueUpTo(2).ok());
  s = q->stats();
  EXPECT_EQ(s.enqueued, 6);
  EXPECT_EQ(s.dequeued, 6);
  EXPECT_EQ(s.enqueue_blocked, nanoseconds(0));
  EXPECT_EQ(s.dequeue_blocked, nanoseconds(0));
}

TEST_P(QueueStatsTest, NonBlockingCallsThatFailCountNothing) {
  auto q = Make(2);
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(0ms)).status()));
  EXPECT_TRUE(IsDeadlineExceeded(q->DequeueMany(2, Timeout(0ms)).status()));
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2})).ok());
  EXPECT_TRUE(
      IsDeadlineExceeded(q->Enqueue(IntElement(kind(), 3), Timeout(0ms))));
  EXPECT_EQ(q->stats(), (QueueStats{.enqueued = 2}));
}

TEST_P(QueueStatsTest, DequeueThatWaitedAddsDequeueBlockedTimeOnly) {
  auto q = Make(10);
  auto blocked = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 1);
  // The waiting call has not returned: nothing counted yet.
  EXPECT_EQ(q->stats().dequeue_blocked, nanoseconds(0));
  ASSERT_TRUE(q->Enqueue(IntElement(kind(), 1)).ok());
  ASSERT_TRUE(Get(blocked).ok());
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 1);
  EXPECT_EQ(s.dequeued, 1);
  EXPECT_GT(s.dequeue_blocked, nanoseconds(0));
  EXPECT_EQ(s.enqueue_blocked, nanoseconds(0));  // it completed at once
}

TEST_P(QueueStatsTest, EnqueueThatWaitedOnAFullQueueAddsEnqueueBlockedTime) {
  auto q = Make(2);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2})).ok());
  auto blocked = Async([&] { return q->Enqueue(IntElement(kind(), 3)); });
  AwaitPendingEnqueues(*q, 1);
  EXPECT_EQ(q->stats().enqueued, 2);
  ASSERT_TRUE(q->Dequeue().ok());
  ASSERT_TRUE(Get(blocked).ok());
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 3);
  EXPECT_EQ(s.dequeued, 1);
  EXPECT_GT(s.enqueue_blocked, nanoseconds(0));
  EXPECT_EQ(s.dequeue_blocked, nanoseconds(0));
}

TEST_P(QueueStatsTest, TimedOutDequeueCountsItsWaitButDequeuesNothing) {
  auto q = Make(10);
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(20ms)).status()));
  const QueueStats s = q->stats();
  EXPECT_EQ(s.dequeued, 0);
  EXPECT_GE(s.dequeue_blocked, nanoseconds(20ms));
  EXPECT_LT(s.dequeue_blocked, nanoseconds(kTestBound));
}

TEST_P(QueueStatsTest, CancelledDequeueManyGivesBackAndIsNotDequeued) {
  auto q = Make(10);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2})).ok());
  std::stop_source stop;
  auto many = Async(
      [&] { return q->DequeueMany(5, CallOptions{.stop = stop.get_token()}); });
  AwaitPendingDequeues(*q, 1);
  // Held by the pending call (taken or not, by kind): not dequeued.
  EXPECT_EQ(q->stats().dequeued, 0);
  stop.request_stop();
  EXPECT_TRUE(IsCancelled(Get(many).status()));
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 2);
  EXPECT_EQ(s.dequeued, 0);
  EXPECT_GT(s.dequeue_blocked, nanoseconds(0));
  EXPECT_EQ(q->Size(), 2);
}

TEST_P(QueueStatsTest, TimedOutEnqueueManyCountsTheRowsItInserted) {
  auto q = Make(3);
  ASSERT_TRUE(q->Enqueue(IntElement(kind(), 1)).ok());
  // Two of the four rows fit; the call waits for the rest and times out.
  EXPECT_TRUE(IsDeadlineExceeded(
      q->EnqueueMany(Batch(kind(), {2, 3, 4, 5}), Timeout(20ms))));
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 3);
  EXPECT_GE(s.enqueue_blocked, nanoseconds(20ms));
  EXPECT_EQ(q->Size(), 3);
}

TEST_P(QueueStatsTest, DequeueOnAClosedQueueThatFailsCountsNothing) {
  auto q = Make(10);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2})).ok());
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(q->DequeueMany(3).status()));
  ASSERT_TRUE(q->DequeueUpTo(3).ok());
  EXPECT_TRUE(IsOutOfRange(q->Dequeue().status()));
  EXPECT_TRUE(IsCancelled(q->Enqueue(IntElement(kind(), 3))));
  EXPECT_EQ(q->stats(), (QueueStats{.enqueued = 2, .dequeued = 2}));
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, QueueStatsTest,
    ::testing::Values(QueueKind::kFIFO, QueueKind::kPaddingFIFO,
                      QueueKind::kRandomShuffle, QueueKind::kPriority),
    [](const auto& info) { return std::string(QueueKindName(info.param)); });

// ------------------------------------------- across the lock-free segments

TEST(QueueStatsFifoTest, CountsAcrossSegmentsAddedAndDropped) {
  // Unbounded: a backlog of 5000 spans several 1024-slot segments.
  auto q = Fifo(-1);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  EXPECT_EQ(q->stats().enqueued, 5000);
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(q->Dequeue().ok());
  ASSERT_TRUE(q->DequeueMany(1500).ok());
  for (int i = 0; i < 4000; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 9000);
  EXPECT_EQ(s.dequeued, 4500);
  EXPECT_EQ(q->Size(), 4500);
}

TEST(QueueStatsFifoTest, RestoredElementsAreNotDequeuedAndCountOnceLater) {
  auto q = Fifo(8);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3})).ok());
  ASSERT_TRUE(q->Dequeue().ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->DequeueMany(4, Timeout(10ms)).status()));
  const QueueStats after_timeout = q->stats();
  EXPECT_EQ(after_timeout.enqueued, 3);
  EXPECT_EQ(after_timeout.dequeued, 1);  // the 2 taken went back
  EXPECT_GE(after_timeout.dequeue_blocked, nanoseconds(10ms));
  ASSERT_TRUE(q->Enqueue(Int(4)).ok());  // lock-free again
  ASSERT_TRUE(q->DequeueMany(3).ok());
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, 4);
  EXPECT_EQ(s.dequeued, 4);
}

TEST(QueueStatsFifoTest, ConcurrentCountsAreExactAndMonotonic) {
  constexpr int kProducers = 2, kConsumers = 2, kPerThread = 20000;
  auto q = Fifo(64);
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!q->Enqueue(Int(i), Timeout(kTestBound)).ok()) {
          ADD_FAILURE() << "enqueue";
          return;
        }
      }
    });
  }
  for (int c = 0; c < kConsumers; ++c) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!q->Dequeue(Timeout(kTestBound)).ok()) {
          ADD_FAILURE() << "dequeue";
          return;
        }
      }
    });
  }
  // A sampler, as a metrics recorder would be: the counters never go
  // back, and never claim more dequeued than enqueued.
  QueueStats last;
  int samples = 0;
  std::thread sampler([&] {
    while (!done.load()) {
      const QueueStats s = q->stats();
      EXPECT_GE(s.enqueued, last.enqueued);
      EXPECT_GE(s.dequeued, last.dequeued);
      EXPECT_GE(s.enqueue_blocked, last.enqueue_blocked);
      EXPECT_GE(s.dequeue_blocked, last.dequeue_blocked);
      EXPECT_LE(s.dequeued, s.enqueued);
      EXPECT_LE(s.enqueued - s.dequeued, 64);
      last = s;
      ++samples;
      std::this_thread::sleep_for(100us);
    }
  });
  for (auto& t : threads) t.join();
  done = true;
  sampler.join();
  const QueueStats s = q->stats();
  EXPECT_EQ(s.enqueued, kProducers * kPerThread);
  EXPECT_EQ(s.dequeued, kConsumers * kPerThread);
  EXPECT_GT(samples, 0);
}

}  // namespace
}  // namespace inflow
