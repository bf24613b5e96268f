// Copyright 2026 The inflow Authors.
//
// Input validation and operation semantics, for every queue kind where
// the rule is common (docs/conformance.md, "Validation before blocking
// (1.3)", "Operations (1.5) and FIFO order (2)").

#include <algorithm>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

Tuple Batch(QueueKind kind, const std::vector<int32_t>& v) {
  if (kind == QueueKind::kPriority) {
    std::vector<int64_t> p(v.begin(), v.end());
    return {Tensor::FromVector(p), Tensor::FromVector(v)};
  }
  return Ints(v);
}
// The int32 value component of an element or batch.
const Tensor& Value(QueueKind kind, const Tuple& t) {
  return t.at(kind == QueueKind::kPriority ? 1 : 0);
}

class QueueSemanticsTest : public ::testing::TestWithParam<QueueKind> {
 protected:
  QueueKind kind() const { return GetParam(); }
  std::shared_ptr<QueueInterface> Make(int64_t capacity) {
    return IntQueue(kind(), capacity);
  }
  std::vector<int32_t> Sorted(const Result<Tuple>& batch) {
    EXPECT_TRUE(batch.ok()) << batch.status();
    if (!batch.ok()) return {};
    std::vector<int32_t> v = IntsOf(Value(kind(), *batch));
    std::sort(v.begin(), v.end());
    return v;
  }
};

INSTANTIATE_TEST_SUITE_P(
    AllKinds, QueueSemanticsTest,
    ::testing::Values(QueueKind::kFIFO, QueueKind::kPaddingFIFO,
                      QueueKind::kRandomShuffle, QueueKind::kPriority),
    [](const auto& info) { return std::string(QueueKindName(info.param)); });

// ----------------------------------------------------------- validation

TEST_P(QueueSemanticsTest, WrongArityIsInvalidArgument) {
  auto q = Make(4);
  Tuple t = IntElement(kind(), 1);
  t.push_back(Tensor::Scalar<int32_t>(2));
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue(t)));
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue({})));
  EXPECT_EQ(q->Size(), 0);
}

TEST_P(QueueSemanticsTest, WrongDtypeIsInvalidArgumentNamingTheComponent) {
  auto q = Make(4);
  Tuple t = IntElement(kind(), 1);
  const size_t last = t.size() - 1;
  t[last] = Tensor::Scalar<float>(1.0f);
  Status s = q->Enqueue(t);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("component " + std::to_string(last)),
            std::string::npos)
      << s;
}

TEST_P(QueueSemanticsTest, WrongShapeIsInvalidArgument) {
  auto q = Make(4);
  Tuple t = IntElement(kind(), 1);
  t.back() = Tensor::FromVector<int32_t>({1, 2});
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue(t)));
}

TEST_P(QueueSemanticsTest, EnqueueManyOfScalarsIsInvalidArgument) {
  auto q = Make(4);
  EXPECT_TRUE(IsInvalidArgument(q->EnqueueMany(IntElement(kind(), 1))));
}

TEST_P(QueueSemanticsTest, EnqueueManyWithUnequalBatchSizesIsInvalidArgument) {
  QueueOptions o{.capacity = 4,
                 .dtypes = {DType::kInt32, DType::kInt32},
                 .shapes = {PartialShape({}), PartialShape({})}};
  auto q = *CreateQueue(kind(), o);
  Tuple b = {Tensor::FromVector<int32_t>({1, 2}),
             Tensor::FromVector<int32_t>({1, 2}),
             Tensor::FromVector<int32_t>({1})};
  b[0] = kind() == QueueKind::kPriority ? Tensor::FromVector<int64_t>({1, 2})
                                        : b[0];
  if (kind() != QueueKind::kPriority) b.erase(b.begin());
  Status s = q->EnqueueMany(b);
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_EQ(q->Size(), 0);
}

TEST_P(QueueSemanticsTest, EnqueueManyWithWrongRowShapeIsInvalidArgument) {
  auto q = Make(4);
  Tuple b = Batch(kind(), {1, 2});
  b.back() = *Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}));
  EXPECT_TRUE(IsInvalidArgument(q->EnqueueMany(b)));
  EXPECT_EQ(q->Size(), 0);
}

