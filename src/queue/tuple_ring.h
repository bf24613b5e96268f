// Copyright 2026 The inflow Authors.
//
// TupleRing: a growable ring buffer of Tuples. Push and pop move Tuples in
// and out without allocating once the ring has grown to its working size
// (it never shrinks). Thread-compatible; the queue guards it with its lock.

#ifndef INFLOW_QUEUE_TUPLE_RING_H_
#define INFLOW_QUEUE_TUPLE_RING_H_

#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

#include "inflow/core/tensor.h"

namespace inflow::internal {

class TupleRing {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void PushBack(Tuple&& t) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) & mask_] = std::move(t);
    ++size_;
  }
  void PushFront(Tuple&& t) {
    if (size_ == slots_.size()) Grow();
    head_ = (head_ - 1) & mask_;
    slots_[head_] = std::move(t);
    ++size_;
  }
  // Precondition: !empty().
  Tuple PopFront() {
    assert(size_ > 0);
    Tuple t = std::move(slots_[head_]);
    head_ = (head_ + 1) & mask_;
    --size_;
    return t;
  }

 private:
  void Grow() {
    const size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    std::vector<Tuple> slots(capacity);
    for (size_t i = 0; i < size_; ++i) {
      slots[i] = std::move(slots_[(head_ + i) & mask_]);
    }
    slots_ = std::move(slots);
    head_ = 0;
    mask_ = capacity - 1;
  }

  // The indices first: QueueCore keeps them on its lock's cache line.
  size_t head_ = 0;
  size_t size_ = 0;
  size_t mask_ = 0;
  std::vector<Tuple> slots_;  // size is 0 or a power of two
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_TUPLE_RING_H_
