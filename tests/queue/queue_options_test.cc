// Copyright 2026 The inflow Authors.
//
// Construction-time checks, shared queues and named components
// (docs/conformance.md, "Construction (1.1)", "Shared queues (1.2)").

#include <limits>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

QueueOptions Scalars(int64_t capacity) {
  return {.capacity = capacity,
          .dtypes = {DType::kInt32},
          .shapes = {PartialShape({})}};
}

TEST(QueueOptionsTest, NegativeCapacityIsUnboundedInt32Max) {
  auto q = FIFOQueue::Create(Scalars(-1));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)->Capacity(), std::numeric_limits<int32_t>::max());
}

TEST(QueueOptionsTest, CapacityZeroIsAccepted) {
  auto q = FIFOQueue::Create(Scalars(0));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)->Capacity(), 0);
}

TEST(QueueOptionsTest, CapacityAboveInt32IsInvalidArgument) {
  EXPECT_TRUE(
      IsInvalidArgument(FIFOQueue::Create(Scalars(int64_t{1} << 40)).status()));
}

TEST(QueueOptionsTest, NoDtypesIsInvalidArgument) {
  EXPECT_TRUE(IsInvalidArgument(FIFOQueue::Create({.capacity = 1}).status()));
}

TEST(QueueOptionsTest, InvalidDtypeIsInvalidArgument) {
  EXPECT_TRUE(IsInvalidArgument(
      FIFOQueue::Create({.capacity = 1, .dtypes = {DType::kInvalid}})
          .status()));
}

TEST(QueueOptionsTest, ShapesCountMustMatchDtypes) {
  EXPECT_TRUE(IsInvalidArgument(
      FIFOQueue::Create({.capacity = 1,
                         .dtypes = {DType::kInt32, DType::kFloat32},
                         .shapes = {PartialShape({})}})
          .status()));
}

TEST(QueueOptionsTest, NamesCountMustMatchDtypesAndBeUnique) {
  EXPECT_TRUE(IsInvalidArgument(
      FIFOQueue::Create(
          {.capacity = 1, .dtypes = {DType::kInt32}, .names = {"a", "b"}})
          .status()));
  EXPECT_TRUE(IsInvalidArgument(
      FIFOQueue::Create({.capacity = 1,
                         .dtypes = {DType::kInt32, DType::kInt32},
                         .names = {"a", "a"}})
          .status()));
}

TEST(QueueOptionsTest, FifoRandomShuffleAndPriorityNeedFullyDefinedShapes) {
  for (QueueKind kind :
       {QueueKind::kFIFO, QueueKind::kRandomShuffle, QueueKind::kPriority}) {
    EXPECT_TRUE(
        IsInvalidArgument(CreateQueue(kind, {.capacity = 4,
                                             .dtypes = {DType::kInt32},
                                             .shapes = {PartialShape({-1})}})
                              .status()))
        << QueueKindName(kind);
    EXPECT_TRUE(IsInvalidArgument(
        CreateQueue(kind, {.capacity = 4,
                           .dtypes = {DType::kInt32},
                           .shapes = {PartialShape::UnknownRank()}})
            .status()))
        << QueueKindName(kind);
  }
}

TEST(QueueOptionsTest, PaddingFifoRequiresShapesOfKnownRank) {
  EXPECT_TRUE(IsInvalidArgument(
      PaddingFIFOQueue::Create({.capacity = 4, .dtypes = {DType::kInt32}})
          .status()));
  EXPECT_TRUE(IsInvalidArgument(
      PaddingFIFOQueue::Create({.capacity = 4,
                                .dtypes = {DType::kInt32},
                                .shapes = {PartialShape::UnknownRank()}})
          .status()));
  EXPECT_TRUE(PaddingFIFOQueue::Create({.capacity = 4,
                                        .dtypes = {DType::kInt32},
                                        .shapes = {PartialShape({-1, 3})}})
                  .ok());
}

TEST(QueueOptionsTest, PriorityPrependsAnInt64ScalarPriority) {
  auto q = PriorityQueue::Create({.capacity = 4,
                                  .dtypes = {DType::kString},
                                  .shapes = {PartialShape({2})}});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)->component_dtypes(),
            (std::vector<DType>{DType::kInt64, DType::kString}));
  EXPECT_EQ((*q)->component_shapes(),
            (std::vector<PartialShape>{PartialShape({}), PartialShape({2})}));
}

