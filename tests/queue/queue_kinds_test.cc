// Copyright 2026 The inflow Authors.
//
// The rules specific to RandomShuffleQueue, PaddingFIFOQueue and
// PriorityQueue (docs/conformance.md, "RandomShuffleQueue (3)",
// "PaddingFIFOQueue (4)", "PriorityQueue (5)").

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

std::shared_ptr<QueueInterface> Shuffle(int64_t capacity, int64_t min_after,
                                        int64_t seed = 0, int64_t seed2 = 0) {
  auto q = RandomShuffleQueue::Create({.capacity = capacity,
                                       .dtypes = {DType::kInt32},
                                       .shapes = {PartialShape({})},
                                       .min_after_dequeue = min_after,
                                       .seed = seed,
                                       .seed2 = seed2});
  EXPECT_TRUE(q.ok()) << q.status();
  return *q;
}

std::vector<int32_t> Range(int32_t n) {
  std::vector<int32_t> v(n);
  for (int32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// ------------------------------------------------------- RandomShuffleQueue

TEST(RandomShuffleQueueTest, DequeueNeedsMoreThanMinAfterDequeueWhileOpen) {
  auto q = Shuffle(10, 2);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->Dequeue(Timeout(10ms)).status()));
  ASSERT_TRUE(q->Enqueue(Int(3)).ok());
  EXPECT_TRUE(q->Dequeue().ok());
  EXPECT_EQ(q->Size(), 2);
}

TEST(RandomShuffleQueueTest, BlockedDequeueWakesWhenSizeExceedsMinAfter) {
  auto q = Shuffle(10, 1);
  auto blocked = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  EXPECT_EQ(PendingDequeues(*q), 1u);
  ASSERT_TRUE(q->Enqueue(Int(2)).ok());
  EXPECT_TRUE(Get(blocked).ok());
  EXPECT_EQ(q->Size(), 1);
}

TEST(RandomShuffleQueueTest, DequeueManyCollectsOnlyWhatMinAfterDequeueAllows) {
  auto q = Shuffle(10, 2);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3, 4})).ok());
  auto many = Async([&] { return q->DequeueMany(3); });
  AwaitPendingDequeues(*q, 1);
  EXPECT_EQ(q->Size(), 2);  // took 2, must leave 2
  ASSERT_TRUE(q->Enqueue(Int(5)).ok());
  auto batch = Get(many);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(q->Size(), 2);
}

TEST(RandomShuffleQueueTest, CloseLiftsMinAfterDequeueAndDrainsToZero) {
  auto q = Shuffle(10, 3);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3})).ok());
  auto blocked = Async([&] { return q->Dequeue(); });
  AwaitPendingDequeues(*q, 1);
  ASSERT_TRUE(q->Close().ok());
  std::set<int32_t> seen = {IntOf(Get(blocked))};
  seen.insert(IntOf(q->Dequeue()));
  seen.insert(IntOf(q->Dequeue()));
  EXPECT_EQ(seen, (std::set<int32_t>{1, 2, 3}));
  EXPECT_TRUE(IsOutOfRange(q->Dequeue().status()));
}

TEST(RandomShuffleQueueTest,
     ClosedDequeueManyFailsWhenFewerRemainAndKeepsThem) {
  auto q = Shuffle(10, 2);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2, 3, 4, 5})).ok());
  ASSERT_TRUE(q->Close().ok());
  EXPECT_EQ(IntsOf(q->DequeueMany(4)).size(), 4u);
  EXPECT_TRUE(IsOutOfRange(q->DequeueMany(2).status()));
  EXPECT_EQ(q->Size(), 1);
  EXPECT_EQ(IntsOf(q->DequeueUpTo(2)).size(), 1u);
}

TEST(RandomShuffleQueueTest, PendingDequeueManyRestoresElementsWhenClosed) {
  auto q = Shuffle(10, 0);
  ASSERT_TRUE(q->EnqueueMany(Ints({1, 2})).ok());
  auto many = Async([&] { return q->DequeueMany(3); });
  AwaitPendingDequeues(*q, 1);
  EXPECT_EQ(q->Size(), 0);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(Get(many).status()));
  auto rest = IntsOf(q->DequeueUpTo(3));
  std::sort(rest.begin(), rest.end());
  EXPECT_EQ(rest, (std::vector<int32_t>{1, 2}));
}