TEST_P(QueueSemanticsTest, NegativeDequeueManyIsInvalidArgument) {
  auto q = Make(4);
  EXPECT_TRUE(IsInvalidArgument(q->DequeueMany(-1).status()));
  EXPECT_TRUE(IsInvalidArgument(q->DequeueUpTo(-1).status()));
}

TEST_P(QueueSemanticsTest, ValidationComesBeforeClosedAndNeverBlocks) {
  auto q = Make(1);
  ASSERT_TRUE(
      q->Enqueue(IntElement(kind(), 1)).ok());  // full: a valid call blocks
  Tuple bad = IntElement(kind(), 2);
  bad.back() = Tensor::Scalar<float>(0.0f);
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue(bad)));
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsInvalidArgument(q->Enqueue(bad)));
  EXPECT_TRUE(IsInvalidArgument(q->DequeueMany(-2).status()));
  EXPECT_EQ(q->Size(), 1);
}

TEST_P(QueueSemanticsTest,
       DequeueManyWithoutShapesIsInvalidArgumentEvenForZero) {
  if (kind() == QueueKind::kPaddingFIFO) {
    // A padding queue cannot be made without shapes at all.
    EXPECT_TRUE(IsInvalidArgument(
        CreateQueue(kind(), {.capacity = 4, .dtypes = {DType::kInt32}})
            .status()));
    return;
  }
  auto q = *CreateQueue(kind(), {.capacity = 4, .dtypes = {DType::kInt32}});
  EXPECT_TRUE(IsInvalidArgument(q->DequeueMany(0).status()));
  EXPECT_TRUE(IsInvalidArgument(q->DequeueUpTo(1).status()));
  ASSERT_TRUE(q->Enqueue(IntElement(kind(), 1)).ok());
  EXPECT_TRUE(q->Dequeue().ok());  // single dequeues need no shapes
}

// ------------------------------------------------------------ semantics

TEST_P(QueueSemanticsTest, EnqueueOnAClosedQueueIsCancelled) {
  auto q = Make(4);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsCancelled(q->Enqueue(IntElement(kind(), 1))));
  EXPECT_TRUE(IsCancelled(q->EnqueueMany(Batch(kind(), {1, 2}))));
}

TEST_P(QueueSemanticsTest, DequeueOnAClosedEmptyQueueIsOutOfRange) {
  auto q = Make(4);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(q->Dequeue().status()));
  EXPECT_TRUE(IsOutOfRange(q->DequeueMany(1).status()));
  EXPECT_TRUE(IsOutOfRange(q->DequeueUpTo(1).status()));
}

TEST_P(QueueSemanticsTest, ClosedQueueDrainsThenReportsOutOfRange) {
  auto q = Make(4);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2, 3})).ok());
  ASSERT_TRUE(q->Close().ok());
  std::vector<int32_t> out;
  for (int i = 0; i < 3; ++i) {
    auto t = q->Dequeue();
    ASSERT_TRUE(t.ok());
    out.push_back(Value(kind(), *t).data<int32_t>()[0]);
  }
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_TRUE(IsOutOfRange(q->Dequeue().status()));
}

TEST_P(QueueSemanticsTest, SecondCloseIsCancelled) {
  auto q = Make(4);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsCancelled(q->Close()));
}

TEST_P(QueueSemanticsTest, CloseWithCancelNeverFailsEvenWhenClosed) {
  auto q = Make(4);
  EXPECT_TRUE(q->Close(true).ok());
  EXPECT_TRUE(q->Close(true).ok());
  EXPECT_TRUE(q->IsClosed());
}

TEST_P(QueueSemanticsTest, EmptyEnqueueManySucceedsEvenWhenClosed) {
  auto q = Make(4);
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(q->EnqueueMany(Batch(kind(), {})).ok());
  EXPECT_EQ(q->Size(), 0);
}

TEST_P(QueueSemanticsTest, DequeueManyZeroGivesAnEmptyBatchEvenWhenClosed) {
  auto q = Make(4);
  ASSERT_TRUE(q->Close().ok());
  for (auto r : {q->DequeueMany(0), q->DequeueUpTo(0)}) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(Value(kind(), *r).shape(), TensorShape({0}));
  }
}

