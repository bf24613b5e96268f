// Copyright 2026 The inflow Authors.
//
// RandomShuffleQueue's two storages (docs/ARCHITECTURE.md, "Queues"):
// numeric components of fully defined shapes are copied into the queue's
// slots; other elements are kept as given and batches are copied out of
// them (the chunks of queue/row_bag.h). Both give the same values in the same
// seeded order.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

std::vector<int32_t> Range(int32_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// int32 [2] and int64 [] (slots), or int32 [2] and string [] (strings).
enum class Layout { kSlots, kStrings };

std::shared_ptr<QueueInterface> Queue(Layout layout, int64_t capacity,
                                      int64_t seed = 3) {
  QueueOptions o{.capacity = capacity, .seed = seed, .seed2 = 4};
  o.dtypes = {DType::kInt32,
              layout == Layout::kStrings ? DType::kString : DType::kInt64};
  o.shapes = {PartialShape({2}), PartialShape({})};
  auto q = RandomShuffleQueue::Create(o);
  EXPECT_TRUE(q.ok()) << q.status();
  return *q;
}

std::string Name(int32_t v) {
  std::string s = std::to_string(v);
  s.insert(s.begin(), 's');
  return s;
}

Tensor Second(Layout layout, const std::vector<int32_t>& values) {
  if (layout == Layout::kStrings) {
    std::vector<std::string> s;
    for (int32_t v : values) s.push_back(Name(v));
    return Tensor::FromVector(s);
  }
  std::vector<int64_t> w(values.begin(), values.end());
  return Tensor::FromVector(w);
}

// Rows {v, -v} and v (as the second component's type) for each v.
Tuple Rows(Layout layout, const std::vector<int32_t>& values) {
  std::vector<int32_t> pairs;
  for (int32_t v : values) {
    pairs.push_back(v);
    pairs.push_back(-v);
  }
  return {*Tensor::FromVector(
              pairs, TensorShape({static_cast<int64_t>(values.size()), 2})),
          Second(layout, values)};
}

// The values of a batch of Rows, checking that each row is whole.
std::vector<int32_t> ValuesOf(Layout layout, const Result<Tuple>& batch) {
  EXPECT_TRUE(batch.ok()) << batch.status();
  if (!batch.ok()) return {};
  std::vector<int32_t> out;
  const auto pairs = (*batch)[0].flat<int32_t>();
  for (int64_t i = 0; i < (*batch)[0].dim_size(0); ++i) {
    const int32_t v = pairs[2 * i];
    EXPECT_EQ(pairs[2 * i + 1], -v);
    if (layout == Layout::kStrings) {
      EXPECT_EQ((*batch)[1].flat<std::string>()[i], Name(v));
    } else {
      EXPECT_EQ((*batch)[1].flat<int64_t>()[i], v);
    }
    out.push_back(v);
  }
  return out;
}

class ShuffleStorageTest : public ::testing::TestWithParam<Layout> {
 protected:
  Layout layout() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(Layouts, ShuffleStorageTest,
                         ::testing::Values(Layout::kSlots, Layout::kStrings),
                         [](const auto& info) {
                           return info.param == Layout::kSlots ? "Slots"
                                                               : "Strings";
                         });

TEST_P(ShuffleStorageTest, RowsComeOutWholeAfterTheCallerDropsItsBatch) {
  auto q = Queue(layout(), 100);
  ASSERT_TRUE(q->EnqueueMany(Rows(layout(), Range(40))).ok());
  Tuple one = {
      *Tensor::FromVector(std::vector<int32_t>{40, -40}, TensorShape({2})),
      Second(layout(), {40}).SubTensor(0)};
  ASSERT_TRUE(q->Enqueue(std::move(one)).ok());
  std::vector<int32_t> all = ValuesOf(layout(), q->DequeueMany(30));
  auto single = q->Dequeue();
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->at(0).shape(), TensorShape({2}));
  all.push_back(single->at(0).flat<int32_t>()[0]);
  for (int32_t v : ValuesOf(layout(), q->DequeueMany(10))) all.push_back(v);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(41));
}

TEST(ShuffleStorageTest, SeededOrderDoesNotDependOnTheStorage) {
  // Slots for the numeric queue, chunks for the one with strings.
  auto run = [](Layout layout) {
    auto q = Queue(layout, 50, 11);
    std::vector<int32_t> out;
    EXPECT_TRUE(q->EnqueueMany(Rows(layout, Range(20))).ok());
    for (int i = 0; i < 3; ++i) {
      auto e = q->Dequeue();
      EXPECT_TRUE(e.ok());
      if (e.ok()) out.push_back(e->at(0).flat<int32_t>()[0]);
    }
    for (int32_t v : ValuesOf(layout, q->DequeueMany(7))) out.push_back(v);
    EXPECT_TRUE(q->EnqueueMany(Rows(layout, {100, 101, 102})).ok());
    for (int32_t v : ValuesOf(layout, q->DequeueUpTo(13))) out.push_back(v);
    return out;
  };
  const std::vector<int32_t> slots = run(Layout::kSlots);
  EXPECT_EQ(slots.size(), 23u);
  EXPECT_EQ(run(Layout::kStrings), slots);
}