std::vector<int32_t> SeededRun(int64_t seed, int64_t seed2) {
  auto q = Shuffle(100, 0, seed, seed2);
  EXPECT_TRUE(q->EnqueueMany(Ints(Range(50))).ok());
  std::vector<int32_t> out;
  for (int i = 0; i < 10; ++i) out.push_back(IntOf(q->Dequeue()));
  for (int32_t v : IntsOf(q->DequeueMany(20))) out.push_back(v);
  EXPECT_TRUE(q->EnqueueMany(Ints(Range(10))).ok());
  for (int32_t v : IntsOf(q->DequeueMany(30))) out.push_back(v);
  return out;
}

TEST(RandomShuffleQueueTest, SameSeedsAndCallsGiveTheSameOrder) {
  EXPECT_EQ(SeededRun(1, 2), SeededRun(1, 2));
  EXPECT_NE(SeededRun(1, 2), SeededRun(1, 3));
}

TEST(RandomShuffleQueueTest, SeededOrderMatchesTensorFlow) {
  // Recorded from TF 2.18: tf.compat.v1.RandomShuffleQueue(20, 0, [tf.int32],
  // [[]], seed=42) in graph mode (op attrs seed=87654321, seed2=42):
  // enqueue_many(0..9); 5 x dequeue; dequeue_many(3); enqueue_many(0..9);
  // 12 x dequeue.
  auto q = Shuffle(20, 0, 87654321, 42);
  ASSERT_TRUE(q->EnqueueMany(Ints(Range(10))).ok());
  std::vector<int32_t> out;
  for (int i = 0; i < 5; ++i) out.push_back(IntOf(q->Dequeue()));
  for (int32_t v : IntsOf(q->DequeueMany(3))) out.push_back(v);
  EXPECT_EQ(out, (std::vector<int32_t>{2, 1, 5, 7, 6, 3, 0, 9}));
  ASSERT_TRUE(q->EnqueueMany(Ints(Range(10))).ok());
  out.clear();
  for (int i = 0; i < 12; ++i) out.push_back(IntOf(q->Dequeue()));
  EXPECT_EQ(out, (std::vector<int32_t>{7, 6, 4, 4, 8, 2, 3, 0, 5, 9, 8, 1}));
}

TEST(RandomShuffleQueueTest, UnseededQueuesDequeueUniformly) {
  // Which of 4 elements leaves first, over many unseeded queues: each
  // should be near 1/4. The bound is loose (about 7 sigma).
  constexpr int kRuns = 4000;
  std::map<int32_t, int> first;
  for (int r = 0; r < kRuns; ++r) {
    auto q = Shuffle(4, 0);
    ASSERT_TRUE(q->EnqueueMany(Ints({0, 1, 2, 3})).ok());
    ++first[IntOf(q->Dequeue())];
  }
  ASSERT_EQ(first.size(), 4u);
  for (const auto& [value, count] : first) {
    EXPECT_NEAR(count, kRuns / 4, 190) << "value " << value;
  }
}

TEST(RandomShuffleQueueTest, EveryElementLeavesExactlyOnce) {
  auto q = Shuffle(1000, 10, 5, 6);
  ASSERT_TRUE(q->EnqueueMany(Ints(Range(500))).ok());
  ASSERT_TRUE(q->Close().ok());
  std::vector<int32_t> all = IntsOf(q->DequeueUpTo(1000));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(500));
}

// --------------------------------------------------------- PaddingFIFOQueue

std::shared_ptr<QueueInterface> Padding(std::vector<PartialShape> shapes,
                                        std::vector<DType> dtypes) {
  auto q = PaddingFIFOQueue::Create({.capacity = 10,
                                     .dtypes = std::move(dtypes),
                                     .shapes = std::move(shapes)});
  EXPECT_TRUE(q.ok()) << q.status();
  return *q;
}

Tensor Matrix(int64_t rows, int64_t cols, int32_t base) {
  std::vector<int32_t> v;
  for (int64_t i = 0; i < rows * cols; ++i) v.push_back(base + i);
  return *Tensor::FromVector(v, TensorShape({rows, cols}));
}

TEST(PaddingFifoQueueTest, EnqueueAcceptsEveryCompatibleShapeOnly) {
  auto q = Padding({PartialShape({-1, 2})}, {DType::kInt32});
  EXPECT_TRUE(q->Enqueue({Matrix(1, 2, 0)}).ok());
  EXPECT_TRUE(q->Enqueue({Matrix(3, 2, 0)}).ok());
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue({Matrix(3, 3, 0)})));
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue(Ints({1, 2}))));  // rank 1
}

