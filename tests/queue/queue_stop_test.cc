// Copyright 2026 The inflow Authors.
//
// One answer to a stop: a call whose stop token fired before the queue
// decided its outcome is CANCELLED, even when a Close that comes after the
// stop would also have finished it (issue 12). All four kinds.

#include <stop_token>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

class QueueStopTest : public ::testing::TestWithParam<QueueKind> {};

// The stop's callback runs inside request_stop(); the Close comes right
// after it on the same thread, before the blocked thread can wake. The
// DequeueMany is answered CANCELLED, not the OUT_OF_RANGE the Close alone
// gives, and the elements it had taken are back.
TEST_P(QueueStopTest, StopBeforeCloseCancelsABlockedDequeueManyIssue12) {
  for (const bool cancel_pending_enqueues : {false, true}) {
    SCOPED_TRACE(cancel_pending_enqueues ? "Close(true)" : "Close(false)");
    auto q = IntQueue(GetParam(), 10);
    ASSERT_TRUE(q->Enqueue(IntElement(GetParam(), 1)).ok());
    ASSERT_TRUE(q->Enqueue(IntElement(GetParam(), 2)).ok());
    std::stop_source stop;
    auto many = Async([&] {
      return q->DequeueMany(4, CallOptions{.stop = stop.get_token()});
    });
    AwaitPendingDequeues(*q, 1);
    stop.request_stop();
    ASSERT_TRUE(q->Close(cancel_pending_enqueues).ok());
    const Result<Tuple> result = Get(many);
    EXPECT_TRUE(IsCancelled(result.status())) << result.status();
    EXPECT_EQ(q->Size(), 2);
    EXPECT_TRUE(q->IsClosed());
  }
}

TEST_P(QueueStopTest, StopBeforeCloseCancelsABlockedDequeueIssue12) {
  auto q = IntQueue(GetParam(), 10);
  std::stop_source stop;
  auto one =
      Async([&] { return q->Dequeue(CallOptions{.stop = stop.get_token()}); });
  AwaitPendingDequeues(*q, 1);
  stop.request_stop();
  ASSERT_TRUE(q->Close(true).ok());
  const Result<Tuple> result = Get(one);
  EXPECT_TRUE(IsCancelled(result.status())) << result.status();
  EXPECT_EQ(q->Size(), 0);
}

// The other order: a Close that finished the call before the stop came
// decides the answer; the later stop changes nothing.
TEST_P(QueueStopTest, CloseBeforeStopIsOutOfRange) {
  auto q = IntQueue(GetParam(), 10);
  ASSERT_TRUE(q->Enqueue(IntElement(GetParam(), 1)).ok());
  std::stop_source stop;
  auto many = Async(
      [&] { return q->DequeueMany(4, CallOptions{.stop = stop.get_token()}); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Close(true).ok());
  EXPECT_EQ(PendingDequeues(*q), 0u);
  stop.request_stop();
  const Result<Tuple> result = Get(many);
  EXPECT_TRUE(IsOutOfRange(result.status())) << result.status();
  EXPECT_EQ(q->Size(), 1);
}

// A call that has not joined the waiters yet (it polls, or is on its way
// to the lock) when the stop and then the Close come: CANCELLED too.
TEST_P(QueueStopTest, StopBeforeCloseCancelsACallThatHasNotJoinedTheWaiters) {
  for (int round = 0; round < 50; ++round) {
    auto q = IntQueue(GetParam(), 10);
    std::stop_source stop;
    auto one = Async(
        [&] { return q->Dequeue(CallOptions{.stop = stop.get_token()}); });
    auto many = Async([&] {
      return q->DequeueMany(2, CallOptions{.stop = stop.get_token()});
    });
    stop.request_stop();
    ASSERT_TRUE(q->Close(true).ok());
    EXPECT_TRUE(IsCancelled(Get(one).status()));
    EXPECT_TRUE(IsCancelled(Get(many).status()));
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, QueueStopTest,
    ::testing::Values(QueueKind::kFIFO, QueueKind::kPaddingFIFO,
                      QueueKind::kRandomShuffle, QueueKind::kPriority),
    [](const auto& info) { return std::string(QueueKindName(info.param)); });

}  // namespace
}  // namespace inflow
