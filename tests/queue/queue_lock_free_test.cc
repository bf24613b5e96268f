// Copyright 2026 The inflow Authors.
//
// The lock-free path of FIFOQueue and PaddingFIFOQueue (queue_core.h):
// SlotRing and Gate on their own, and the queue at the edges where the
// locked path takes over (segments added and dropped, elements given back
// beyond the first segment, waiters and Close shutting the gate).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "queue/gate.h"
#include "queue/slot_ring.h"
#include "queue/thread_slots.h"
#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;
using internal::Gate;
using internal::SlotRing;
using internal::ThreadSlots;

TEST(SlotRingTest, LockFreePushAndPopKeepOrderAtASlotCountNotAPowerOfTwo) {
  SlotRing ring(3);
  for (int lap = 0; lap < 5; ++lap) {
    for (int i = 0; i < 3; ++i) {
      Tuple t = Int(lap * 10 + i);
      ASSERT_EQ(ring.TryPush(t), SlotRing::Outcome::kDone);
    }
    Tuple extra = Int(99);
    EXPECT_EQ(ring.TryPush(extra), SlotRing::Outcome::kFullOrEmpty);
    EXPECT_EQ(IntOf(extra), 99);  // untouched
    for (int i = 0; i < 3; ++i) {
      Tuple t;
      ASSERT_EQ(ring.TryPop(&t), SlotRing::Outcome::kDone);
      EXPECT_EQ(IntOf(t), lap * 10 + i);
    }
    Tuple none;
    EXPECT_EQ(ring.TryPop(&none), SlotRing::Outcome::kFullOrEmpty);
  }
}

TEST(SlotRingTest, ExclusivePushFrontIsPoppedFirstAndFillsTheRing) {
  SlotRing ring(4);
  Tuple a = Int(2);
  ASSERT_EQ(ring.TryPush(a), SlotRing::Outcome::kDone);
  ring.PushBackExclusive(Int(3));
  ring.PushFrontExclusive(Int(1));
  ring.PushFrontExclusive(Int(0));
  EXPECT_TRUE(ring.FullExclusive());
  Tuple full = Int(4);
  EXPECT_EQ(ring.TryPush(full), SlotRing::Outcome::kFullOrEmpty);
  EXPECT_EQ(IntOf(ring.PopFrontExclusive()), 0);
  for (int want = 1; want <= 3; ++want) {
    Tuple t;
    ASSERT_EQ(ring.TryPop(&t), SlotRing::Outcome::kDone);
    EXPECT_EQ(IntOf(t), want);
  }
  EXPECT_EQ(ring.SizeExclusive(), 0u);
}

// Takes a ticket at the open `gate` and, while holding it, has another
// thread Close() the gate: Close must not return until the ticket is
// given back. Returns once Close has returned.
void ExpectCloseWaitsForTicket(Gate* gate, Gate::Side side) {
  std::atomic<bool> closed{false};
  std::thread closer;
  {
    Gate::Ticket ticket(gate, side);
    ASSERT_TRUE(ticket.admitted());
    closer = std::thread([&] {
      gate->Close();
      closed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(closed.load());
  }
  closer.join();
  EXPECT_TRUE(closed.load());
}

TEST(GateTest, CloseWaitsForAnAdmittedCallAndLaterCallsAreRefused) {
  Gate gate;
  {
    Gate::Ticket shut(&gate, Gate::kPush);
    EXPECT_FALSE(shut.admitted());  // a new gate is shut
  }
  gate.Open();
  ExpectCloseWaitsForTicket(&gate, Gate::kPop);
  Gate::Ticket late(&gate, Gate::kPush);
  EXPECT_FALSE(late.admitted());
}

// Starts `n` threads that each take their slot and then wait until
// release() is called; slots() lists the slots they got.
class ParkedThreads {
 public:
  explicit ParkedThreads(int n) : slots_(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this, i] {
        slots_[static_cast<size_t>(i)] = ThreadSlots::OfThisThread();
        ready_.fetch_add(1);
        while (!released_.load()) std::this_thread::yield();
      });
    }
    while (ready_.load() < n) std::this_thread::yield();
  }
  ~ParkedThreads() { release(); }
  void release() {
    released_ = true;
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  const std::vector<int>& slots() const { return slots_; }

 private:
  std::vector<int> slots_;
  std::atomic<int> ready_{0};
  std::atomic<bool> released_{false};
  std::vector<std::thread> threads_;
};

TEST(ThreadSlotsTest, LiveThreadsHoldDistinctSlotsAndExitedOnesFreeThem) {
  std::vector<int> first;
  {
    ParkedThreads parked(6);
    first = parked.slots();
  }
  std::set<int> distinct(first.begin(), first.end());
  EXPECT_EQ(distinct.size(), first.size());
  EXPECT_EQ(distinct.count(ThreadSlots::kNone), 0u);
  EXPECT_LE(ThreadSlots::HighWater(), ThreadSlots::kSlots);
  EXPECT_GT(ThreadSlots::HighWater(), *distinct.rbegin());
  // Their slots are free again: a new thread gets the lowest free one.
  int again = ThreadSlots::kNone;
  std::thread([&] { again = ThreadSlots::OfThisThread(); }).join();
  EXPECT_NE(again, ThreadSlots::kNone);
  EXPECT_LE(again, *distinct.begin());
}

TEST(GateTest, CloseWaitsForACallFromAThreadWithoutASlotOfItsOwn) {
  // Every slot taken: the thread below counts on a shared counter.
  ParkedThreads parked(ThreadSlots::kSlots);
  Gate gate;
  gate.Open();
  std::thread([&] {
    ASSERT_EQ(ThreadSlots::OfThisThread(), ThreadSlots::kNone);
    ExpectCloseWaitsForTicket(&gate, Gate::kPush);
  }).join();
  EXPECT_FALSE(gate.is_open());
}

