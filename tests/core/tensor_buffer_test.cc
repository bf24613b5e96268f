// Copyright 2026 The inflow Authors.
//
// Borrowed buffers: read-only views, writable wraps, the release callback.

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"

#include "core/sanitizer.h"
#include "core/tensor_blocks.h"

namespace inflow {
namespace {

TEST(TensorBufferTest, WrapBorrowsAndReleases) {
  static const char storage[16] = {1, 2, 3, 4};
  bool released = false;
  {
    auto buf =
        TensorBuffer::Wrap(storage, sizeof(storage), [&] { released = true; });
    Result<Tensor> t = Tensor::FromBuffer(DType::kUInt8, TensorShape({4}), buf);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->raw_data(), storage);
    EXPECT_EQ(t->flat<uint8_t>()[3], 4);
    EXPECT_EQ(Tensor::FromBuffer(DType::kUInt8, TensorShape({17}), buf)
                  .status()
                  .code(),
              StatusCode::kInvalidArgument);
    EXPECT_FALSE(released);
  }
  EXPECT_TRUE(released);
}

// Writing through any tensor over a Wrap()ed buffer fails, in Release too,
// and leaves the bytes as they were; slices and reshapes stay read-only.
TEST(TensorBufferTest, WrappedBufferRefusesWrites) {
  static const int32_t storage[4] = {1, 2, 3, 4};
  auto buf = TensorBuffer::Wrap(storage, sizeof(storage), nullptr);
  EXPECT_TRUE(buf->read_only());
  Result<Tensor> t = Tensor::FromBuffer(DType::kInt32, TensorShape({4}), buf);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->read_only());
  EXPECT_EQ(t->mutable_flat<int32_t>().status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(t->mutable_raw_data().status().code(),
            StatusCode::kFailedPrecondition);
  Tensor slice = t->Slice(1, 3);
  EXPECT_TRUE(slice.read_only());
  EXPECT_EQ(slice.mutable_flat<int32_t>().status().code(),
            StatusCode::kFailedPrecondition);
  Result<Tensor> reshaped = t->Reshape(TensorShape({2, 2}));
  ASSERT_TRUE(reshaped.ok());
  EXPECT_EQ(reshaped->mutable_raw_data().status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(storage[1], 2);
}

// Clone, Stack and Concat copy read-only tensors into new owned buffers,
// which are writable.
TEST(TensorBufferTest, CopiesOfReadOnlyTensorsAreWritable) {
  static const float storage[4] = {1, 2, 3, 4};
  auto buf = TensorBuffer::Wrap(storage, sizeof(storage), nullptr);
  Tensor t = *Tensor::FromBuffer(DType::kFloat32, TensorShape({2, 2}), buf);
  Tensor clone = t.Clone();
  EXPECT_FALSE(clone.read_only());
  ASSERT_TRUE(clone.mutable_flat<float>().ok());
  (*clone.mutable_flat<float>())[0] = 9;
  EXPECT_EQ(storage[0], 1.0f);

  const Tensor rows[] = {t.SubTensor(0), t.SubTensor(1)};
  Result<Tensor> stacked = Tensor::Stack(rows);
  ASSERT_TRUE(stacked.ok()) << stacked.status();
  EXPECT_FALSE(stacked->read_only());
  EXPECT_EQ(*stacked, t);
  const Tensor parts[] = {t.Slice(0, 1), t.Slice(1, 2)};
  Result<Tensor> joined = Tensor::Concat(parts);
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_FALSE(joined->read_only());
  EXPECT_EQ(*joined, t);
}

TEST(TensorBufferTest, WrapWritableLetsTensorsWrite) {
  int64_t storage[2] = {0, 0};
  auto buf = TensorBuffer::WrapWritable(storage, sizeof(storage), nullptr);
  EXPECT_FALSE(buf->read_only());
  Tensor t = *Tensor::FromBuffer(DType::kInt64, TensorShape({2}), buf);
  Result<std::span<int64_t>> out = t.mutable_flat<int64_t>();
  ASSERT_TRUE(out.ok()) << out.status();
  (*out)[1] = 42;
  EXPECT_EQ(storage[1], 42);
}

// A string element is a std::string object; bytes are not one.
TEST(TensorBufferTest, FromBufferRefusesStringTensors) {
  alignas(std::string) static char storage[4 * sizeof(std::string)] = {};
  for (auto buf :
       {TensorBuffer::Wrap(storage, sizeof(storage), nullptr),
        TensorBuffer::WrapWritable(storage, sizeof(storage), nullptr)}) {
    Result<Tensor> t =
        Tensor::FromBuffer(DType::kString, TensorShape({2}), buf);
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  }
  // An owned string buffer is refused as well: FromBuffer makes views of
  // bytes only.
  auto owned = TensorBuffer::Allocate(DType::kString, 2);
  EXPECT_EQ(Tensor::FromBuffer(DType::kString, TensorShape({2}), owned)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(TensorBufferTest, FromBufferRefusesNegativeDimensions) {
  static const char storage[8] = {};
  auto buf = TensorBuffer::Wrap(storage, sizeof(storage), nullptr);
  EXPECT_EQ(Tensor::FromBuffer(DType::kUInt8, TensorShape({-2, -2}), buf)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// 2^61 uint64 elements need 2^64 bytes, which wraps to 0 in size_t.
TEST(TensorBufferTest, FromBufferRefusesShapesTooLargeForTheBuffer) {
  static const uint64_t storage[2] = {};
  auto buf = TensorBuffer::Wrap(storage, sizeof(storage), nullptr);
  EXPECT_EQ(
      Tensor::FromBuffer(DType::kUInt64, TensorShape({int64_t{1} << 61}), buf)
          .status()
          .code(),
      StatusCode::kInvalidArgument);
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(Tensor::FromBuffer(DType::kUInt8, TensorShape({big, big}), buf)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::FromBuffer(DType::kUInt64, TensorShape({1}), buf, 17)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      Tensor::FromBuffer(DType::kUInt64, TensorShape({1}), buf, 8).ok());
}

// 2^59 strings of 32 bytes are 2^64 bytes, which would wrap to 0.
TEST(TensorBufferDeathTest, AllocateOfAnOverflowingCountAbortsInEveryBuild) {
  EXPECT_DEATH(TensorBuffer::Allocate(DType::kString, int64_t{1} << 59),
               "invalid element count");
  EXPECT_DEATH(TensorBuffer::Allocate(DType::kUInt64, int64_t{1} << 61),
               "invalid element count");
  EXPECT_DEATH(TensorBuffer::Allocate(DType::kFloat32, -1),
               "invalid element count -1");
}

// The callback runs once, on the thread that drops the last reference.
TEST(TensorBufferTest, ReleaseRunsOnTheThreadDroppingTheLastReference) {
  static const char storage[4] = {};
  std::thread::id released_on;
  int releases = 0;
  Tensor t =
      *Tensor::FromBuffer(DType::kUInt8, TensorShape({4}),
                          TensorBuffer::Wrap(storage, sizeof(storage), [&] {
                            released_on = std::this_thread::get_id();
                            ++releases;
                          }));
  Tensor copy = t;
  t = Tensor();  // not the last reference
  EXPECT_EQ(releases, 0);
  std::thread::id worker_id;
  std::thread worker([&, last = std::move(copy)]() mutable {
    worker_id = std::this_thread::get_id();
    last = Tensor();
  });
  worker.join();
  EXPECT_EQ(releases, 1);
  EXPECT_EQ(released_on, worker_id);
  EXPECT_NE(released_on, std::this_thread::get_id());
}

// A tensor's block freed on one thread is made again on another: the
// freeing thread's cache passes it on through the shared depot (at the
// latest when the thread ends), where the making thread takes it, as a
// pipeline's map thread makes per-element tensors that its batching
// thread frees. `in_depot` counts the depot's blocks of that kind. Off
// under AddressSanitizer. kTensors is a whole number of the caches'
// batches (64 small blocks, 8 medium ones).
void ExpectBlocksPassBetweenThreads(const TensorShape& shape,
                                    size_t (*in_depot)()) {
  constexpr int kTensors = 64;
  std::set<const void*> freed;
  std::thread freeing([&] {
    std::vector<Tensor> made;
    for (int i = 0; i < kTensors; ++i) {
      made.emplace_back(DType::kUInt8, shape);
      freed.insert(made.back().raw_data());
    }
  });  // frees them, then ends: its cache goes to the depot
  freeing.join();
  ASSERT_EQ(freed.size(), size_t{kTensors});
  if (internal::kAddressSanitizer) {
    EXPECT_EQ(in_depot(), 0u);
    return;
  }
  // All of them (the depot may hold others, of earlier tests).
  EXPECT_GE(in_depot(), size_t{kTensors});
  std::vector<const void*> remade;
  std::thread making([&] {
    std::vector<Tensor> made;
    for (int i = 0; i < kTensors; ++i) {
      made.emplace_back(DType::kUInt8, shape);
      remade.push_back(made.back().raw_data());
      // Zero-filled, as any new tensor.
      for (uint8_t b : made.back().flat<uint8_t>()) ASSERT_EQ(b, 0);
    }
    // Kept alive until here: each one a block of its own.
  });
  making.join();
  // The depot hands out the batches put last first: the freed ones.
  for (const void* p : remade) EXPECT_EQ(freed.count(p), 1u) << p;
}

// A few KiB (a decoded image).
TEST(TensorBufferTest, MediumBlocksPassBetweenThreads) {
  ExpectBlocksPassBetweenThreads(TensorShape({3000}),
                                 internal::MediumBlocksInDepot);
}

// Under 1 KiB with its header (a record's string, a label).
TEST(TensorBufferTest, SmallBlocksPassBetweenThreads) {
  ExpectBlocksPassBetweenThreads(TensorShape({100}),
                                 internal::SmallBlocksInDepot);
}

}  // namespace
}  // namespace inflow