TEST_P(ShuffleStorageTest, PendingEnqueueManyInsertsItsRestAsRoomAppears) {
  // Capacity 4: the first 4 rows go in at once, the other 2 once a
  // dequeue makes room, in order; the same as 4 + 2 separate enqueues.
  auto a = Queue(layout(), 4, 21);
  auto pending =
      Async([&] { return a->EnqueueMany(Rows(layout(), Range(6))); });
  AwaitPendingEnqueues(*a, 1);
  EXPECT_EQ(a->Size(), 4);
  std::vector<int32_t> from_a = ValuesOf(layout(), a->DequeueMany(2));
  ASSERT_TRUE(Get(pending).ok());
  for (int32_t v : ValuesOf(layout(), a->DequeueMany(4))) from_a.push_back(v);

  auto b = Queue(layout(), 4, 21);
  ASSERT_TRUE(b->EnqueueMany(Rows(layout(), Range(4))).ok());
  std::vector<int32_t> from_b = ValuesOf(layout(), b->DequeueMany(2));
  ASSERT_TRUE(b->EnqueueMany(Rows(layout(), {4, 5})).ok());
  for (int32_t v : ValuesOf(layout(), b->DequeueMany(4))) from_b.push_back(v);
  EXPECT_EQ(from_a, from_b);
}

TEST_P(ShuffleStorageTest, TimedOutEnqueueManyKeepsTheRowsItInserted) {
  auto q = Queue(layout(), 4);
  EXPECT_TRUE(IsDeadlineExceeded(
      q->EnqueueMany(Rows(layout(), Range(6)), Timeout(20ms))));
  EXPECT_EQ(q->Size(), 4);
  ASSERT_TRUE(q->Close().ok());
  std::vector<int32_t> all = ValuesOf(layout(), q->DequeueUpTo(10));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(4));
}

TEST_P(ShuffleStorageTest, CancelledPendingEnqueueManyInsertsNoMore) {
  auto q = Queue(layout(), 4);
  auto pending =
      Async([&] { return q->EnqueueMany(Rows(layout(), Range(6))); });
  AwaitPendingEnqueues(*q, 1);
  ASSERT_TRUE(q->Close(/*cancel_pending_enqueues=*/true).ok());
  EXPECT_TRUE(IsCancelled(Get(pending)));
  std::vector<int32_t> all = ValuesOf(layout(), q->DequeueUpTo(10));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, Range(4));
}

TEST(ShuffleStorageTest, SlotsKeepNoReferenceToTheEnqueuedTensors) {
  auto q = Queue(Layout::kSlots, 10);
  Tuple batch = Rows(Layout::kSlots, Range(5));
  const std::shared_ptr<TensorBuffer> buffer = batch[0].buffer();
  ASSERT_TRUE(q->EnqueueMany(std::move(batch)).ok());
  EXPECT_EQ(buffer.use_count(), 1);
  auto out = q->DequeueMany(5);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->at(0).buffer() == buffer);
}

TEST(ShuffleStorageTest, SlotsCopyASingleElementInAndOut) {
  auto q = Queue(Layout::kSlots, 10);
  Tuple element = {Tensor::FromVector<int32_t>({7, -7}),
                   *Tensor::FromVector<int64_t>({7}, TensorShape({}))};
  const std::shared_ptr<TensorBuffer> buffer = element[0].buffer();
  ASSERT_TRUE(q->Enqueue(std::move(element)).ok());
  EXPECT_EQ(buffer.use_count(), 1);
  auto out = q->Dequeue();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(out->at(0).buffer(), buffer);
  EXPECT_FALSE(out->at(0).read_only());
  EXPECT_EQ(out->at(0), Tensor::FromVector<int32_t>({7, -7}));
  EXPECT_EQ(out->at(1).flat<int64_t>()[0], 7);
}

TEST(ShuffleStorageTest, StringBatchIsHeldUntilItsLastRowLeaves) {
  auto q = Queue(Layout::kStrings, 10);
  Tuple batch = Rows(Layout::kStrings, Range(5));
  const std::shared_ptr<TensorBuffer> buffer = batch[1].buffer();
  ASSERT_TRUE(q->EnqueueMany(std::move(batch)).ok());
  EXPECT_GT(buffer.use_count(), 1);
  EXPECT_EQ(ValuesOf(Layout::kStrings, q->DequeueMany(4)).size(), 4u);
  EXPECT_GT(buffer.use_count(), 1);
  EXPECT_EQ(ValuesOf(Layout::kStrings, q->DequeueMany(1)).size(), 1u);
  EXPECT_EQ(buffer.use_count(), 1);
}

