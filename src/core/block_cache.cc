// Copyright 2026 The inflow Authors.

#include "core/block_cache.h"

#include "core/fork_safety.h"

#if defined(__SANITIZE_ADDRESS__)
#define INFLOW_BLOCK_CACHE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INFLOW_BLOCK_CACHE_ASAN 1
#endif
#endif
#ifdef INFLOW_BLOCK_CACHE_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace inflow::internal {
namespace {

// Under AddressSanitizer a kept block is poisoned until it is handed out
// again, so a use after free of a recycled block is still reported.
void Poison(void* block, size_t bytes) {
#ifdef INFLOW_BLOCK_CACHE_ASAN
  ASAN_POISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

void Unpoison(void* block, size_t bytes) {
#ifdef INFLOW_BLOCK_CACHE_ASAN
  ASAN_UNPOISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

}  // namespace

BlockCache& BlockCache::Global() {
  static BlockCache* const cache =
      HeldAcrossFork(new BlockCache, &BlockCache::mu_);
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
    Unpoison(block, bytes);
    return block;
  }
  return nullptr;
}

bool BlockCache::Keep(void* block, size_t bytes) {
  if (bytes < kMinBytes || bytes > kMaxBytes) return false;
  MutexLock lock(&mu_);
  if (count_ == kMaxBlocks || kept_bytes_ + bytes > kMaxBytes) return false;
  Poison(block, bytes);
  entries_[count_++] = Entry{block, bytes};
  kept_bytes_ += bytes;
  return true;
}

}  // namespace inflow::internal
