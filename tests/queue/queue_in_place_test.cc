// Copyright 2026 The inflow Authors.
//
// QueueInterface::EnqueueManyInPlace: the caller writes the rows where the
// queue wants them (a RandomShuffleQueue's slots, or a new batch). Every
// queue kind gives what EnqueueMany of the same rows gives, in the same
// order, with the same waits, timeouts, cancellations and errors.

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

std::vector<int32_t> Range(int32_t first, int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = first + i;
  return v;
}

// int32 [2] {v, -v} and int64 [] v per element (a PriorityQueue puts its
// int64 priority, v, first).
std::shared_ptr<QueueInterface> PairQueue(QueueKind kind, int64_t capacity,
                                          int64_t seed = 5) {
  QueueOptions o{.capacity = capacity, .seed = seed, .seed2 = 6};
  o.dtypes.push_back(DType::kInt32);
  o.shapes.push_back(PartialShape({2}));
  o.dtypes.push_back(DType::kInt64);
  o.shapes.push_back(PartialShape({}));
  auto q = CreateQueue(kind, o);
  EXPECT_TRUE(q.ok()) << q.status();
  return *q;
}

// The rows of `values` as one EnqueueMany batch of a PairQueue.
Tuple Batch(QueueKind kind, const std::vector<int32_t>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<int32_t> pairs;
  std::vector<int64_t> wide;
  for (int32_t v : values) {
    pairs.push_back(v);
    pairs.push_back(-v);
    wide.push_back(v);
  }
  Tuple batch;
  if (kind == QueueKind::kPriority) batch.push_back(Tensor::FromVector(wide));
  batch.push_back(*Tensor::FromVector(pairs, TensorShape({n, 2})));
  batch.push_back(Tensor::FromVector(wide));
  return batch;
}

// A RowWriter of the same rows, counting its calls.
RowWriter Writer(QueueKind kind, const std::vector<int32_t>& values,
                 int* calls) {
  return [kind, values, calls](std::span<char* const> rows) {
    ++*calls;
    const size_t n = values.size();
    const size_t first = kind == QueueKind::kPriority ? 1 : 0;
    EXPECT_EQ(rows.size(), (first + 2) * n);
    for (size_t r = 0; r < n; ++r) {
      const int64_t wide = values[r];
      const int32_t pair[2] = {values[r], -values[r]};
      if (first == 1) std::memcpy(rows[r], &wide, sizeof(wide));
      std::memcpy(rows[first * n + r], pair, sizeof(pair));
      std::memcpy(rows[(first + 1) * n + r], &wide, sizeof(wide));
    }
    return OkStatus();
  };
}

// Dequeues everything left (closing the queue if open), checking every
// row whole.
std::vector<int32_t> Drain(QueueKind kind, QueueInterface& q) {
  if (!q.IsClosed()) {
    EXPECT_TRUE(q.Close().ok());
  }
  std::vector<int32_t> out;
  while (true) {
    Result<Tuple> b = q.DequeueUpTo(3);
    if (!b.ok()) {
      EXPECT_TRUE(IsOutOfRange(b.status())) << b.status();
      return out;
    }
    const size_t first = kind == QueueKind::kPriority ? 1 : 0;
    const auto pairs = (*b)[first].flat<int32_t>();
    const auto wide = (*b)[first + 1].flat<int64_t>();
    for (size_t i = 0; i < wide.size(); ++i) {
      EXPECT_EQ(pairs[2 * i], static_cast<int32_t>(wide[i]));
      EXPECT_EQ(pairs[2 * i + 1], -static_cast<int32_t>(wide[i]));
      out.push_back(static_cast<int32_t>(wide[i]));
    }
  }
}

// The values of a dequeued batch of a PairQueue.
std::vector<int32_t> Values(QueueKind kind, const Result<Tuple>& batch) {
  EXPECT_TRUE(batch.ok()) << batch.status();
  if (!batch.ok()) return {};
  std::vector<int32_t> out;
  for (int64_t v :
       (*batch)[kind == QueueKind::kPriority ? 2 : 1].flat<int64_t>()) {
    out.push_back(static_cast<int32_t>(v));
  }
  return out;
}

