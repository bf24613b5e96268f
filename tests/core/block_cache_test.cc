// Copyright 2026 The inflow Authors.
//
// BlockCache: which freed blocks it keeps, which it hands back, its bounds;
// and that tensors built on a recycled block start as fresh ones do.

#include "core/block_cache.h"

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"

namespace inflow::internal {
namespace {

// Distinct fake addresses: the cache only stores and returns them.
void* Fake(uintptr_t i) { return reinterpret_cast<void*>(i * 4096); }

TEST(BlockCacheTest, HandsBackAKeptBlockOfTheSameSizeOnce) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes;
  ASSERT_TRUE(cache.Keep(Fake(1), size));
  EXPECT_EQ(cache.Take(size + 64), nullptr);
  EXPECT_EQ(cache.Take(size), Fake(1));
  EXPECT_EQ(cache.Take(size), nullptr);
}

TEST(BlockCacheTest, HandsBackTheMostRecentlyKeptBlockFirst) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes;
  ASSERT_TRUE(cache.Keep(Fake(1), size));
  ASSERT_TRUE(cache.Keep(Fake(2), size));
  EXPECT_EQ(cache.Take(size), Fake(2));
  EXPECT_EQ(cache.Take(size), Fake(1));
}

TEST(BlockCacheTest, RefusesSmallBlocks) {
  BlockCache cache;
  EXPECT_FALSE(cache.Keep(Fake(1), BlockCache::kMinBytes - 64));
  EXPECT_EQ(cache.Take(BlockCache::kMinBytes - 64), nullptr);
}

TEST(BlockCacheTest, KeepsAtMostMaxBlocks) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes;
  for (size_t i = 0; i < BlockCache::kMaxBlocks; ++i) {
    ASSERT_TRUE(cache.Keep(Fake(i + 1), size));
  }
  EXPECT_FALSE(cache.Keep(Fake(100), size));
  EXPECT_NE(cache.Take(size), nullptr);
  EXPECT_TRUE(cache.Keep(Fake(100), size));
}

TEST(BlockCacheTest, KeepsAtMostMaxBytes) {
  BlockCache cache;
  const size_t half = BlockCache::kMaxBytes / 2;
  ASSERT_TRUE(cache.Keep(Fake(1), half));
  ASSERT_TRUE(cache.Keep(Fake(2), half));
  EXPECT_FALSE(cache.Keep(Fake(3), BlockCache::kMinBytes));
  EXPECT_FALSE(cache.Keep(Fake(4), BlockCache::kMaxBytes + 64));
}

TEST(BlockCacheTest, ATensorOnARecycledBlockIsZeroFilled) {
  const TensorShape shape({1 << 16});  // 256 KiB of float32
  const void* first_data = nullptr;
  {
    Tensor dirty = Tensor::Uninitialized(DType::kFloat32, shape);
    first_data = dirty.raw_data();
    std::memset(dirty.mutable_raw_data().value(), 0xff, dirty.num_bytes());
  }
  Tensor fresh(DType::kFloat32, shape);
  // The block just freed, recycled (no other thread allocates here).
  EXPECT_EQ(fresh.raw_data(), first_data);
  const float* values = fresh.flat<float>().data();
  for (int64_t i = 0; i < fresh.num_elements(); ++i) {
    ASSERT_EQ(values[i], 0.0f) << i;
  }
}

TEST(BlockCacheTest, AStringTensorOnARecycledBlockHoldsEmptyStrings) {
  const TensorShape shape({1 << 13});  // 8192 strings, over kMinBytes
  {
    Tensor used(DType::kString, shape);
    Result<std::span<std::string>> values = used.mutable_flat<std::string>();
    ASSERT_TRUE(values.ok());
    for (std::string& s : *values) s = std::string(100, 'x');
  }
  Tensor fresh(DType::kString, shape);
  for (const std::string& s : fresh.flat<std::string>()) {
    ASSERT_TRUE(s.empty());
  }
}

}  // namespace
}  // namespace inflow::internal
