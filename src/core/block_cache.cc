// Copyright 2026 The inflow Authors.

#include "core/block_cache.h"

namespace inflow::internal {

BlockCache& BlockCache::Global() {
  static BlockCache* const cache = new BlockCache;
  return *cache;
}

void* BlockCache::Take(size_t bytes) {
  if (bytes < kMinBytes) return nullptr;
  MutexLock lock(&mu_);
  for (size_t i = count_; i-- > 0;) {
    if (entries_[i].bytes != bytes) continue;
    void* block = entries_[i].block;
    entries_[i] = entries_[--count_];
    kept_bytes_ -= bytes;
    return block;
  }
  return nullptr;
}

bool BlockCache::Keep(void* block, size_t bytes) {
  if (bytes < kMinBytes || bytes > kMaxBytes) return false;
  MutexLock lock(&mu_);
  if (count_ == kMaxBlocks || kept_bytes_ + bytes > kMaxBytes) return false;
  entries_[count_++] = Entry{block, bytes};
  kept_bytes_ += bytes;
  return true;
}

}  // namespace inflow::internal
