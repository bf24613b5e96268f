// Copyright 2026 The inflow Authors.
//
// The waiter model, closing, and timeouts and cancellation, on FIFOQueue
// unless a test says otherwise (docs/conformance.md, "Waiter model
// (1.4)", "Operations (1.5) and FIFO order (2)", "Timeouts and
// cancellation (1.6)").

#include <chrono>
#include <stop_token>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

TEST(QueueWaitersTest, EnqueueBlocksAtCapacityUntilADequeue) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  auto blocked = Async([&] { return q->Enqueue(Int(2)); });
  AwaitPendingEnqueues(*q, 1);
  EXPECT_EQ(q->Size(), 1);
  EXPECT_EQ(IntOf(q->Dequeue()), 1);
  EXPECT_TRUE(Get(blocked).ok());
  EXPECT_EQ(IntOf(q->Dequeue()), 2);
}

TEST(QueueWaitersTest, DequeueBlocksWhileEmptyUntilAnEnqueue) {
  auto q = Fifo(2);
  auto blocked = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Enqueue(Int(5)).ok());
  EXPECT_EQ(IntOf(Get(blocked)), 5);
  EXPECT_EQ(q->Size(), 0);
}

TEST(QueueWaitersTest, EnqueueManyLargerThanCapacityCompletesIncrementally) {
  auto q = Fifo(5);
  auto blocked = Async([&] {
    return q->EnqueueMany(Ints({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  });
  AwaitPendingEnqueues(*q, 1);
  EXPECT_EQ(q->Size(), 5);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(IntOf(q->Dequeue()), i);
  EXPECT_EQ(PendingEnqueues(*q), 1u);  // one row still waits for space
  EXPECT_EQ(IntOf(q->Dequeue()), 4);
  EXPECT_TRUE(Get(blocked).ok());
  EXPECT_EQ(IntsOf(q->DequeueMany(5)), (std::vector<int32_t>{5, 6, 7, 8, 9}));
}

TEST(QueueWaitersTest, DequeueManyLargerThanCapacityCollectsIncrementally) {
  auto q = Fifo(2);
  auto blocked = Async([&] { return q->DequeueMany(4); });
  AwaitPendingDequeues(*q, 1);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  EXPECT_EQ(IntsOf(Get(blocked)), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(QueueWaitersTest, ElementsBufferedByAPendingDequeueManyLeaveSize) {
  auto q = Fifo(10);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3})).ok());
  auto blocked = Async([&] { return q->DequeueMany(5); });
  AwaitPendingDequeues(*q, 1);
  EXPECT_EQ(q->Size(), 0);
  ASSERT_TRUE(q->EnqueueMany(Ints({4, 5})).ok());
  EXPECT_EQ(IntsOf(Get(blocked)), (std::vector<int32_t>{1, 2, 3, 4, 5}));
}

TEST(QueueWaitersTest, PendingDequeueManyBlocksALaterDequeue) {
  auto q = Fifo(10);
  auto many = Async([&] { return q->DequeueMany(3); });
  AwaitPendingDequeues(*q, 1);
  auto one = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 2);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  EXPECT_EQ(PendingDequeues(*q), 2u);  // the single dequeue may not overtake
  ASSERT_TRUE(q->EnqueueMany(Ints({3, 4})).ok());
  EXPECT_EQ(IntsOf(Get(many)), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(IntOf(Get(one)), 4);
}

TEST(QueueWaitersTest, PendingEnqueueManyBlocksALaterEnqueue) {
  auto q = Fifo(2);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  auto many = Async([&] { return q->EnqueueMany(Ints({3, 4})); });
  AwaitPendingEnqueues(*q, 1);
  auto one = Async([&] { return q->Enqueue(Int(5)); });
  AwaitPendingEnqueues(*q, 2);
  EXPECT_EQ(IntOf(q->Dequeue()), 1);  // frees one slot: row 3 goes in
  EXPECT_EQ(PendingEnqueues(*q), 2u);
  std::vector<int32_t> out;
  for (int i = 0; i < 4; ++i) out.push_back(IntOf(q->Dequeue()));
  EXPECT_EQ(out, (std::vector<int32_t>{2, 3, 4, 5}));
  EXPECT_TRUE(Get(many).ok());
  EXPECT_TRUE(Get(one).ok());
}

TEST(QueueWaitersTest, BlockedDequeuersAreServedInArrivalOrder) {
  auto q = Fifo(10);
  std::vector<std::future<Result<Tuple>>> waiters;
  for (size_t i = 0; i < 4; ++i) {
    waiters.push_back(Async([&] { return q->Dequeue(); }));
    AwaitPendingDequeues(*q, i + 1);
  }
  ASSERT_TRUE(q->EnqueueMany(Ints({10, 11, 12, 13})).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(IntOf(Get(waiters[i])), 10 + i);
}

TEST(QueueWaitersTest, CloseWaitsBehindPendingEnqueuesWhichSucceed) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  auto enqueue = Async([&] { return q->Enqueue(Int(2)); });
  AwaitPendingEnqueues(*q, 1);
  auto close = Async([&] { return q->Close(); });
  AwaitPendingEnqueues(*q, 2);
  EXPECT_FALSE(q->IsClosed());
  EXPECT_EQ(IntOf(q->Dequeue()), 1);
  EXPECT_TRUE(Get(enqueue).ok());
  EXPECT_TRUE(Get(close).ok());
  EXPECT_TRUE(q->IsClosed());
  EXPECT_EQ(IntOf(q->Dequeue()), 2);
  EXPECT_TRUE(IsOutOfRange(q->Dequeue().status()));
}

TEST(QueueWaitersTest, EnqueueIssuedAfterAPendingCloseIsCancelled) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  auto first = Async([&] { return q->Enqueue(Int(2)); });
  AwaitPendingEnqueues(*q, 1);
  auto close = Async([&] { return q->Close(); });
  AwaitPendingEnqueues(*q, 2);
  auto late = Async([&] { return q->Enqueue(Int(3)); });
  AwaitPendingEnqueues(*q, 3);
  EXPECT_EQ(IntOf(q->Dequeue()), 1);
  EXPECT_TRUE(Get(first).ok());
  EXPECT_TRUE(Get(close).ok());
  EXPECT_TRUE(IsCancelled(Get(late)));
  EXPECT_EQ(q->Size(), 1);
}

