// Copyright 2026 The inflow Authors.
//
// SlotPool: fixed-size slots for the elements of a queue whose components
// are all numeric with fully defined shapes. A slot holds one row of every
// component; slots live in blocks of kBlockSlots that are allocated when
// the free slots run out and kept until the pool is destroyed, so a slot's
// bytes never move and a steady queue allocates nothing. Within a block
// each component's rows are contiguous. Thread-compatible; the queue
// guards it with its lock (a slot's bytes may be written or read outside
// the lock by whoever holds the slot).

#ifndef INFLOW_QUEUE_SLOT_POOL_H_
#define INFLOW_QUEUE_SLOT_POOL_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

namespace inflow::internal {

class SlotPool {
 public:
  // One entry per component: the bytes of its row.
  explicit SlotPool(std::vector<size_t> row_bytes);
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;

  size_t components() const { return row_bytes_.size(); }
  size_t row_bytes(size_t c) const { return row_bytes_[c]; }

  // A free slot (allocating a block if none is free).
  uint32_t Pop();
  void Push(uint32_t slot) { free_.push_back(slot); }

  char* Row(uint32_t slot, size_t c) const {
    return blocks_[slot / kBlockSlots].get() + offset_[c] +
           (slot % kBlockSlots) * row_bytes_[c];
  }

 private:
  static constexpr uint32_t kBlockSlots = 256;
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };

  const std::vector<size_t> row_bytes_;
  // Where each component's rows start in a block, and a block's bytes.
  std::vector<size_t> offset_;
  size_t block_bytes_ = 0;
  std::vector<std::unique_ptr<char[], Free>> blocks_;
  std::vector<uint32_t> free_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_SLOT_POOL_H_