class InPlaceTest : public ::testing::TestWithParam<QueueKind> {
 protected:
  QueueKind kind() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(
    Kinds, InPlaceTest,
    ::testing::Values(QueueKind::kFIFO, QueueKind::kPaddingFIFO,
                      QueueKind::kRandomShuffle, QueueKind::kPriority),
    [](const auto& info) { return std::string(QueueKindName(info.param)); });

TEST_P(InPlaceTest, GivesWhatEnqueueManyGivesInTheSameOrder) {
  auto a = PairQueue(kind(), 100);
  auto b = PairQueue(kind(), 100);
  int calls = 0;
  for (int32_t first : {0, 17, 40}) {
    const std::vector<int32_t> values = Range(first, first == 17 ? 1 : 13);
    ASSERT_TRUE(a->EnqueueMany(Batch(kind(), values)).ok());
    ASSERT_TRUE(b->EnqueueManyInPlace(static_cast<int64_t>(values.size()),
                                      Writer(kind(), values, &calls))
                    .ok());
  }
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(b->Size(), 27);
  EXPECT_EQ(b->stats().enqueued, 27);
  const std::vector<int32_t> want = Drain(kind(), *a);
  EXPECT_EQ(want.size(), 27u);
  EXPECT_EQ(Drain(kind(), *b), want);
}

TEST_P(InPlaceTest, NoRowsWritesNothingEvenOnAClosedQueue) {
  auto q = PairQueue(kind(), 4);
  ASSERT_TRUE(q->Close().ok());
  int calls = 0;
  EXPECT_TRUE(q->EnqueueManyInPlace(0, Writer(kind(), {}, &calls)).ok());
  EXPECT_TRUE(
      IsInvalidArgument(q->EnqueueManyInPlace(-1, Writer(kind(), {}, &calls))));
  EXPECT_EQ(calls, 0);
}

TEST_P(InPlaceTest, AClosedQueueIsCancelledAndKeepsNothing) {
  auto q = PairQueue(kind(), 10);
  ASSERT_TRUE(q->Close().ok());
  int calls = 0;
  EXPECT_TRUE(
      IsCancelled(q->EnqueueManyInPlace(3, Writer(kind(), {1, 2, 3}, &calls))));
  EXPECT_EQ(q->Size(), 0);
  EXPECT_EQ(q->stats().enqueued, 0);
}

TEST_P(InPlaceTest, AStoppedCallIsCancelledBeforeItWrites) {
  auto q = PairQueue(kind(), 10);
  std::stop_source stop;
  stop.request_stop();
  int calls = 0;
  EXPECT_TRUE(IsCancelled(
      q->EnqueueManyInPlace(2, Writer(kind(), {1, 2}, &calls),
                            CallOptions{.stop = stop.get_token()})));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(q->Size(), 0);
}

TEST_P(InPlaceTest, TheWritersErrorIsTheCallsAndNothingIsEnqueued) {
  auto q = PairQueue(kind(), 4);
  int calls = 0;
  const RowWriter fails = [&calls](std::span<char* const>) {
    ++calls;
    return DataLossError("record 7 is cut short");
  };
  // More failing calls than the queue has room for: a row a failed call
  // reserved is given back.
  for (int i = 0; i < 10; ++i) {
    const Status s = q->EnqueueManyInPlace(3, fails);
    EXPECT_TRUE(IsDataLoss(s)) << s;
    EXPECT_EQ(s.message(), "record 7 is cut short");
  }
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(q->Size(), 0);
  ASSERT_TRUE(
      q->EnqueueManyInPlace(4, Writer(kind(), Range(0, 4), &calls)).ok());
  std::vector<int32_t> all = Drain(kind(), *q);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(0, 4));
}

TEST_P(InPlaceTest, APendingCallInsertsItsRestAsRoomAppears) {
  // Capacity 4, 6 rows: written once, 4 go in at once and the other 2
  // once a dequeue makes room; the same as EnqueueMany.
  auto a = PairQueue(kind(), 4, 21);
  auto b = PairQueue(kind(), 4, 21);
  int calls = 0;
  auto pending_a =
      Async([&] { return a->EnqueueMany(Batch(kind(), Range(0, 6))); });
  AwaitPendingEnqueues(*a, 1);
  auto pending_b = Async([&] {
    return b->EnqueueManyInPlace(6, Writer(kind(), Range(0, 6), &calls));
  });
  AwaitPendingEnqueues(*b, 1);
  EXPECT_EQ(b->Size(), 4);
  std::vector<int32_t> from_a = Values(kind(), a->DequeueMany(2));
  std::vector<int32_t> from_b = Values(kind(), b->DequeueMany(2));
  ASSERT_TRUE(Get(pending_a).ok());
  ASSERT_TRUE(Get(pending_b).ok());
  EXPECT_EQ(calls, 1);
  for (int32_t v : Drain(kind(), *a)) from_a.push_back(v);
  for (int32_t v : Drain(kind(), *b)) from_b.push_back(v);
  EXPECT_EQ(from_b, from_a);
}