TEST(QueueWaitersTest, CloseWithCancelFailsPendingEnqueuesAndPendingCloses) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  auto enqueue = Async([&] { return q->Enqueue(Int(2)); });
  AwaitPendingEnqueues(*q, 1);
  auto close = Async([&] { return q->Close(); });
  AwaitPendingEnqueues(*q, 2);
  EXPECT_TRUE(q->Close(/*cancel_pending_enqueues=*/true).ok());
  EXPECT_TRUE(IsCancelled(Get(enqueue)));
  EXPECT_TRUE(IsCancelled(Get(close)));
  EXPECT_TRUE(q->IsClosed());
  EXPECT_EQ(q->Size(), 1);
  EXPECT_EQ(PendingEnqueues(*q), 0u);
}

TEST(QueueWaitersTest, CloseWithCancelKeepsRowsAnEnqueueManyInserted) {
  auto q = Fifo(2);
  auto many = Async([&] { return q->EnqueueMany(Ints({1, 2, 3, 4})); });
  AwaitPendingEnqueues(*q, 1);
  EXPECT_EQ(q->Size(), 2);
  ASSERT_TRUE(q->Close(true).ok());
  EXPECT_TRUE(IsCancelled(Get(many)));
  EXPECT_EQ(IntsOf(q->DequeueUpTo(10)), (std::vector<int32_t>{1, 2}));
}

