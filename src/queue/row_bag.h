// Copyright 2026 The inflow Authors.
//
// RowBag: RandomShuffleQueue's storage. TF keeps a vector of elements and
// dequeues a uniformly random index, refilling it from the last element;
// the bag does the same on a vector of 8-byte references, and keeps the
// elements' bytes in one of two ways:
//   - pooled (every component numeric with a fully defined shape): each
//     element is one slot of a SlotPool (slot_pool.h). EnqueueMany copies
//     its rows into slots it reserved, before taking the queue's lock;
//     DequeueMany takes slots under the lock, copies them into its batch
//     after it, and frees them under the lock again. Nothing is allocated
//     per element, and the enqueued tensors are not kept.
//   - chunks (otherwise): a reference is (chunk, row), a chunk is what one
//     call enqueued, an EnqueueMany batch (row r is element r) or a single
//     element, shared and not copied; it lives while any of its rows is in
//     the bag or taken and not released. DequeueMany gathers row pointers
//     and the buffers they point into, and copies after the lock.
// Thread-compatible; the queue guards it with its lock.

#ifndef INFLOW_QUEUE_ROW_BAG_H_
#define INFLOW_QUEUE_ROW_BAG_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "inflow/core/tensor.h"

#include "queue/slot_pool.h"

namespace inflow::internal {

// Rows taken for one batch: pointers into slots the caller holds until it
// frees `slots`, or (chunks) into buffers that `keep` holds, so they stay
// valid without the queue's lock.
struct GatheredRows {
  size_t rows = 0;
  // Component-major: row r of component c at ptr[c * rows + r].
  std::vector<const char*> ptr;
  // The first row's shapes (every row's when the queue's shapes are
  // fully defined).
  std::vector<TensorShape> row_shapes;
  std::vector<std::shared_ptr<TensorBuffer>> keep;
  // Pooled: the slots the rows are in, to free (RowBag::FreeSlots) once
  // copied.
  std::vector<uint32_t> slots;
};

class RowBag {
 public:
  // A row of a chunk; pooled, `row` is the slot (`chunk` unused).
  struct Ref {
    uint32_t chunk;
    uint32_t row;
  };

  // Chunks of elements of `dtypes`; with `row_shapes` (fully defined, one
  // per component) and no string component, pooled (`capacity`: the
  // queue's).
  RowBag(std::vector<DType> dtypes, std::vector<TensorShape> row_shapes,
         int64_t capacity);
  RowBag(const RowBag&) = delete;
  RowBag& operator=(const RowBag&) = delete;

  bool pooled() const { return pool_ != nullptr; }
  size_t size() const { return refs_.size(); }

  // Chunks: appends rows [first, first + count) of `batch` (every
  // component with at least that many rows in its leading dimension), in
  // order.
  void AppendRows(const Tuple& batch, int64_t first, int64_t count);
  // Pooled: `count` free slots, appended to `slots`, and their rows'
  // bytes, component-major (component c of slot i at dst[c * count + i]).
  void ReserveSlots(size_t count, std::vector<uint32_t>* slots,
                    std::vector<char*>* dst);
  // Pooled: appends the elements in `slots` (reserved and written).
  void AppendSlots(std::span<const uint32_t> slots);
  void FreeSlots(std::span<const uint32_t> slots);
  // Appends one element (moved from only when chunked).
  void Append(Tuple& element);
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
  // Releases taken rows into an empty `out`, in order (pooled: the
  // caller frees out->slots after copying).
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
  const std::vector<DType> dtypes_;
  const std::vector<TensorShape> row_shapes_;
  std::unique_ptr<SlotPool> pool_;  // pooled
  std::vector<Chunk> chunks_;
  std::vector<uint32_t> free_chunks_;
  std::vector<Ref> refs_;
  uint64_t release_calls_ = 0;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_ROW_BAG_H_
