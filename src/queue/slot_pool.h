// Copyright 2026 The inflow Authors.
//
// SlotPool: fixed-size slots for the elements of a queue whose components
// are all numeric with fully defined shapes. A slot holds one row of every
// component, one after the other. Slots live in blocks that are allocated
// when the free slots run out and kept until the pool is destroyed, so a
// slot's bytes never move and a steady queue allocates nothing. Blocks of
// 2 MiB or more are 2 MiB-aligned and asked to be backed by huge pages: a
// shuffling queue reads and writes its slots in random order, and with
// 4 KiB pages nearly every row would miss the TLB. Thread-compatible; the
// queue guards it with its lock (a slot's bytes may be written or read
// outside the lock by whoever holds the slot).

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
  // One entry per component: the bytes of its row. `capacity` (the
  // queue's) bounds the slots of one block.
  SlotPool(std::vector<size_t> row_bytes, int64_t capacity);
  SlotPool(const SlotPool&) = delete;
  SlotPool& operator=(const SlotPool&) = delete;

  size_t components() const { return row_bytes_.size(); }
  size_t row_bytes(size_t c) const { return row_bytes_[c]; }

  // A free slot (allocating a block if none is free).
  uint32_t Pop();
  void Push(uint32_t slot) { free_.push_back(slot); }

  char* Row(uint32_t slot, size_t c) const { return slots_[slot] + offset_[c]; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };

  const std::vector<size_t> row_bytes_;
  // Where each component's row starts in a slot; a slot's bytes.
  std::vector<size_t> offset_;
  size_t stride_ = 0;
  size_t slots_per_block_ = 0;
  std::vector<std::unique_ptr<char[], Free>> blocks_;
  std::vector<char*> slots_;  // every slot's first byte
  std::vector<uint32_t> free_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_SLOT_POOL_H_