TEST(QueueOptionsTest, PriorityNamesIncludeThePriority) {
  EXPECT_TRUE(IsInvalidArgument(
      PriorityQueue::Create(
          {.capacity = 4, .dtypes = {DType::kInt32}, .names = {"x"}})
          .status()));
  EXPECT_TRUE(
      PriorityQueue::Create(
          {.capacity = 4, .dtypes = {DType::kInt32}, .names = {"p", "x"}})
          .ok());
}

TEST(QueueOptionsTest, RandomShuffleMinAfterDequeueMustBeBelowCapacity) {
  auto make = [](int64_t capacity, int64_t min_after) {
    return RandomShuffleQueue::Create({.capacity = capacity,
                                       .dtypes = {DType::kInt32},
                                       .min_after_dequeue = min_after})
        .status();
  };
  EXPECT_TRUE(IsInvalidArgument(make(4, 4)));
  EXPECT_TRUE(IsInvalidArgument(make(4, -1)));
  EXPECT_TRUE(make(4, 3).ok());
  EXPECT_TRUE(make(-1, 1000).ok());
}

TEST(QueueOptionsTest, DefaultNamesAreTensorFlows) {
  EXPECT_EQ(Fifo(1)->name(), "fifo_queue");
  EXPECT_EQ(IntQueue(QueueKind::kRandomShuffle, 2)->name(),
            "random_shuffle_queue");
  EXPECT_EQ(IntQueue(QueueKind::kPriority, 2)->name(), "priority_queue");
  EXPECT_EQ(IntQueue(QueueKind::kPaddingFIFO, 2)->name(), "padding_fifo_queue");
}