TEST_P(QueueSemanticsTest,
       ClosedDequeueManyWithTooFewIsOutOfRangeAndKeepsThem) {
  auto q = Make(4);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2, 3})).ok());
  ASSERT_TRUE(q->Close().ok());
  EXPECT_TRUE(IsOutOfRange(q->DequeueMany(4).status()));
  EXPECT_EQ(q->Size(), 3);
  EXPECT_EQ(Sorted(q->DequeueMany(3)), (std::vector<int32_t>{1, 2, 3}));
}

TEST_P(QueueSemanticsTest, ClosedDequeueUpToReturnsTheRestThenOutOfRange) {
  auto q = Make(8);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2, 3, 4, 5})).ok());
  ASSERT_TRUE(q->Close().ok());
  EXPECT_EQ(Sorted(q->DequeueUpTo(2)).size(), 2u);
  EXPECT_EQ(Sorted(q->DequeueUpTo(4)).size(), 3u);
  EXPECT_TRUE(IsOutOfRange(q->DequeueUpTo(4).status()));
}

TEST_P(QueueSemanticsTest, DequeueUpToOnAnOpenQueueWaitsForAFullBatch) {
  auto q = Make(8);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2})).ok());
  EXPECT_TRUE(IsDeadlineExceeded(q->DequeueUpTo(3, Timeout(10ms)).status()));
  EXPECT_EQ(q->Size(), 2);
  ASSERT_TRUE(q->Enqueue(IntElement(kind(), 3)).ok());
  EXPECT_EQ(Sorted(q->DequeueUpTo(3)), (std::vector<int32_t>{1, 2, 3}));
}

TEST_P(QueueSemanticsTest, SizeCountsElementsAndCapacityIsReported) {
  auto q = Make(3);
  EXPECT_EQ(q->Capacity(), 3);
  EXPECT_EQ(q->Size(), 0);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2})).ok());
  EXPECT_EQ(q->Size(), 2);
  EXPECT_FALSE(q->IsClosed());
}

TEST_P(QueueSemanticsTest, DequeueManyStacksIntoOneAlignedTensorPerComponent) {
  auto q = Make(8);
  ASSERT_TRUE(q->EnqueueMany(Batch(kind(), {1, 2, 3, 4})).ok());
  auto batch = q->DequeueMany(4);
  ASSERT_TRUE(batch.ok());
  for (const Tensor& t : *batch) {
    EXPECT_EQ(t.shape(), TensorShape({4}));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u);
  }
  EXPECT_EQ(Sorted(batch), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST_P(QueueSemanticsTest, ElementsMoveThroughWithoutPayloadCopies) {
  // A RandomShuffleQueue copies numeric elements of fully defined shapes
  // into its slots (queue_shuffle_storage_test.cc); without shapes it
  // keeps what it was given, as the other kinds do.
  auto q = Make(8);
  if (kind() == QueueKind::kRandomShuffle) {
    q = *CreateQueue(kind(), {.capacity = 8, .dtypes = {DType::kInt32}});
  }
  Tuple e = IntElement(kind(), 7);
  const Tensor original = e.back();
  ASSERT_TRUE(q->Enqueue(std::move(e)).ok());
  auto out = q->Dequeue();
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->back().SharesBufferWith(original));

  Tuple b = Batch(kind(), {1, 2});
  const Tensor batch = b.back();
  ASSERT_TRUE(q->EnqueueMany(std::move(b)).ok());
  auto row = q->Dequeue();
  ASSERT_TRUE(row.ok());
  EXPECT_TRUE(row->back().SharesBufferWith(batch));  // a view of the batch
}

