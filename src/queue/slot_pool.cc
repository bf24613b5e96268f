// Copyright 2026 The inflow Authors.

#include "queue/slot_pool.h"

#include <new>
#include <utility>

#include "inflow/core/tensor.h"

namespace inflow::internal {
namespace {

size_t RoundUp(size_t n) {
  return (n + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

}  // namespace

SlotPool::SlotPool(std::vector<size_t> row_bytes)
    : row_bytes_(std::move(row_bytes)) {
  for (size_t bytes : row_bytes_) {
    offset_.push_back(block_bytes_);
    block_bytes_ += RoundUp(bytes * kBlockSlots);
  }
  if (block_bytes_ == 0) block_bytes_ = kTensorAlignment;
}

uint32_t SlotPool::Pop() {
  if (free_.empty()) {
    char* block =
        static_cast<char*>(std::aligned_alloc(kTensorAlignment, block_bytes_));
    if (block == nullptr) throw std::bad_alloc();
    blocks_.emplace_back(block);
    const uint32_t first =
        static_cast<uint32_t>(blocks_.size() - 1) * kBlockSlots;
    // Lowest slot on top: a fresh block fills in address order.
    for (uint32_t i = kBlockSlots; i-- > 0;) free_.push_back(first + i);
  }
  const uint32_t slot = free_.back();
  free_.pop_back();
  return slot;
}

}  // namespace inflow::internal