TEST(QueueWaitersTest, ClosingReleasesAPendingDequeueWithOutOfRange) {
  auto q = Fifo(2);
  auto dequeue = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(Get(dequeue).status()));
}

TEST(QueueWaitersTest, CloseWithCancelAlsoReleasesPendingDequeues) {
  auto q = Fifo(2);
  auto dequeue = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Close(/*cancel_pending_enqueues=*/true).ok());
  EXPECT_TRUE(IsOutOfRange(Get(dequeue).status()));
}

TEST(QueueWaitersTest, ClosingLetsAPendingDequeueUpToReturnAShortBatch) {
  auto q = Fifo(10);
  auto upto = Async([&] { return q->DequeueUpTo(5); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  EXPECT_EQ(PendingDequeues(*q), 1u);  // open: waits for a full batch
  ASSERT_TRUE(q->Close().ok());
  EXPECT_EQ(IntsOf(Get(upto)), (std::vector<int32_t>{1, 2}));
}

TEST(QueueWaitersTest, ClosingFailsAPendingDequeueManyAndKeepsItsElements) {
  // TF's fifo_queue_test: capacity 4, enqueue 3, dequeue_many(4) blocks,
  // close -> OutOfRange, then 1, 2, 3 and size 0.
  auto q = Fifo(4);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3})).ok());
  auto many = Async([&] { return q->DequeueMany(4); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(Get(many).status()));
  EXPECT_EQ(q->Size(), 3);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(IntOf(q->Dequeue()), i);
  EXPECT_EQ(q->Size(), 0);
}

TEST(QueueWaitersTest, ClosingServesPendingDequeuesThatRemainingElementsFill) {
  auto q = Fifo(10);
  auto many = Async([&] { return q->DequeueMany(3); });
  AwaitPendingDequeues(*q, 1);
  auto one = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 2);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  ASSERT_TRUE(q->Close().ok());
  // The DequeueMany cannot be filled: it fails and gives 1, 2 back, which
  // the next waiter then takes from the front.
  EXPECT_TRUE(IsOutOfRange(Get(many).status()));
  EXPECT_EQ(IntOf(Get(one)), 1);
  EXPECT_EQ(q->Size(), 1);
}

TEST(QueueWaitersTest, DequeueTimesOutTwiceThenQueueStillWorks) {
  auto q = Fifo(2);
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(10ms)).status()));
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(10ms)).status()));
  EXPECT_EQ(PendingDequeues(*q), 0u);
  ASSERT_TRUE(q->Enqueue(Int(37)).ok());
  EXPECT_EQ(IntOf(q->Dequeue()), 37);
}

TEST(QueueWaitersTest, EnqueueTimesOutAtCapacityAndLeavesNoTrace) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->Enqueue(Int(2), Timeout(10ms))));
  EXPECT_EQ(PendingEnqueues(*q), 0u);
  EXPECT_EQ(IntOf(q->Dequeue()), 1);
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(0ms)).status()));
}

TEST(QueueWaitersTest, TimedOutEnqueueManyLeavesInsertedRows) {
  auto q = Fifo(2);
  EXPECT_TRUE(
      IsDeadlineExceeded(q->EnqueueMany(Ints({1, 2, 3}), Timeout(10ms))));
  EXPECT_EQ(q->Size(), 2);
}

