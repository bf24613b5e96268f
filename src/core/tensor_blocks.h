// Copyright 2026 The inflow Authors.
//
// What the tensor buffer allocator (tensor_buffer.cc) keeps, for tests.

#ifndef INFLOW_SRC_CORE_TENSOR_BLOCKS_H_
#define INFLOW_SRC_CORE_TENSOR_BLOCKS_H_

#include <cstddef>

namespace inflow::internal {

// The small blocks (up to 1 KiB) that the threads' caches passed to the
// shared depot and no thread took back yet. 0 under AddressSanitizer.
size_t SmallBlocksInDepot();
// The medium blocks (above 1 KiB, below BlockCache::kMinBytes) that the
// threads' caches passed to the shared depot and no thread took back yet.
// 0 under AddressSanitizer, which sees every free instead.
size_t MediumBlocksInDepot();

}  // namespace inflow::internal

#endif  // INFLOW_SRC_CORE_TENSOR_BLOCKS_H_
