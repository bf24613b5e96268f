// Copyright 2026 The inflow Authors.
//
// QueueRunner against the real queues: TF's QueueRunner and the
// end-of-input cascade (docs/conformance.md, "QueueRunner").

#include "inflow/threads/queue_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/random_shuffle_queue.h"

namespace inflow {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

// Every blocking call in these tests has a limit, so that a bug fails a
// test instead of hanging it.
constexpr milliseconds kCallLimit{10000};

QueueOptions ScalarOptions(int64_t capacity) {
  QueueOptions options;
  options.capacity = capacity;
  options.dtypes = {DType::kInt64};
  options.shapes = {PartialShape(TensorShape())};
  return options;
}

std::shared_ptr<QueueInterface> MakeFifo(int64_t capacity) {
  return FIFOQueue::Create(ScalarOptions(capacity)).value();
}

// Hands out 0, 1, ..., limit-1 across threads, then OUT_OF_RANGE.
class Counter {
 public:
  explicit Counter(int64_t limit) : limit_(limit) {}
  Result<Tuple> Next() {
    const int64_t v = next_.fetch_add(1);
    if (v >= limit_) return OutOfRangeError("counter exhausted");
    return Tuple{Tensor::Scalar<int64_t>(v)};
  }

 private:
  const int64_t limit_;
  std::atomic<int64_t> next_{0};
};

QueueOp CountingOp(const std::shared_ptr<QueueInterface>& q,
                   const std::shared_ptr<Counter>& c) {
  return MakeEnqueueOp(q, [c](const CallOptions&) { return c->Next(); });
}

// Dequeues until OUT_OF_RANGE; returns the values, or fails the test.
std::vector<int64_t> DrainUntilOutOfRange(QueueInterface& q,
                                          Coordinator& coord) {
  std::vector<int64_t> values;
  for (;;) {
    Result<Tuple> r = q.Dequeue(coord.MakeCallOptions(kCallLimit));
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange) << r.status();
      return values;
    }
    values.push_back(r->at(0).flat<int64_t>()[0]);
  }
}

