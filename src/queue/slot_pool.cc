// Copyright 2026 The inflow Authors.

#include "queue/slot_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <utility>

#include "inflow/core/tensor.h"

namespace inflow::internal {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

SlotPool::SlotPool(std::vector<size_t> row_bytes, int64_t capacity)
    : row_bytes_(std::move(row_bytes)) {
  for (size_t bytes : row_bytes_) {
    offset_.push_back(stride_);
    stride_ += RoundUp(bytes, 8);  // every numeric type's alignment
  }
  stride_ = RoundUp(std::max<size_t>(stride_, 1), kTensorAlignment);
  slots_per_block_ =
      std::clamp<size_t>(kHugePage / stride_, 1,
                         static_cast<size_t>(std::max<int64_t>(capacity, 1)));
}

uint32_t SlotPool::Pop() {
  if (free_.empty()) {
    size_t bytes = slots_per_block_ * stride_;
    const bool huge = bytes >= kHugePage / 2;
    if (huge) bytes = RoundUp(bytes, kHugePage);
    char* block = static_cast<char*>(
        std::aligned_alloc(huge ? kHugePage : kTensorAlignment, bytes));
    if (block == nullptr) throw std::bad_alloc();
    // Advice only: without huge pages the pool works the same.
    if (huge) ::madvise(block, bytes, MADV_HUGEPAGE);
    blocks_.emplace_back(block);
    const uint32_t first = static_cast<uint32_t>(slots_.size());
    for (size_t i = 0; i < slots_per_block_; ++i) {
      slots_.push_back(block + i * stride_);
    }
    // Lowest slot on top: a fresh block fills in address order.
    for (size_t i = slots_per_block_; i-- > 0;) {
      free_.push_back(first + static_cast<uint32_t>(i));
    }
  }
  const uint32_t slot = free_.back();
  free_.pop_back();
  return slot;
}

}  // namespace inflow::internal
