// Copyright 2026 The inflow Authors.
//
// BlockCache: which freed blocks it keeps, which it hands back, its bounds;
// and that tensors built on a recycled block start as fresh ones do.

#include "core/block_cache.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"

namespace inflow::internal {
namespace {

// A real block (the cache poisons kept blocks under AddressSanitizer).
class Block {
 public:
  explicit Block(size_t bytes) : p_(std::malloc(bytes)) {}
  ~Block() { std::free(p_); }
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  void* get() const { return p_; }

 private:
  void* p_;
};

// Takes every kept block of `bytes` back out, so that none is poisoned
// when its Block frees it; returns how many there were.
size_t Drain(BlockCache* cache, size_t bytes) {
  size_t n = 0;
  while (cache->Take(bytes) != nullptr) ++n;
  return n;
}

TEST(BlockCacheTest, HandsBackAKeptBlockOfTheSameSizeOnce) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes;
  Block block(size);
  ASSERT_TRUE(cache.Keep(block.get(), size));
  EXPECT_EQ(cache.Take(size + 64), nullptr);
  EXPECT_EQ(cache.Take(size), block.get());
  EXPECT_EQ(cache.Take(size), nullptr);
}

TEST(BlockCacheTest, HandsBackTheMostRecentlyKeptBlockFirst) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes;
  Block a(size), b(size);
  ASSERT_TRUE(cache.Keep(a.get(), size));
  ASSERT_TRUE(cache.Keep(b.get(), size));
  EXPECT_EQ(cache.Take(size), b.get());
  EXPECT_EQ(cache.Take(size), a.get());
}

TEST(BlockCacheTest, RefusesSmallBlocks) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes - 64;
  Block block(size);
  EXPECT_FALSE(cache.Keep(block.get(), size));
  EXPECT_EQ(cache.Take(size), nullptr);
}

TEST(BlockCacheTest, KeepsAtMostMaxBlocks) {
  BlockCache cache;
  const size_t size = BlockCache::kMinBytes;
  std::vector<std::unique_ptr<Block>> blocks;
  for (size_t i = 0; i <= BlockCache::kMaxBlocks; ++i) {
    blocks.push_back(std::make_unique<Block>(size));
  }
  for (size_t i = 0; i < BlockCache::kMaxBlocks; ++i) {
    ASSERT_TRUE(cache.Keep(blocks[i]->get(), size));
  }
  EXPECT_FALSE(cache.Keep(blocks.back()->get(), size));
  EXPECT_NE(cache.Take(size), nullptr);
  EXPECT_TRUE(cache.Keep(blocks.back()->get(), size));
  EXPECT_EQ(Drain(&cache, size), BlockCache::kMaxBlocks);
}

TEST(BlockCacheTest, KeepsAtMostMaxBytes) {
  BlockCache cache;
  const size_t half = BlockCache::kMaxBytes / 2;
  Block a(half), b(half), small(BlockCache::kMinBytes);
  ASSERT_TRUE(cache.Keep(a.get(), half));
  ASSERT_TRUE(cache.Keep(b.get(), half));
  EXPECT_FALSE(cache.Keep(small.get(), BlockCache::kMinBytes));
  EXPECT_EQ(Drain(&cache, half), 2u);
  Block big(BlockCache::kMaxBytes + 64);
  EXPECT_FALSE(cache.Keep(big.get(), BlockCache::kMaxBytes + 64));
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