TEST(QueueRunnerTest, CreateRejectsBadArguments) {
  auto q = MakeFifo(5);
  QueueOp op = [](const CallOptions&) { return OkStatus(); };
  EXPECT_EQ(QueueRunner::Create(nullptr, {op}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(QueueRunner::Create(q, {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(QueueRunner::Create(q, {op, QueueOp()}).status().code(),
            StatusCode::kInvalidArgument);
  QueueRunnerOptions no_codes;
  no_codes.queue_closed_codes = {};
  EXPECT_EQ(QueueRunner::Create(q, {op}, no_codes).status().code(),
            StatusCode::kInvalidArgument);
  for (int nice : {-1, 20}) {
    QueueRunnerOptions bad_nice;
    bad_nice.nice = nice;
    EXPECT_EQ(QueueRunner::Create(q, {op}, bad_nice).status().code(),
              StatusCode::kInvalidArgument)
        << nice;
  }
}

// nice: each enqueue thread runs its ops at the starting thread's niceness
// plus `nice`; the closer and the thread that started them keep theirs.
TEST(QueueRunnerTest, NiceRaisesTheEnqueueThreadsNicenessOnly) {
  const int base = CurrentThreadNiceness();
  for (int nice : {0, 4}) {
    auto q = MakeFifo(5);
    std::mutex mu;
    std::vector<int> seen;
    QueueOp record_once = [&](const CallOptions&) -> Status {
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(CurrentThreadNiceness());
      return OutOfRangeError("done");
    };
    QueueRunnerOptions options;
    options.nice = nice;
    int closer_niceness = -100;
    options.cancel_op = [&](const CallOptions&) {
      closer_niceness = CurrentThreadNiceness();
      return q->Close(true);
    };
    auto runner =
        QueueRunner::Create(q, {record_once, record_once}, options).value();
    Coordinator coord;
    auto threads = runner->CreateThreads(&coord, true);
    EXPECT_EQ(DrainUntilOutOfRange(*q, coord).size(), 0u);
    coord.RequestStop();
    ASSERT_TRUE(coord.Join({}, seconds(10)).ok());
    EXPECT_EQ(seen, std::vector<int>(2, std::min(base + nice, 19))) << nice;
    EXPECT_EQ(closer_niceness, base) << nice;
    EXPECT_EQ(CurrentThreadNiceness(), base);
  }
}

TEST(QueueRunnerTest, OneThreadPerOpPlusACloserWhenCoordinated) {
  auto q = MakeFifo(5);
  QueueOp end = [](const CallOptions&) { return OutOfRangeError("done"); };
  auto runner = QueueRunner::Create(q, {end, end, end}).value();
  EXPECT_EQ(runner->name(), q->name());
  {
    Coordinator coord;
    auto threads = runner->CreateThreads(&coord);
    ASSERT_EQ(threads.size(), 4u);
    EXPECT_EQ(threads[0]->name(), q->name() + "/enqueue:0");
    EXPECT_EQ(threads[2]->name(), q->name() + "/enqueue:2");
    EXPECT_EQ(threads[3]->name(), q->name() + "/close");
    for (const auto& t : threads) EXPECT_FALSE(t->started());  // start=false
    for (const auto& t : threads) ASSERT_TRUE(t->Start().ok());
    EXPECT_EQ(DrainUntilOutOfRange(*q, coord).size(), 0u);
    coord.RequestStop();
    EXPECT_TRUE(coord.Join({}, seconds(10)).ok());
  }
  QueueRunnerOptions named;
  named.name = "input";
  auto runner2 = QueueRunner::Create(MakeFifo(5), {end}, named).value();
  auto threads = runner2->CreateThreads(nullptr, true);
  ASSERT_EQ(threads.size(), 1u);  // no closer without a coordinator
  EXPECT_EQ(threads[0]->name(), "input/enqueue:0");
  threads[0]->Join();
}

// The end-of-input cascade: ops end with OUT_OF_RANGE, the last one closes
// the queue, the consumer drains everything and then gets OUT_OF_RANGE,
// and Join returns OK.
TEST(QueueRunnerTest, EndOfInputCascadeDeliversEveryElementThenOutOfRange) {
  for (int num_threads : {1, 2, 4}) {
    SCOPED_TRACE(num_threads);
    auto q = MakeFifo(5);
    auto counter = std::make_shared<Counter>(500);
    std::vector<QueueOp> ops(num_threads, CountingOp(q, counter));
    auto runner = QueueRunner::Create(q, ops).value();
    Coordinator coord;
    auto threads = runner->CreateThreads(&coord, true);
    std::vector<int64_t> got = DrainUntilOutOfRange(*q, coord);
    EXPECT_TRUE(q->IsClosed());
    coord.RequestStop(OutOfRangeError("input done")).IgnoreError();
    EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got.size(), 500u);
    for (int64_t i = 0; i < 500; ++i) ASSERT_EQ(got[i], i);
  }
}

TEST(QueueRunnerTest, EndOfInputCascadeDrainsARandomShuffleQueue) {
  QueueOptions options = ScalarOptions(20);
  options.min_after_dequeue = 10;
  options.seed = 7;
  std::shared_ptr<QueueInterface> q =
      RandomShuffleQueue::Create(options).value();
  auto counter = std::make_shared<Counter>(103);
  auto runner =
      QueueRunner::Create(q, {CountingOp(q, counter), CountingOp(q, counter)})
          .value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  // Batches of 10 while full ones last; the 3 left over (fewer than a
  // batch) stay in the queue and DequeueMany ends with OUT_OF_RANGE.
  std::set<int64_t> seen;
  for (;;) {
    Result<Tuple> batch = q->DequeueMany(10, coord.MakeCallOptions(kCallLimit));
    if (!batch.ok()) {
      EXPECT_EQ(batch.status().code(), StatusCode::kOutOfRange);
      break;
    }
    for (int64_t v : batch->at(0).flat<int64_t>()) seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(q->Size(), 3);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
}

TEST(QueueRunnerTest, OnlyTheLastThreadToSeeOutOfRangeClosesTheQueue) {
  auto q = MakeFifo(100);
  std::atomic<bool> finish_slow{false};
  QueueOp quick = [](const CallOptions&) { return OutOfRangeError("eof"); };
  QueueOp slow = [&](const CallOptions& options) -> Status {
    while (!finish_slow.load()) {
      if (options.stop.stop_requested()) return CancelledError("stopped");
      std::this_thread::sleep_for(milliseconds(1));
    }
    return OutOfRangeError("eof");
  };
  auto runner = QueueRunner::Create(q, {quick, slow, quick}).value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  // The quick threads end at once; the queue must stay open for the slow
  // one.
  ASSERT_TRUE(threads[0]->WaitUntil(Clock::now() + kCallLimit));
  ASSERT_TRUE(threads[2]->WaitUntil(Clock::now() + kCallLimit));
  std::this_thread::sleep_for(milliseconds(5));
  EXPECT_FALSE(q->IsClosed());
  finish_slow = true;
  ASSERT_TRUE(threads[1]->WaitUntil(Clock::now() + kCallLimit));
  EXPECT_TRUE(q->IsClosed());
  EXPECT_FALSE(coord.ShouldStop());  // the end of input is not a stop
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
}

TEST(QueueRunnerTest, LastThreadClosesWithoutCancellingOtherRunnersEnqueues) {
  auto q = MakeFifo(1);
  ASSERT_TRUE(q->Enqueue({Tensor::Scalar<int64_t>(1)}).ok());  // full
  // Runner A: one enqueue that must wait for space, then end of input.
  auto a_calls = std::make_shared<std::atomic<int>>(0);
  QueueOp a_op = [q, a_calls](const CallOptions& options) -> Status {
    if (a_calls->fetch_add(1) > 0) return OutOfRangeError("a done");
    return q->Enqueue({Tensor::Scalar<int64_t>(100)}, options);
  };
  // Runner B: out of input at once, so its last thread closes the queue.
  QueueOp b_op = [](const CallOptions&) { return OutOfRangeError("b done"); };
  auto a = QueueRunner::Create(q, {a_op}).value();
  auto b = QueueRunner::Create(q, {b_op}).value();
  auto a_threads = a->CreateThreads(nullptr, true);
  while (a_calls->load() == 0) std::this_thread::sleep_for(milliseconds(1));
  std::this_thread::sleep_for(milliseconds(100));  // A is now blocked
  auto b_threads = b->CreateThreads(nullptr, true);
  // B's close waits behind A's pending enqueue: the queue is still open.
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(q->IsClosed());
  EXPECT_TRUE(b_threads[0]->IsAlive());
  // Making room lets A's enqueue land, then the close completes.
  Coordinator coord;
  EXPECT_EQ(DrainUntilOutOfRange(*q, coord), (std::vector<int64_t>{1, 100}));
  EXPECT_TRUE(q->IsClosed());
  a_threads[0]->Join();
  b_threads[0]->Join();
  EXPECT_TRUE(a->exceptions_raised().empty());
  EXPECT_TRUE(b->exceptions_raised().empty());
}

TEST(QueueRunnerTest, ErrorGoesToTheCoordinatorAndJoinReturnsIt) {
  auto q = MakeFifo(5);
  std::atomic<int> calls{0};
  QueueOp failing = [&](const CallOptions&) -> Status {
    if (++calls == 3) return DataLossError("corrupt record at offset 12");
    return OkStatus();
  };
  auto runner = QueueRunner::Create(q, {failing}).value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  Status s = coord.Join(threads, seconds(10));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(threads[0]->stats().errors(), 1);
  EXPECT_EQ(threads[0]->stats().runs(), 3);
  EXPECT_TRUE(runner->exceptions_raised().empty());
  // The closer ran the cancel op once the coordinator stopped.
  EXPECT_TRUE(q->IsClosed());
}

TEST(QueueRunnerTest, ExceptionInAnOpReachesTheCoordinatorAsUnknown) {
  auto q = MakeFifo(5);
  QueueOp throwing = [](const CallOptions&) -> Status {
    throw std::runtime_error("parser bug");
  };
  auto runner = QueueRunner::Create(q, {throwing}).value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  Status s = coord.Join(threads, seconds(10));
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
  EXPECT_NE(s.message().find("parser bug"), std::string::npos);
}

TEST(QueueRunnerTest, WithoutACoordinatorErrorsGoToExceptionsRaised) {
  auto q = MakeFifo(5);
  std::atomic<int> round{0};
  QueueOp failing = [&](const CallOptions&) -> Status {
    return round.load() == 0 ? InternalError("first round")
                             : OutOfRangeError("second round ends cleanly");
  };
  auto runner = QueueRunner::Create(q, {failing, failing}).value();
  auto threads = runner->CreateThreads(nullptr, true);
  ASSERT_EQ(threads.size(), 2u);
  for (const auto& t : threads) t->Join();
  std::vector<Status> raised = runner->exceptions_raised();
  ASSERT_EQ(raised.size(), 2u);
  EXPECT_EQ(raised[0].code(), StatusCode::kInternal);
  EXPECT_FALSE(q->IsClosed());  // other errors do not close the queue

  // A new CreateThreads clears them.
  round = 1;
  threads = runner->CreateThreads(nullptr, true);
  ASSERT_EQ(threads.size(), 2u);
  for (const auto& t : threads) t->Join();
  EXPECT_TRUE(runner->exceptions_raised().empty());
  EXPECT_TRUE(q->IsClosed());
}

TEST(QueueRunnerTest, SecondCreateThreadsWhileRunningReturnsNothing) {
  auto q = MakeFifo(1);
  auto counter = std::make_shared<Counter>(1000000);
  auto runner = QueueRunner::Create(q, {CountingOp(q, counter)}).value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_TRUE(runner->CreateThreads(&coord, true).empty());
  // Another session has its own count.
  auto other = runner->CreateThreads(nullptr, true, "other");
  ASSERT_EQ(other.size(), 1u);

  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
  // The closer's cancel released the other session's thread too: without
  // a coordinator its CANCELLED error is kept in exceptions_raised.
  other[0]->Join();
  ASSERT_FALSE(runner->exceptions_raised().empty());
  EXPECT_EQ(runner->exceptions_raised()[0].code(), StatusCode::kCancelled);

  // Once the threads have ended, threads can be created again.
  threads = runner->CreateThreads(&coord, true);
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
}

TEST(QueueRunnerTest, StopReleasesThreadsBlockedOnAFullQueueAndClosesIt) {
  auto q = MakeFifo(2);
  auto counter = std::make_shared<Counter>(1000000);
  auto runner =
      QueueRunner::Create(q, {CountingOp(q, counter), CountingOp(q, counter),
                              CountingOp(q, counter)})
          .value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  const auto give_up = Clock::now() + kCallLimit;
  while (q->Size() < 2 && Clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  std::this_thread::sleep_for(milliseconds(5));  // let them block
  coord.RequestStop();
  // Blocked on a full queue nobody drains, the threads end only because
  // the stop released them: Join is OK once they all returned.
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
  EXPECT_TRUE(q->IsClosed());
  // The full queue cost the enqueuers blocked time.
  std::chrono::nanoseconds blocked{0};
  for (size_t i = 0; i < 3; ++i) blocked += threads[i]->stats().blocked();
  EXPECT_GT(blocked.count(), 0);
}

TEST(QueueRunnerTest, QueueClosedCodesDecideWhatEndsInputCleanly) {
  // An op that forwards one element, then fails as a dequeue from a
  // cancelled upstream queue would.
  auto make_op = [](std::shared_ptr<QueueInterface> q) {
    auto sent = std::make_shared<std::atomic<bool>>(false);
    return QueueOp([q, sent](const CallOptions& options) -> Status {
      if (sent->exchange(true)) return CancelledError("upstream cancelled");
      return q->Enqueue({Tensor::Scalar<int64_t>(41)}, options);
    });
  };
  {
    auto q = MakeFifo(5);
    QueueRunnerOptions options;
    options.queue_closed_codes = {StatusCode::kOutOfRange,
                                  StatusCode::kCancelled};
    auto runner = QueueRunner::Create(q, {make_op(q)}, options).value();
    auto threads = runner->CreateThreads(nullptr, true);
    threads[0]->Join();
    EXPECT_TRUE(runner->exceptions_raised().empty());
    EXPECT_TRUE(q->IsClosed());
    EXPECT_EQ(q->Size(), 1);
  }
  {
    auto q = MakeFifo(5);
    auto runner = QueueRunner::Create(q, {make_op(q)}).value();  // default
    auto threads = runner->CreateThreads(nullptr, true);
    threads[0]->Join();
    ASSERT_EQ(runner->exceptions_raised().size(), 1u);
    EXPECT_EQ(runner->exceptions_raised()[0].code(), StatusCode::kCancelled);
    EXPECT_FALSE(q->IsClosed());
  }
}

TEST(QueueRunnerTest, CustomCloseAndCancelOpsAreUsed) {
  auto q = MakeFifo(5);
  std::atomic<int> closes{0}, cancels{0};
  QueueRunnerOptions options;
  options.close_op = [&](const CallOptions&) {
    closes++;
    return OkStatus();
  };
  options.cancel_op = [&](const CallOptions&) {
    cancels++;
    return OkStatus();
  };
  QueueOp end = [](const CallOptions&) { return OutOfRangeError("eof"); };
  auto runner = QueueRunner::Create(q, {end, end}, options).value();
  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, true);
  ASSERT_TRUE(threads[0]->WaitUntil(Clock::now() + kCallLimit));
  ASSERT_TRUE(threads[1]->WaitUntil(Clock::now() + kCallLimit));
  EXPECT_EQ(closes.load(), 1);
  EXPECT_EQ(cancels.load(), 0);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
  EXPECT_EQ(cancels.load(), 1);
  EXPECT_FALSE(q->IsClosed());  // neither custom op touched the queue
}

TEST(QueueRunnerTest, MakeEnqueueOpWithManyEnqueuesABatch) {
  auto q = MakeFifo(10);
  bool produced = false;
  QueueOp op = MakeEnqueueOp(
      q,
      [&](const CallOptions&) -> Result<Tuple> {
        if (produced) return OutOfRangeError("one batch only");
        produced = true;
        return Tuple{Tensor::FromVector<int64_t>({1, 2, 3})};
      },
      /*many=*/true);
  EXPECT_TRUE(op(CallOptions()).ok());
  EXPECT_EQ(q->Size(), 3);
  EXPECT_EQ(op(CallOptions()).code(), StatusCode::kOutOfRange);
}

TEST(QueueRunnerCollectionTest, StartQueueRunnersStartsEveryRunner) {
  QueueRunnerCollection collection;
  auto q1 = MakeFifo(5);
  auto q2 = MakeFifo(5);
  auto c1 = std::make_shared<Counter>(10);
  auto c2 = std::make_shared<Counter>(20);
  collection.Add(QueueRunner::Create(q1, {CountingOp(q1, c1)}).value());
  collection.Add(QueueRunner::Create(q2, {CountingOp(q2, c2)}).value());
  collection.Add(QueueRunner::Create(q2, {CountingOp(q2, c2)}).value(),
                 "elsewhere");
  EXPECT_EQ(collection.Get().size(), 2u);
  Coordinator coord;
  auto threads = collection.Start(&coord);
  ASSERT_EQ(threads.size(), 4u);  // two enqueue threads, two closers
  for (const auto& t : threads) EXPECT_TRUE(t->started());
  EXPECT_EQ(DrainUntilOutOfRange(*q1, coord).size(), 10u);
  EXPECT_EQ(DrainUntilOutOfRange(*q2, coord).size(), 20u);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
  collection.Clear();
  EXPECT_TRUE(collection.Get().empty());
  EXPECT_EQ(collection.Get("elsewhere").size(), 1u);
}

TEST(QueueRunnerCollectionTest, DefaultCollectionFreeFunctions) {
  auto q = MakeFifo(5);
  auto c = std::make_shared<Counter>(7);
  const std::string name = "queue_runner_test_default";
  AddQueueRunner(QueueRunner::Create(q, {CountingOp(q, c)}).value(), name);
  Coordinator coord;
  auto threads = StartQueueRunners(&coord, true, name);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(DrainUntilOutOfRange(*q, coord).size(), 7u);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, seconds(10)).ok());
  QueueRunnerCollection::Default().Clear(name);
}

}  // namespace
}  // namespace inflow