// [divergence] TF drops what a cancelled DequeueMany had collected.
TEST(QueueWaitersTest, TimedOutDequeueManyPutsTakenElementsBackInOrder) {
  auto q = Fifo(10);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3})).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->DequeueMany(5, Timeout(10ms)).status()));
  EXPECT_EQ(q->Size(), 3);
  ASSERT_TRUE(q->Enqueue(Int(4)).ok());
  EXPECT_EQ(IntsOf(q->DequeueMany(4)), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(QueueWaitersTest, TimedOutHeadLetsTheNextWaiterRun) {
  auto q = Fifo(10);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  auto many = Async([&] { return q->DequeueMany(5, Timeout(50ms)); });
  AwaitPendingDequeues(*q, 1);
  auto one = Async([&] { return q->Dequeue(); });
  EXPECT_TRUE(IsDeadlineExceeded(Get(many).status()));
  EXPECT_EQ(IntOf(Get(one)), 1);  // the restored element, once unblocked
}

TEST(QueueWaitersTest, ZeroTimeoutNeverBlocksAndLeavesQueueUntouched) {
  auto q = Fifo(2);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->DequeueMany(2, Timeout(0ms)).status()));
  EXPECT_TRUE(IsDeadlineExceeded(q->EnqueueMany(Ints({2, 3}), Timeout(0ms))));
  EXPECT_EQ(q->Size(), 1);
  EXPECT_TRUE(q->Enqueue(Int(2), Timeout(0ms)).ok());
  EXPECT_EQ(IntsOf(q->DequeueMany(2, Timeout(0ms))),
            (std::vector<int32_t>{1, 2}));
}

TEST(QueueWaitersTest, StopTokenCancelsABlockedDequeueMany) {
  auto q = Fifo(10);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  std::stop_source stop;
  auto many = Async(
      [&] { return q->DequeueMany(3, CallOptions{.stop = stop.get_token()}); });
  AwaitPendingDequeues(*q, 1);
  stop.request_stop();
  EXPECT_TRUE(IsCancelled(Get(many).status()));
  EXPECT_EQ(PendingDequeues(*q), 0u);
  EXPECT_EQ(IntsOf(q->DequeueMany(2)), (std::vector<int32_t>{1, 2}));
}

TEST(QueueWaitersTest, StopTokenCancelsABlockedEnqueue) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  std::stop_source stop;
  auto blocked = Async([&] {
    return q->Enqueue(Int(2), CallOptions{.stop = stop.get_token()});
  });
  AwaitPendingEnqueues(*q, 1);
  stop.request_stop();
  EXPECT_TRUE(IsCancelled(Get(blocked)));
  EXPECT_EQ(q->Size(), 1);
  EXPECT_EQ(IntOf(q->Dequeue()), 1);
  EXPECT_EQ(q->Size(), 0);
}

TEST(QueueWaitersTest, AlreadyStoppedTokenIsCancelledWithoutTouchingQueue) {
  auto q = Fifo(2);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  std::stop_source stop;
  stop.request_stop();
  const CallOptions stopped{.stop = stop.get_token()};
  EXPECT_TRUE(IsCancelled(q->Enqueue(Int(2), stopped)));
  EXPECT_TRUE(IsCancelled(q->Dequeue(stopped).status()));
  EXPECT_TRUE(IsCancelled(q->Close(false, stopped)));
  EXPECT_EQ(q->Size(), 1);
  EXPECT_FALSE(q->IsClosed());
}

