// Copyright 2026 The inflow Authors.
//
// BlockCache: large blocks freed by owned tensor buffers, kept for the next
// allocation of the same size.
//
// A reading pipeline allocates and frees blocks of a few large sizes (a
// converted batch, a DequeueMany batch) at a high rate, often freeing on
// another thread than the one that allocated. glibc serves such a size
// either by mmap/munmap (a page fault on every page of every fresh block)
// or, once its threshold has grown past it, from an arena, where a free
// from another thread takes that arena's lock and large frees consolidate
// and trim. A reused block does neither. Thread-safe.

#ifndef INFLOW_CORE_BLOCK_CACHE_H_
#define INFLOW_CORE_BLOCK_CACHE_H_

#include <cstddef>

#include "inflow/core/mutex.h"

namespace inflow::internal {

class BlockCache {
 public:
  // Blocks smaller than this go straight to the allocator.
  static constexpr size_t kMinBytes = size_t{64} << 10;
  // At most this many blocks and bytes are kept; a free beyond either
  // goes to the allocator.
  static constexpr size_t kMaxBlocks = 16;
  static constexpr size_t kMaxBytes = size_t{16} << 20;

  // The process's cache (never destroyed, so frees at exit still find it).
  static BlockCache& Global();

  // A kept block of exactly `bytes` (the most recently kept one), or
  // nullptr.
  void* Take(size_t bytes) INFLOW_EXCLUDES(mu_);
  // Keeps `block` of `bytes` if it is large enough and there is room;
  // false when the caller has to free it.
  bool Keep(void* block, size_t bytes) INFLOW_EXCLUDES(mu_);

 private:
  struct Entry {
    void* block;
    size_t bytes;
  };

  Mutex mu_;
  Entry entries_[kMaxBlocks] INFLOW_GUARDED_BY(mu_) = {};
  size_t count_ INFLOW_GUARDED_BY(mu_) = 0;
  size_t kept_bytes_ INFLOW_GUARDED_BY(mu_) = 0;
};

}  // namespace inflow::internal

#endif  // INFLOW_CORE_BLOCK_CACHE_H_