TEST(QueueOptionsTest, CreateQueueBuildsEachKind) {
  EXPECT_NE(dynamic_cast<FIFOQueue*>(Fifo(1).get()), nullptr);
  EXPECT_NE(dynamic_cast<PaddingFIFOQueue*>(
                IntQueue(QueueKind::kPaddingFIFO, 1).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<RandomShuffleQueue*>(
                IntQueue(QueueKind::kRandomShuffle, 1).get()),
            nullptr);
  EXPECT_NE(
      dynamic_cast<PriorityQueue*>(IntQueue(QueueKind::kPriority, 1).get()),
      nullptr);
}

// ------------------------------------------------------------ shared queues

QueueOptions Shared(std::string name, int64_t capacity = 5) {
  QueueOptions o = Scalars(capacity);
  o.shared_name = std::move(name);
  return o;
}

TEST(SharedQueueTest, SameSharedNameReturnsTheSameQueue) {
  auto a = FIFOQueue::Create(Shared("shared_same"));
  auto b = FIFOQueue::Create(Shared("shared_same"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  ASSERT_TRUE((*a)->Enqueue(Int(3)).ok());
  EXPECT_EQ(IntOf((*b)->Dequeue()), 3);
}

TEST(SharedQueueTest, EmptySharedNameMakesPrivateQueues) {
  EXPECT_NE(Fifo(5).get(), Fifo(5).get());
}

TEST(SharedQueueTest, ContainersSeparateQueuesOfTheSameName) {
  QueueOptions other = Shared("shared_container");
  other.container = "c2";
  auto a = FIFOQueue::Create(Shared("shared_container"));
  auto b = FIFOQueue::Create(other);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->get(), b->get());
}

TEST(SharedQueueTest, CapacityMismatchIsInvalidArgument) {
  auto a = FIFOQueue::Create(Shared("shared_cap", 10));
  ASSERT_TRUE(a.ok());
  auto b = FIFOQueue::Create(Shared("shared_cap", 5));
  EXPECT_TRUE(IsInvalidArgument(b.status()));
  EXPECT_NE(b.status().message().find("capacity 10"), std::string::npos);
}

TEST(SharedQueueTest, DtypeShapeKindAndNameMismatchesAreInvalidArgument) {
  auto a = FIFOQueue::Create(Shared("shared_mismatch"));
  ASSERT_TRUE(a.ok());
  QueueOptions o = Shared("shared_mismatch");
  o.dtypes = {DType::kFloat32};
  EXPECT_TRUE(IsInvalidArgument(FIFOQueue::Create(o).status()));
  o = Shared("shared_mismatch");
  o.shapes = {PartialShape({2})};
  EXPECT_TRUE(IsInvalidArgument(FIFOQueue::Create(o).status()));
  o = Shared("shared_mismatch");
  o.names = {"x"};
  EXPECT_TRUE(IsInvalidArgument(FIFOQueue::Create(o).status()));
  EXPECT_TRUE(IsInvalidArgument(
      RandomShuffleQueue::Create(Shared("shared_mismatch")).status()));
}

TEST(SharedQueueTest, PaddingFifoSharesWhenShapesAreCompatible) {
  QueueOptions o{.capacity = 5,
                 .dtypes = {DType::kInt32},
                 .shapes = {PartialShape({-1, 3})},
                 .shared_name = "shared_padding"};
  auto a = PaddingFIFOQueue::Create(o);
  o.shapes = {PartialShape({4, -1})};
  auto b = PaddingFIFOQueue::Create(o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  o.shapes = {PartialShape({-1, 2})};
  EXPECT_TRUE(IsInvalidArgument(PaddingFIFOQueue::Create(o).status()));
}

TEST(SharedQueueTest, RandomShuffleChecksMinAfterDequeueAndNonZeroSeeds) {
  QueueOptions o = Shared("shared_rsq");
  o.min_after_dequeue = 1;
  o.seed = 7;
  auto a = RandomShuffleQueue::Create(o);
  ASSERT_TRUE(a.ok());
  o.min_after_dequeue = 2;
  EXPECT_TRUE(IsInvalidArgument(RandomShuffleQueue::Create(o).status()));
  o.min_after_dequeue = 1;
  o.seed = 8;
  EXPECT_TRUE(IsInvalidArgument(RandomShuffleQueue::Create(o).status()));
  o.seed = 0;  // unset seeds match any
  auto b = RandomShuffleQueue::Create(o);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get());
}

TEST(SharedQueueTest, SharedQueueLivesWhileSomeoneHoldsIt) {
  auto a = FIFOQueue::Create(Shared("shared_lifetime"));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->Enqueue(Int(1)).ok());
  a = InvalidArgumentError("dropped");
  auto b = FIFOQueue::Create(Shared("shared_lifetime"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->Size(), 0);  // a fresh queue
}

// ---------------------------------------------------------- named components

std::shared_ptr<QueueInterface> Named() {
  auto q = FIFOQueue::Create({.capacity = 4,
                              .dtypes = {DType::kInt32, DType::kString},
                              .shapes = {PartialShape({}), PartialShape({})},
                              .names = {"id", "text"}});
  EXPECT_TRUE(q.ok());
  return *q;
}

TEST(NamedQueueTest, EnqueueNamedAndDequeueNamedRoundTrip) {
  auto q = Named();
  ASSERT_TRUE(q->EnqueueNamed({{"text", Tensor::Scalar("hi")},
                               {"id", Tensor::Scalar<int32_t>(4)}})
                  .ok());
  auto out = q->DequeueNamed();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->at("id").data<int32_t>()[0], 4);
  EXPECT_EQ(out->at("text").data<std::string>()[0], "hi");
}

TEST(NamedQueueTest, KeysMustBeExactlyTheNames) {
  auto q = Named();
  EXPECT_TRUE(
      IsInvalidArgument(q->EnqueueNamed({{"id", Tensor::Scalar<int32_t>(4)}})));
  EXPECT_TRUE(
      IsInvalidArgument(q->EnqueueNamed({{"id", Tensor::Scalar<int32_t>(4)},
                                         {"text", Tensor::Scalar("x")},
                                         {"extra", Tensor::Scalar("y")}})));
  EXPECT_EQ(q->Size(), 0);
}

TEST(NamedQueueTest, DequeueManyNamedGivesBatches) {
  auto q = Named();
  ASSERT_TRUE(q->EnqueueManyNamed(
                   {{"id", Tensor::FromVector<int32_t>({1, 2})},
                    {"text", Tensor::FromVector<std::string>({"a", "b"})}})
                  .ok());
  auto out = q->DequeueManyNamed(2);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(IntsOf(out->at("id")), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(out->at("text").data<std::string>()[1], "b");
}

TEST(NamedQueueTest, NamedCallsOnAnUnnamedQueueAreInvalidArgument) {
  auto q = Fifo(2);
  EXPECT_TRUE(
      IsInvalidArgument(q->EnqueueNamed({{"x", Tensor::Scalar<int32_t>(1)}})));
  ASSERT_TRUE(q->Enqueue(Int(1)).ok());
  EXPECT_TRUE(IsInvalidArgument(q->DequeueNamed().status()));
  EXPECT_EQ(q->Size(), 1);
}

TEST(NamedQueueTest, ValidationErrorsNameTheComponent) {
  auto q = Named();
  Status s =
      q->Enqueue({Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(2)});
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("component 1 ('text')"), std::string::npos) << s;
}

}  // namespace
}  // namespace inflow
