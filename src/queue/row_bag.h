// Copyright 2026 The inflow Authors.
//
// RowBag: RandomShuffleQueue's storage. TF keeps a vector of elements and
// dequeues a uniformly random index, refilling it from the last element;
// the bag does the same on a vector of 8-byte references (chunk, row).
// A chunk is what one call enqueued: an EnqueueMany batch, whose row r is
// element r, or a single element. Its tensors are shared, not copied, and
// it lives while any of its rows is held: in the bag, or taken by a
// dequeue that has not released it yet. So an EnqueueMany of n rows
// allocates nothing per row, and a DequeueMany gathers row pointers (with
// the buffers they point into) under the queue's lock and copies the rows
// into its batch after the lock is released (batch.h, StackGathered).
// Thread-compatible; the queue guards it with its lock.

#ifndef INFLOW_QUEUE_ROW_BAG_H_
#define INFLOW_QUEUE_ROW_BAG_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "inflow/core/tensor.h"

namespace inflow::internal {

// Rows taken for one batch: pointers into buffers that `keep` holds, so
// they stay valid without the queue's lock.
struct GatheredRows {
  size_t rows = 0;
  // Component-major: row r of component c at ptr[c * rows + r].
  std::vector<const char*> ptr;
  // The first row's shapes (every row's when the queue's shapes are
  // fully defined).
  std::vector<TensorShape> row_shapes;
  std::vector<std::shared_ptr<TensorBuffer>> keep;
};

class RowBag {
 public:
  // A row of a chunk.
  struct Ref {
    uint32_t chunk;
    uint32_t row;
  };

  explicit RowBag(size_t components) : components_(components) {}
  RowBag(const RowBag&) = delete;
  RowBag& operator=(const RowBag&) = delete;

  size_t size() const { return refs_.size(); }

  // Appends rows [first, first + count) of `batch` (every component with
  // at least that many rows in its leading dimension), in order.
  void AppendRows(const Tuple& batch, int64_t first, int64_t count);
  // Appends one element.
  void Append(Tuple&& element);
  // Puts back a row taken by Take() and not released.
  void PutBack(Ref ref) { refs_.push_back(ref); }

  // TF's draw: removes the element at `index` (< size()), moving the last
  // one into its place. The row stays held until released.
  Ref Take(size_t index) {
    const Ref ref = refs_[index];
    if (index + 1 != refs_.size()) refs_[index] = refs_.back();
    refs_.pop_back();
    return ref;
  }

  // The element of a taken row, releasing it.
  Tuple Release(Ref ref);
  // Releases taken rows into an empty `out`, in order.
  void ReleaseInto(std::span<const Ref> refs, GatheredRows* out);

 private:
  struct Chunk {
    Tuple tensors;
    // Per component: the first row's bytes, and the bytes of one row.
    std::vector<const char*> base;
    std::vector<size_t> row_bytes;
    // Rows in the bag or taken and not released.
    int64_t held = 0;
    // The ReleaseInto call that last kept this chunk's buffers.
    uint64_t kept_by = 0;
    bool batched = false;
  };

  uint32_t NewChunk(int64_t held);
  void Unhold(uint32_t id);

  const size_t components_;
  std::vector<Chunk> chunks_;
  std::vector<uint32_t> free_chunks_;
  std::vector<Ref> refs_;
  uint64_t release_calls_ = 0;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_ROW_BAG_H_