TEST(PaddingFifoQueueTest, DequeueReturnsTheElementUnpadded) {
  auto q = Padding({PartialShape({-1, -1})}, {DType::kInt32});
  ASSERT_TRUE(q->Enqueue({Matrix(1, 3, 0)}).ok());
  ASSERT_TRUE(q->Enqueue({Matrix(2, 1, 0)}).ok());
  EXPECT_EQ(q->Dequeue()->at(0).shape(), TensorShape({1, 3}));
  EXPECT_EQ(q->Dequeue()->at(0).shape(), TensorShape({2, 1}));
}

TEST(PaddingFifoQueueTest, DequeueManyPadsUnknownDimsToTheBatchMaxWithZeros) {
  auto q = Padding({PartialShape({-1, -1})}, {DType::kInt32});
  ASSERT_TRUE(q->Enqueue({Matrix(1, 3, 1)}).ok());  // [[1 2 3]]
  ASSERT_TRUE(q->Enqueue({Matrix(2, 1, 7)}).ok());  // [[7] [8]]
  auto b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0].shape(), TensorShape({2, 2, 3}));
  EXPECT_EQ(IntsOf((*b)[0]), (std::vector<int32_t>{1, 2, 3, 0, 0, 0,  //
                                                   7, 0, 0, 8, 0, 0}));
}

TEST(PaddingFifoQueueTest, KnownDimsAreKeptAndOnlyUnknownOnesPadded) {
  auto q = Padding({PartialShape({-1, 2}), PartialShape({})},
                   {DType::kInt32, DType::kFloat32});
  ASSERT_TRUE(q->Enqueue({Matrix(1, 2, 1), Tensor::Scalar<float>(1.5f)}).ok());
  ASSERT_TRUE(q->Enqueue({Matrix(3, 2, 4), Tensor::Scalar<float>(2.5f)}).ok());
  auto b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].shape(), TensorShape({2, 3, 2}));
  EXPECT_EQ(IntsOf((*b)[0]),
            (std::vector<int32_t>{1, 2, 0, 0, 0, 0, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ((*b)[1].shape(), TensorShape({2}));
  EXPECT_EQ((*b)[1].data<float>()[1], 2.5f);
}

TEST(PaddingFifoQueueTest, StringsArePaddedWithEmptyStrings) {
  auto q = Padding({PartialShape({-1})}, {DType::kString});
  ASSERT_TRUE(q->Enqueue({Tensor::FromVector<std::string>({"a"})}).ok());
  ASSERT_TRUE(
      q->Enqueue({Tensor::FromVector<std::string>({"b", "c", "d"})}).ok());
  auto b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok());
  auto s = (*b)[0].flat<std::string>();
  EXPECT_EQ(std::vector<std::string>(s.begin(), s.end()),
            (std::vector<std::string>{"a", "", "", "b", "c", "d"}));
}

TEST(PaddingFifoQueueTest, EmptyBatchHasZeroForUnknownDims) {
  auto q = Padding({PartialShape({-1, 4})}, {DType::kInt32});
  auto b = q->DequeueMany(0);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].shape(), TensorShape({0, 0, 4}));
}

TEST(PaddingFifoQueueTest, ClosedDequeueUpToPadsTheShortBatch) {
  auto q = Padding({PartialShape({-1})}, {DType::kInt32});
  ASSERT_TRUE(q->Enqueue(Ints({1})).ok());
  ASSERT_TRUE(q->Enqueue(Ints({2, 3})).ok());
  ASSERT_TRUE(q->Close().ok());
  auto b = q->DequeueUpTo(5);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].shape(), TensorShape({2, 2}));
  EXPECT_EQ(IntsOf((*b)[0]), (std::vector<int32_t>{1, 0, 2, 3}));
}

TEST(PaddingFifoQueueTest, PadsElementsOfRankFiveAndScalars) {
  auto q = Padding({PartialShape({-1, 1, -1, 1, -1}), PartialShape({})},
                   {DType::kInt32, DType::kInt32});
  std::vector<int32_t> v = {1, 2, 3, 4};
  ASSERT_TRUE(q->Enqueue({*Tensor::FromVector(v, TensorShape({2, 1, 1, 1, 2})),
                          Tensor::Scalar<int32_t>(9)})
                  .ok());
  ASSERT_TRUE(q->Enqueue({*Tensor::FromVector<int32_t>(
                              {5}, TensorShape({1, 1, 1, 1, 1})),
                          Tensor::Scalar<int32_t>(8)})
                  .ok());
  auto b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].shape(), TensorShape({2, 2, 1, 1, 1, 2}));
  EXPECT_EQ(IntsOf((*b)[0]), (std::vector<int32_t>{1, 2, 3, 4, 5, 0, 0, 0}));
  EXPECT_EQ(IntsOf((*b)[1]), (std::vector<int32_t>{9, 8}));
}