TEST_P(QueueSemanticsTest, AnEnqueuedBatchLivesUntilItsLastRowLeaves) {
  // The rows are views of the batch (queue.h), so the batch's buffer is
  // held while any of them is queued, and batches dequeued share nothing
  // with it. A RandomShuffleQueue keeps views when a component is a string
  // (with numeric components only it copies: queue_shuffle_storage_test.cc).
  auto q = Make(8);
  Tuple b = Batch(kind(), {1, 2, 3});
  if (kind() == QueueKind::kRandomShuffle) {
    q = *CreateQueue(kind(), {.capacity = 8,
                              .dtypes = {DType::kInt32, DType::kString},
                              .shapes = {PartialShape({}), PartialShape({})}});
    b.push_back(Tensor::FromVector<std::string>({"a", "b", "c"}));
  }
  const std::shared_ptr<TensorBuffer> buffer = Value(kind(), b).buffer();
  ASSERT_TRUE(q->EnqueueMany(std::move(b)).ok());
  EXPECT_GT(buffer.use_count(), 1);
  {
    auto first = q->DequeueMany(2);
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_NE(Value(kind(), *first).buffer(), buffer);
  }
  EXPECT_GT(buffer.use_count(), 1);  // the third row
  {
    auto last = q->DequeueMany(1);
    ASSERT_TRUE(last.ok()) << last.status();
    EXPECT_NE(Value(kind(), *last).buffer(), buffer);
  }
  EXPECT_EQ(buffer.use_count(), 1);
}

// --------------------------------------------------------------- FIFO only

TEST(FifoQueueTest, ElementsLeaveInInsertionOrder) {
  auto q = Fifo(10);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(q->Enqueue(Int(i)).ok());
  ASSERT_TRUE(q->EnqueueMany(Ints({5, 6, 7})).ok());
  EXPECT_EQ(IntOf(q->Dequeue()), 0);
  EXPECT_EQ(IntsOf(q->DequeueMany(3)), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_TRUE(IsDeadlineExceeded(q->DequeueUpTo(10, Timeout(0ms)).status()));
  EXPECT_EQ(IntsOf(q->DequeueMany(4)), (std::vector<int32_t>{4, 5, 6, 7}));
}

TEST(FifoQueueTest, MixedManyAndSingleOpsAcrossThreadsKeepTheSequence) {
  // TF's fifo_queue_test with 250 ints: one thread enqueues with a mix of
  // enqueue and enqueue_many, another dequeues with a mix of dequeue and
  // dequeue_many; the consumer sees 0..249 in order.
  auto q = Fifo(10);
  std::thread producer([&] {
    int next = 0;
    while (next < 250) {
      if (next % 3 == 0 && next + 7 <= 250) {
        std::vector<int32_t> rows;
        for (int i = 0; i < 7; ++i) rows.push_back(next++);
        ASSERT_TRUE(q->EnqueueMany(Ints(rows)).ok());
      } else {
        ASSERT_TRUE(q->Enqueue(Int(next++)).ok());
      }
    }
  });
  std::vector<int32_t> seen;
  while (seen.size() < 250) {
    if (seen.size() % 2 == 0 && seen.size() + 13 <= 250) {
      for (int32_t v : IntsOf(q->DequeueMany(13))) seen.push_back(v);
    } else {
      seen.push_back(IntOf(q->Dequeue()));
    }
  }
  producer.join();
  for (int i = 0; i < 250; ++i) ASSERT_EQ(seen[i], i);
}

TEST(FifoQueueTest, StringsAndMultiDimensionalComponentsRoundTrip) {
  auto q =
      *FIFOQueue::Create({.capacity = 4,
                          .dtypes = {DType::kString, DType::kFloat32},
                          .shapes = {PartialShape({}), PartialShape({2, 2})}});
  const char* const names[] = {"s0", "s1"};
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(q->Enqueue({Tensor::Scalar(names[i]),
                            *Tensor::FromVector<float>({1.f * i, 2.f, 3.f, 4.f},
                                                       TensorShape({2, 2}))})
                    .ok());
  }
  auto b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].data<std::string>()[1], "s1");
  EXPECT_EQ((*b)[1].shape(), TensorShape({2, 2, 2}));
  EXPECT_EQ((*b)[1].data<float>()[4], 1.f);
}

TEST(FifoQueueTest, UnshapedFifoAcceptsAnyShapePerElement) {
  auto q = *FIFOQueue::Create({.capacity = 4, .dtypes = {DType::kInt32}});
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  ASSERT_TRUE(q->Enqueue(Ints({1, 2, 3})).ok());
  EXPECT_EQ(q->Dequeue()->at(0).shape(), TensorShape());
  EXPECT_EQ(q->Dequeue()->at(0).shape(), TensorShape({3}));
}

}  // namespace
}  // namespace inflow