TEST(QueueWaitersTest, CloseTimingOutBehindABlockedEnqueueLeavesQueueOpen) {
  auto q = Fifo(1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  auto enqueue = Async([&] { return q->Enqueue(Int(2)); });
  AwaitPendingEnqueues(*q, 1);
  EXPECT_TRUE(IsDeadlineExceeded(q->Close(false, Timeout(10ms))));
  EXPECT_FALSE(q->IsClosed());
  EXPECT_EQ(IntOf(q->Dequeue()), 1);
  EXPECT_TRUE(Get(enqueue).ok());
  EXPECT_TRUE(q->Close().ok());
}

// A call that would block polls (and sleeps) before it joins the waiters;
// its timeout runs from when it began to wait, so it never fails before
// the timeout has passed, whichever kind of queue and whichever way it
// waits: the lock-free path of FIFO (empty, or full at a capacity within
// one segment) or the size hint of RandomShuffle and Priority.
TEST(QueueWaitersTest, TimedOutCallsHaveWaitedAtLeastTheirTimeout) {
  using Clock = std::chrono::steady_clock;
  for (const QueueKind kind :
       {QueueKind::kFIFO, QueueKind::kPaddingFIFO, QueueKind::kRandomShuffle,
        QueueKind::kPriority}) {
    SCOPED_TRACE(std::string(QueueKindName(kind)));
    auto q = IntQueue(kind, 2);
    for (const auto timeout : {1ms, 3ms, 20ms}) {
      Clock::time_point start = Clock::now();
      EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(timeout)).status()));
      EXPECT_GE(Clock::now() - start, timeout);
      EXPECT_EQ(PendingDequeues(*q), 0u);
    }
    ASSERT_TRUE(q->Enqueue(IntElement(kind, 1)).ok());
    ASSERT_TRUE(q->Enqueue(IntElement(kind, 2)).ok());
    for (const auto timeout : {1ms, 3ms, 20ms}) {
      Clock::time_point start = Clock::now();
      EXPECT_TRUE(IsDeadlineExceeded(
          q->Enqueue(IntElement(kind, 3), Timeout(timeout))));
      EXPECT_GE(Clock::now() - start, timeout);
      EXPECT_EQ(PendingEnqueues(*q), 0u);
    }
    EXPECT_EQ(q->Size(), 2);
  }
}

// A stop request that comes while the call still polls, before it has
// joined the waiters, cancels it all the same and leaves the queue as it
// was.
TEST(QueueWaitersTest, StopTokenCancelsADequeueThatHasNotJoinedTheWaiters) {
  auto q = Fifo(2);
  for (int round = 0; round < 20; ++round) {
    std::stop_source stop;
    auto blocked = Async(
        [&] { return q->Dequeue(CallOptions{.stop = stop.get_token()}); });
    stop.request_stop();
    EXPECT_TRUE(IsCancelled(Get(blocked).status()));
    EXPECT_EQ(PendingDequeues(*q), 0u);
  }
  ASSERT_TRUE(q->Enqueue(Int(5)).ok());
  EXPECT_EQ(IntOf(q->Dequeue()), 5);
}

TEST(QueueWaitersTest, HugeTimeoutWaitsLikeNoTimeout) {
  auto q = Fifo(2);
  auto blocked = Async(
      [&] { return q->Dequeue(Timeout(std::chrono::milliseconds::max())); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Enqueue(Int(9)).ok());
  EXPECT_EQ(IntOf(Get(blocked)), 9);
}

TEST(QueueWaitersTest, CapacityZeroBlocksEveryEnqueueUntilClose) {
  auto q = Fifo(0);
  EXPECT_TRUE(IsDeadlineExceeded(q->Enqueue(Int(1), Timeout(10ms))));
  auto blocked = Async([&] { return q->Enqueue(Int(1)); });
  AwaitPendingEnqueues(*q, 1);
  ASSERT_TRUE(q->Close(true).ok());
  EXPECT_TRUE(IsCancelled(Get(blocked)));
}

TEST(QueueWaitersTest, PriorityDequeueManyWaitsForAllNWithoutTakingAny) {
  auto q = IntQueue(QueueKind::kPriority, 10);
  auto many = Async([&] { return q->DequeueMany(3); });
  AwaitPendingDequeues(*q, 1);
  for (int64_t p : {5, 1}) {
    ASSERT_TRUE(q->Enqueue({Tensor::Scalar<int64_t>(p), Int(0)[0]}).ok());
  }
  EXPECT_EQ(q->Size(), 2);  // not incremental: nothing taken yet
  ASSERT_TRUE(q->Enqueue({Tensor::Scalar<int64_t>(3), Int(0)[0]}).ok());
  auto batch = Get(many);
  ASSERT_TRUE(batch.ok());
  auto p = (*batch)[0].flat<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(p.begin(), p.end()),
            (std::vector<int64_t>{1, 3, 5}));
}

}  // namespace
}  // namespace inflow
