// Copyright 2026 The inflow Authors.
//
// The tensors queues carry: uint32 / uint64 components (validated, stacked,
// padded), read-only views of borrowed bytes, and where a borrowed
// buffer's release callback runs (never under the queue's lock).

#include <atomic>
#include <cstdint>
#include <future>
#include <limits>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using testing::kTestBound;

constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

TEST(QueueTensorsTest, UnsignedComponentsAreValidatedAndStacked) {
  auto q = *FIFOQueue::Create({.capacity = 4,
                               .dtypes = {DType::kUInt32, DType::kUInt64},
                               .shapes = {PartialShape({}), PartialShape({})}});
  ASSERT_TRUE(q->Enqueue({Tensor::Scalar<uint32_t>(kMax32),
                          Tensor::Scalar<uint64_t>(kMax64)})
                  .ok());
  ASSERT_TRUE(
      q->Enqueue({Tensor::Scalar<uint32_t>(1), Tensor::Scalar<uint64_t>(2)})
          .ok());
  // The signed type of the same width is another dtype.
  EXPECT_TRUE(IsInvalidArgument(
      q->Enqueue({Tensor::Scalar<int32_t>(1), Tensor::Scalar<uint64_t>(2)})));
  EXPECT_TRUE(IsInvalidArgument(
      q->Enqueue({Tensor::Scalar<uint32_t>(1), Tensor::Scalar<int64_t>(2)})));
  Result<Tuple> b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0], Tensor::FromVector<uint32_t>({kMax32, 1}));
  EXPECT_EQ((*b)[1], Tensor::FromVector<uint64_t>({kMax64, 2}));
}

TEST(QueueTensorsTest, PaddingFifoPadsUnsignedComponentsWithZeros) {
  auto q = *PaddingFIFOQueue::Create(
      {.capacity = 4,
       .dtypes = {DType::kUInt32, DType::kUInt64},
       .shapes = {PartialShape({-1}), PartialShape({-1})}});
  ASSERT_TRUE(q->Enqueue({Tensor::FromVector<uint32_t>({kMax32, kMax32}),
                          Tensor::FromVector<uint64_t>({kMax64})})
                  .ok());
  ASSERT_TRUE(q->Enqueue({Tensor::FromVector<uint32_t>({7}),
                          Tensor::FromVector<uint64_t>({8, 9, 10})})
                  .ok());
  Result<Tuple> b = q->DequeueMany(2);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0], *Tensor::FromVector<uint32_t>({kMax32, kMax32, 7, 0},
                                                   TensorShape({2, 2})));
  EXPECT_EQ((*b)[1], *Tensor::FromVector<uint64_t>({kMax64, 0, 0, 8, 9, 10},
                                                   TensorShape({2, 3})));
}

// Read-only views go through a queue unchanged (Dequeue returns the same
// view); DequeueMany copies them into a new, writable batch.
TEST(QueueTensorsTest, ReadOnlyViewsPassThroughAndBatchesAreWritable) {
  static const uint64_t storage[4] = {1, 2, 3, 4};
  const Tensor view = *Tensor::FromBuffer(
      DType::kUInt64, TensorShape({4}),
      TensorBuffer::Wrap(storage, sizeof(storage), nullptr));
  auto q = *FIFOQueue::Create({.capacity = 4,
                               .dtypes = {DType::kUInt64},
                               .shapes = {PartialShape({})}});
  ASSERT_TRUE(q->EnqueueMany({view}).ok());
  Result<Tuple> one = q->Dequeue();
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE((*one)[0].read_only());
  EXPECT_TRUE((*one)[0].SharesBufferWith(view));
  EXPECT_EQ((*one)[0].mutable_raw_data().status().code(),
            StatusCode::kFailedPrecondition);
  Result<Tuple> rest = q->DequeueMany(3);
  ASSERT_TRUE(rest.ok()) << rest.status();
  Tensor& batch = (*rest)[0];
  EXPECT_FALSE(batch.read_only());
  EXPECT_FALSE(batch.SharesBufferWith(view));
  EXPECT_EQ(batch, Tensor::FromVector<uint64_t>({2, 3, 4}));
  Result<std::span<uint64_t>> out = batch.mutable_flat<uint64_t>();
  ASSERT_TRUE(out.ok()) << out.status();
  (*out)[0] = 99;
  EXPECT_EQ(storage[1], 2u);
}

// A release callback that calls into the queue (Size() takes its lock)
// would deadlock if it ran under that lock. It runs on the thread that
// drops the last reference: here the consumer, after a Dequeue and after a
// DequeueMany (whose batch copy lets the taken views go), and, for a
// pending Enqueue that Close(cancel_pending_enqueues) fails, the producer
// or the closing thread.
TEST(QueueTensorsTest, ReleaseCallbackRunsOutsideTheQueueLock) {
  auto q = *FIFOQueue::Create({.capacity = 1,
                               .dtypes = {DType::kUInt32},
                               .shapes = {PartialShape({})}});
  static const uint32_t storage[1] = {5};
  std::atomic<int> releases{0};
  std::atomic<int64_t> size_seen{-1};
  std::atomic<std::thread::id> released_on{};
  auto borrowed = [&] {
    return *Tensor::FromBuffer(
        DType::kUInt32, TensorShape(),
        TensorBuffer::Wrap(storage, sizeof(storage), [&] {
          size_seen = q->Size();
          released_on = std::this_thread::get_id();
          ++releases;
        }));
  };
  auto run = [](auto body) {
    auto done = std::async(std::launch::async, body);
    ASSERT_EQ(done.wait_for(kTestBound), std::future_status::ready);
    done.get();
  };

  ASSERT_TRUE(q->Enqueue({borrowed()}).ok());
  EXPECT_EQ(releases, 0);
  std::thread::id consumer;
  run([&] {
    consumer = std::this_thread::get_id();
    Result<Tuple> t = q->Dequeue();
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ((*t)[0].data<uint32_t>()[0], 5u);
  });
  EXPECT_EQ(releases, 1);
  EXPECT_EQ(released_on.load(), consumer);
  EXPECT_EQ(size_seen, 0);

  ASSERT_TRUE(q->Enqueue({borrowed()}).ok());
  run([&] {
    consumer = std::this_thread::get_id();
    Result<Tuple> b = q->DequeueMany(1);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(releases, 2);  // the batch is a copy; the view is gone
  });
  EXPECT_EQ(released_on.load(), consumer);

  // The queue is full (capacity 1); the next Enqueue waits until Close
  // cancels it, and its element is dropped by the producer.
  ASSERT_TRUE(q->Enqueue({Tensor::Scalar<uint32_t>(0)}).ok());
  std::thread::id producer;
  std::promise<void> started;
  auto pending = std::async(std::launch::async, [&] {
    producer = std::this_thread::get_id();
    started.set_value();
    return q->Enqueue({borrowed()});
  });
  started.get_future().wait();
  testing::AwaitPendingEnqueues(*q, 1);
  ASSERT_TRUE(q->Close(/*cancel_pending_enqueues=*/true).ok());
  ASSERT_EQ(pending.wait_for(kTestBound), std::future_status::ready);
  EXPECT_TRUE(IsCancelled(pending.get()));
  EXPECT_EQ(releases, 3);
  // The producer or the closing thread, whichever lets go of the failed
  // attempt last; both do so after the lock is released.
  EXPECT_TRUE(released_on.load() == producer ||
              released_on.load() == std::this_thread::get_id());
  EXPECT_EQ(size_seen, 1);
}

}  // namespace
}  // namespace inflow