TEST(PaddingFifoQueueTest, PaddedBatchIsAligned) {
  auto q = Padding({PartialShape({-1})}, {DType::kFloat32});
  ASSERT_TRUE(q->Enqueue({Tensor::FromVector<float>({1, 2, 3})}).ok());
  auto b = q->DequeueMany(1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*b)[0].raw_data()) % kTensorAlignment,
            0u);
}

// ------------------------------------------------------------ PriorityQueue

Tuple Prio(int64_t priority, const std::string& value) {
  return {Tensor::Scalar<int64_t>(priority), Tensor::Scalar(value.c_str())};
}

std::shared_ptr<QueueInterface> Priority(int64_t capacity) {
  auto q = PriorityQueue::Create({.capacity = capacity,
                                  .dtypes = {DType::kString},
                                  .shapes = {PartialShape({})}});
  EXPECT_TRUE(q.ok()) << q.status();
  return *q;
}

TEST(PriorityQueueTest, DequeuesTheSmallestPriorityFirstWithItsPriority) {
  auto q = Priority(10);
  for (int64_t p : {5, -2, 9, 0, 3}) {
    ASSERT_TRUE(q->Enqueue(Prio(p, std::to_string(p) + "v")).ok());
  }
  std::vector<int64_t> order;
  for (int i = 0; i < 5; ++i) {
    auto t = q->Dequeue();
    ASSERT_TRUE(t.ok());
    const int64_t p = (*t)[0].data<int64_t>()[0];
    order.push_back(p);
    EXPECT_EQ((*t)[1].data<std::string>()[0], std::to_string(p) + "v");
  }
  EXPECT_EQ(order, (std::vector<int64_t>{-2, 0, 3, 5, 9}));
}

TEST(PriorityQueueTest, DequeueManyTakesTheNSmallestSorted) {
  auto q = Priority(10);
  ASSERT_TRUE(q->EnqueueMany(
                   {Tensor::FromVector<int64_t>({4, 1, 3, 2, 0}),
                    Tensor::FromVector<std::string>({"d", "a", "c", "b", "z"})})
                  .ok());
  auto b = q->DequeueMany(3);
  ASSERT_TRUE(b.ok());
  auto p = (*b)[0].flat<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(p.begin(), p.end()),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ((*b)[1].data<std::string>()[1], "a");
  EXPECT_EQ(q->Size(), 2);
}

TEST(PriorityQueueTest, ClosedDequeueUpToReturnsAllSortedThenOutOfRange) {
  auto q = Priority(10);
  ASSERT_TRUE(q->Enqueue(Prio(7, "x")).ok());
  ASSERT_TRUE(q->Enqueue(Prio(2, "y")).ok());
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(q->DequeueMany(3).status()));
  auto b = q->DequeueUpTo(3);
  ASSERT_TRUE(b.ok());
  auto p = (*b)[0].flat<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(p.begin(), p.end()),
            (std::vector<int64_t>{2, 7}));
  EXPECT_TRUE(IsOutOfRange(q->DequeueUpTo(3).status()));
}

TEST(PriorityQueueTest, PendingDequeueManyFailsOnCloseWithoutTakingAny) {
  auto q = Priority(10);
  ASSERT_TRUE(q->Enqueue(Prio(1, "a")).ok());
  auto many = Async([&] { return q->DequeueMany(2); });
  AwaitPendingDequeues(*q, 1);
  EXPECT_EQ(q->Size(), 1);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(Get(many).status()));
  EXPECT_EQ(q->Size(), 1);
}

TEST(PriorityQueueTest, NonScalarPriorityIsInvalidArgument) {
  auto q = *PriorityQueue::Create({.capacity = 4, .dtypes = {DType::kInt32}});
  Status s = q->Enqueue(
      {Tensor::FromVector<int64_t>({1, 2}), Tensor::Scalar<int32_t>(0)});
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("component 0"), std::string::npos);
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue(
      {Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(0)})));  // dtype
  EXPECT_EQ(q->Size(), 0);
}

}  // namespace
}  // namespace inflow