TEST_P(InPlaceTest, ATimedOutCallKeepsTheRowsItInserted) {
  auto q = PairQueue(kind(), 4);
  int calls = 0;
  EXPECT_TRUE(IsDeadlineExceeded(q->EnqueueManyInPlace(
      6, Writer(kind(), Range(0, 6), &calls), Timeout(20ms))));
  EXPECT_EQ(q->Size(), 4);
  EXPECT_EQ(Drain(kind(), *q).size(), 4u);
}

TEST_P(InPlaceTest, ACancelledPendingCallInsertsNoMore) {
  auto q = PairQueue(kind(), 4);
  int calls = 0;
  auto pending = Async([&] {
    return q->EnqueueManyInPlace(6, Writer(kind(), Range(0, 6), &calls));
  });
  AwaitPendingEnqueues(*q, 1);
  ASSERT_TRUE(q->Close(/*cancel_pending_enqueues=*/true).ok());
  EXPECT_TRUE(IsCancelled(Get(pending)));
  std::vector<int32_t> all = Drain(kind(), *q);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(0, 4));
}

TEST_P(InPlaceTest, ThreadsWritingAtOnceEnqueueEveryRowOnce) {
  auto q = PairQueue(kind(), 64);
  constexpr int kThreads = 3;
  constexpr int kCalls = 200;
  constexpr int kRows = 7;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      int calls = 0;
      for (int i = 0; i < kCalls; ++i) {
        const int32_t first = (t * kCalls + i) * kRows;
        EXPECT_TRUE(q->EnqueueManyInPlace(
                         kRows, Writer(kind(), Range(first, kRows), &calls))
                        .ok());
      }
    });
  }
  std::vector<int32_t> all;
  while (all.size() < size_t{kThreads * kCalls * kRows}) {
    Result<Tuple> b = q->DequeueMany(5);
    ASSERT_TRUE(b.ok()) << b.status();
    const size_t first = kind() == QueueKind::kPriority ? 1 : 0;
    const auto pairs = (*b)[first].flat<int32_t>();
    const auto wide = (*b)[first + 1].flat<int64_t>();
    for (size_t i = 0; i < wide.size(); ++i) {
      EXPECT_EQ(pairs[2 * i + 1], -pairs[2 * i]);
      all.push_back(static_cast<int32_t>(wide[i]));
    }
  }
  for (std::thread& t : threads) t.join();
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(0, kThreads * kCalls * kRows));
}

TEST(InPlaceTest, AStringComponentOrAnOpenShapeIsRefusedBeforeWriting) {
  int calls = 0;
  const RowWriter write = [&calls](std::span<char* const>) {
    ++calls;
    return OkStatus();
  };
  for (QueueKind kind : {QueueKind::kFIFO, QueueKind::kRandomShuffle}) {
    QueueOptions strings{.capacity = 10,
                         .dtypes = {DType::kInt32, DType::kString},
                         .shapes = {PartialShape({}), PartialShape({})},
                         .names = {"n", "s"}};
    const Status s =
        (*CreateQueue(kind, strings))->EnqueueManyInPlace(2, write);
    EXPECT_TRUE(IsInvalidArgument(s)) << s;
    EXPECT_NE(s.message().find("component 1 is string"), std::string::npos)
        << s;
  }
  QueueOptions open{.capacity = 10,
                    .dtypes = {DType::kFloat32},
                    .shapes = {PartialShape({-1})}};
  EXPECT_TRUE(IsInvalidArgument((*CreateQueue(QueueKind::kPaddingFIFO, open))
                                    ->EnqueueManyInPlace(2, write)));
  QueueOptions no_shapes{.capacity = 10, .dtypes = {DType::kFloat32}};
  EXPECT_TRUE(IsInvalidArgument((*CreateQueue(QueueKind::kFIFO, no_shapes))
                                    ->EnqueueManyInPlace(2, write)));
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace inflow