TEST(GateTest, ManyMoreThreadsThanSlotsLoseAndDuplicateNothing) {
  // 24 producers and 24 consumers: some with slots of their own, some on
  // the shared counters, while the queue's waiters shut and reopen the
  // gate over and over.
  constexpr int kSide = 24;
  constexpr int kEach = 400;
  auto queue = IntQueue(QueueKind::kFIFO, 16);
  std::vector<std::atomic<int>> seen(kSide * kEach);
  std::vector<std::thread> threads;
  for (int p = 0; p < kSide; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i) {
        ASSERT_TRUE(queue->Enqueue(Int(p * kEach + i)).ok());
      }
    });
  }
  for (int c = 0; c < kSide; ++c) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        const int32_t v = IntOf(queue->Dequeue());
        ASSERT_GE(v, 0);
        seen[static_cast<size_t>(v)].fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(queue->Size(), 0);
  for (size_t i = 0; i < seen.size(); ++i) {
    ASSERT_EQ(seen[i].load(), 1) << "element " << i;
  }
}

class LockFreePathTest : public ::testing::TestWithParam<QueueKind> {
 protected:
  std::shared_ptr<QueueInterface> Queue(int64_t capacity) {
    return IntQueue(GetParam(), capacity);
  }
};

INSTANTIATE_TEST_SUITE_P(FifoKinds, LockFreePathTest,
                         ::testing::Values(QueueKind::kFIFO,
                                           QueueKind::kPaddingFIFO),
                         [](const auto& info) {
                           return std::string(QueueKindName(info.param));
                         });

TEST_P(LockFreePathTest, SizeAndOrderHoldAcrossSegments) {
  // Unbounded: 1024-slot segments are added as the last one fills and
  // dropped as the first one empties.
  auto q = Queue(-1);
  constexpr int kCount = 5000;
  for (int i = 0; i < kCount; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  EXPECT_EQ(q->Size(), kCount);
  int next = 0;
  for (; next < 1500; ++next) ASSERT_EQ(IntOf(q->Dequeue()), next);
  EXPECT_EQ(q->Size(), kCount - 1500);
  // A batch that spans a segment boundary.
  const std::vector<int32_t> batch = IntsOf(q->DequeueMany(700));
  ASSERT_EQ(batch.size(), 700u);
  for (int32_t v : batch) EXPECT_EQ(v, next++);
  for (int i = kCount; i < kCount + 3000; ++i) {
    ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  }
  EXPECT_EQ(q->Size(), kCount + 3000 - next);
  for (; next < kCount + 3000; ++next) ASSERT_EQ(IntOf(q->Dequeue()), next);
  EXPECT_EQ(q->Size(), 0);
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(0ms)).status()));
}

TEST_P(LockFreePathTest, CapacityHoldsWithSeveralSegments) {
  // 2500 = 1024 + 1024 + 452 slots.
  auto q = Queue(2500);
  for (int i = 0; i < 2500; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->Enqueue(Int(-1), Timeout(0ms))));
  EXPECT_EQ(q->Size(), 2500);
  // Room in the first segment only: the next element waits behind the
  // others all the same.
  ASSERT_EQ(IntOf(q->Dequeue()), 0);
  ASSERT_TRUE(q->Enqueue(Int(2500)).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->Enqueue(Int(-1), Timeout(0ms))));
  for (int i = 1; i <= 2500; ++i) ASSERT_EQ(IntOf(q->Dequeue()), i);
  EXPECT_EQ(q->Size(), 0);
}

TEST_P(LockFreePathTest, ElementsGivenBackBeyondTheCapacityStayInOrder) {
  // A DequeueMany larger than the capacity collects four elements, then
  // times out and gives them back: two fit in the ring, two go before it.
  auto q = Queue(2);
  auto many = Async([&] { return q->DequeueMany(5, Timeout(300ms)); });
  AwaitPendingDequeues(*q, 1);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  EXPECT_TRUE(IsDeadlineExceeded(Get(many).status()));
  EXPECT_EQ(q->Size(), 4);
  // Over capacity: enqueues wait until the size is below it again.
  EXPECT_TRUE(IsDeadlineExceeded(q->Enqueue(Int(-1), Timeout(0ms))));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(IntOf(q->Dequeue()), i);
  ASSERT_TRUE(q->Enqueue(Int(4), Timeout(0ms)).ok());
  EXPECT_EQ(IntOf(q->Dequeue()), 3);
  EXPECT_EQ(IntOf(q->Dequeue()), 4);
}

TEST_P(LockFreePathTest, ADequeueArrivingAfterAWaiterQueuesBehindIt) {
  // While a DequeueMany waits, a single Dequeue must not take the next
  // element ahead of it through the lock-free path.
  auto q = Queue(10);
  auto many = Async([&] { return q->DequeueMany(2); });
  AwaitPendingDequeues(*q, 1);
  auto single = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 2);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  EXPECT_EQ(IntsOf(Get(many)), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(IntOf(Get(single)), 2);
}

TEST_P(LockFreePathTest, EnqueueAfterCloseIsCancelledAndTheRestDrains) {
  auto q = Queue(8);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  ASSERT_TRUE(q->Close(false).ok());
  EXPECT_TRUE(IsCancelled(q->Enqueue(Int(9))));
  for (int i = 0; i < 3; ++i) ASSERT_EQ(IntOf(q->Dequeue()), i);
  EXPECT_TRUE(IsOutOfRange(q->Dequeue().status()));
}

}  // namespace
}  // namespace inflow