// Rows first..first+n-1 of a float32 [16], int64 [] queue: row v is
// (v * 100 + j for j < 16, v).
Tuple ImageRows(int32_t first, int32_t n) {
  std::vector<float> images;
  std::vector<int64_t> labels;
  for (int32_t v = first; v < first + n; ++v) {
    for (int j = 0; j < 16; ++j)
      images.push_back(static_cast<float>(v * 100 + j));
    labels.push_back(v);
  }
  return {*Tensor::FromVector(images, TensorShape({n, 16})),
          Tensor::FromVector(labels)};
}

// The labels of a batch of ImageRows, sorted, checking that each image
// belongs to its label.
std::vector<int64_t> LabelsOf(const Tuple& batch) {
  std::vector<int64_t> labels;
  const auto images = batch[0].flat<float>();
  for (int64_t i = 0; i < batch[1].dim_size(0); ++i) {
    const int64_t v = batch[1].flat<int64_t>()[i];
    for (int64_t j = 0; j < 16; ++j) {
      EXPECT_EQ(images[i * 16 + j], static_cast<float>(v * 100 + j));
    }
    labels.push_back(v);
  }
  std::sort(labels.begin(), labels.end());
  return labels;
}

std::vector<int64_t> Labels(int64_t first, int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = first; i < first + n; ++i) v.push_back(i);
  return v;
}

TEST(ShuffleStorageTest, DequeueManyRecyclesTheBuffersOfDroppedBatches) {
  QueueOptions o{.capacity = 64, .seed = 5, .seed2 = 6};
  o.dtypes = {DType::kFloat32, DType::kInt64};
  o.shapes = {PartialShape({16}), PartialShape({})};
  auto created = RandomShuffleQueue::Create(o);
  ASSERT_TRUE(created.ok()) << created.status();
  std::shared_ptr<QueueInterface> q = *created;
  const internal::BatchPool* pool = internal::CoreOf(*q)->batch_pool();
  ASSERT_NE(pool, nullptr);
  int32_t next = 0;
  // Enqueues 8 new rows and takes them back as one batch.
  auto batch = [&]() -> Tuple {
    EXPECT_TRUE(q->EnqueueMany(ImageRows(next, 8)).ok());
    next += 8;
    auto b = q->DequeueMany(8);
    EXPECT_TRUE(b.ok()) << b.status();
    if (!b.ok()) return {};
    EXPECT_EQ(LabelsOf(*b), Labels(next - 8, 8));
    return *std::move(b);
  };

  // Each batch dropped before the next: one buffer per component, reused.
  for (int i = 0; i < 20; ++i) ASSERT_EQ(batch().size(), 2u);
  EXPECT_EQ(pool->stats().allocated, 2u);
  EXPECT_EQ(pool->stats().reused, 38u);

  // A batch kept across 10 more: those get other buffers (two new ones,
  // then reused), and it keeps its values.
  Tuple kept = batch();
  ASSERT_EQ(kept.size(), 2u);
  const Tuple copy = {kept[0].Clone(), kept[1].Clone()};
  for (int i = 0; i < 10; ++i) {
    const Tuple b = batch();
    ASSERT_EQ(b.size(), 2u);
    EXPECT_NE(b[0].raw_data(), kept[0].raw_data());
    EXPECT_NE(b[1].raw_data(), kept[1].raw_data());
  }
  EXPECT_EQ(kept[0], copy[0]);
  EXPECT_EQ(kept[1], copy[1]);
  EXPECT_EQ(LabelsOf(kept), Labels(160, 8));
  EXPECT_EQ(pool->stats().allocated, 4u);
  EXPECT_EQ(pool->stats().reused, 58u);

  // Dropped, its buffers are kept for the next batches.
  const void* kept_images = kept[0].raw_data();
  EXPECT_EQ(pool->stats().free_buffers, 2u);
  kept.clear();
  EXPECT_EQ(pool->stats().free_buffers, 4u);
  EXPECT_EQ(batch()[0].raw_data(), kept_images);
}

TEST(ShuffleStorageTest, OnlyAQueueWithSlotsHasABatchPool) {
  EXPECT_NE(internal::CoreOf(*Queue(Layout::kSlots, 10))->batch_pool(),
            nullptr);
  EXPECT_EQ(internal::CoreOf(*Queue(Layout::kStrings, 10))->batch_pool(),
            nullptr);
  EXPECT_EQ(internal::CoreOf(*Fifo(10))->batch_pool(), nullptr);
}

}  // namespace
}  // namespace inflow
