// Copyright 2026 The inflow Authors.
//
// BatchPool: recycled buffers for the batches a RandomShuffleQueue gathers
// (StackGathered, batch.h). A batch of 128 Fashion-MNIST images is 401 KB
// of float32; allocated fresh each time, the allocator may give the memory
// back to the kernel between batches, and the kernel then zeroes every
// page again on first touch (docs/ARCHITECTURE.md, "The copies of a
// sample"). The process-wide BlockCache (core/block_cache.h) recycles
// large blocks too, but shares its 16 blocks with every other tensor; the
// pool is the queue's own and sized by its capacity. It keeps the buffers
// of dropped batches and hands them out again, so that once warm no batch
// touches a fresh page.
//
// Ownership. Get hands out a buffer that its tensors own: the pool keeps
// no reference to it. The buffer comes back when the last reference to it
// goes, that is when the consumer (C++, or the NumPy array or torch tensor
// that shares it) drops the batch and every view of it. A buffer someone
// still holds is never handed out again: Get allocates a new one instead,
// so a consumer may keep any batch for as long as it likes. Buffers
// outlive the pool: one dropped after the pool is gone is freed.
//
// Bound. A released buffer of b bytes (rounded up to kTensorAlignment) is
// kept when the kept buffers' bytes, with it, stay within
// max(max_free_bytes, kMinFreePerSize * b); otherwise it is freed. The
// queue passes its own storage, capacity times an element's bytes, so the
// idle buffers never take more memory than a full queue does. The second
// term lets a batch larger than half of that (a DequeueMany of nearly the
// capacity or more) still be recycled: kMinFreePerSize of its size are kept
// when the pool holds nothing else. So the kept bytes never exceed
// max(max_free_bytes, kMinFreePerSize * the largest buffer released), and
// (whatever the bound, as for an unbounded queue) the kept buffers of a
// size never outnumber the most the consumer held at once. Get takes the
// most recently released buffer of the size (the warmest).
//
// Thread-safe. No other lock is taken under the pool's, so a buffer may be
// dropped under any lock.

#ifndef INFLOW_QUEUE_BATCH_POOL_H_
#define INFLOW_QUEUE_BATCH_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::internal {

class BatchPool {
 public:
  // Buffers of one size kept however small max_free_bytes is, when the
  // pool keeps no other size (see "Bound" above).
  static constexpr size_t kMinFreePerSize = 2;

  // Counts, read at one instant (for tests and diagnostics).
  struct Stats {
    // Buffers Get handed out: new allocations, and released ones reused.
    uint64_t allocated = 0;
    uint64_t reused = 0;
    // Released buffers kept now, and their (rounded) bytes.
    size_t free_buffers = 0;
    size_t free_bytes = 0;
  };

  explicit BatchPool(size_t max_free_bytes);
  // Frees the kept buffers; buffers still held are freed when dropped.
  ~BatchPool();
  BatchPool(const BatchPool&) = delete;
  BatchPool& operator=(const BatchPool&) = delete;

  // A writable buffer of `bytes` bytes (kTensorAlignment-aligned, contents
  // unspecified): the most recently released one of that rounded size
  // when one is kept, else a new one. Aborts, as operator new would
  // without throwing, when memory runs out.
  std::shared_ptr<TensorBuffer> Get(size_t bytes);

  // An uninitialized tensor of numeric `dtype` and `shape` over Get's
  // buffer.
  Tensor Uninitialized(DType dtype, const TensorShape& shape);

  Stats stats() const;

 private:
  struct State;
  // Shared with the release callback of every buffer handed out.
  const std::shared_ptr<State> state_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_BATCH_POOL_H_
