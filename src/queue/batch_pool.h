// Copyright 2026 The inflow Authors.
//
// BatchPool: recycled buffers for the batches a queue hands out. A batch
// of 128 Fashion-MNIST images is 401 KB of float32; allocated fresh each
// time, glibc returns the memory to the kernel between batches and the
// kernel zeroes every page again on first touch (docs/ARCHITECTURE.md,
// "The copies of a sample"). The pool keeps the buffers of released
// batches and hands them out again, warm.
//
// A buffer goes back to the pool when the last reference to it goes:
// when the consumer (C++, or the NumPy array or torch tensor that shares
// it) drops the batch. A buffer someone still holds is never handed out
// again: Get allocates a new one instead. Buffers outlive the pool (a
// batch kept after its queue is gone stays valid; its memory is then
// freed, not recycled).
//
// Thread-safe.

#ifndef INFLOW_QUEUE_BATCH_POOL_H_
#define INFLOW_QUEUE_BATCH_POOL_H_

#include <cstddef>
#include <memory>

#include "inflow/core/tensor.h"

namespace inflow::internal {

class BatchPool {
 public:
  // Keeps at most `max_free` released buffers of each size; more are
  // freed.
  explicit BatchPool(size_t max_free);
  ~BatchPool();
  BatchPool(const BatchPool&) = delete;
  BatchPool& operator=(const BatchPool&) = delete;

  // A writable buffer of `bytes` bytes (64-byte aligned, contents
  // unspecified): a released one of that size when there is one, else a
  // new one.
  std::shared_ptr<TensorBuffer> Get(size_t bytes);

  // An uninitialized numeric tensor of `dtype` and `shape` over Get's
  // buffer.
  Tensor Uninitialized(DType dtype, const TensorShape& shape);

  // Buffers handed out that were new allocations, and that were reused.
  size_t allocated() const;
  size_t reused() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_BATCH_POOL_H_
