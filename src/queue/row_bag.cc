// Copyright 2026 The inflow Authors.

#include "queue/row_bag.h"

#include <cassert>
#include <cstring>
#include <utility>

namespace inflow::internal {

RowBag::RowBag(std::vector<DType> dtypes, std::vector<TensorShape> row_shapes,
               int64_t capacity)
    : components_(dtypes.size()),
      dtypes_(std::move(dtypes)),
      row_shapes_(std::move(row_shapes)) {
  if (row_shapes_.size() != components_) return;
  std::vector<size_t> row_bytes;
  for (size_t c = 0; c < components_; ++c) {
    if (dtypes_[c] == DType::kString) return;
    row_bytes.push_back(static_cast<size_t>(row_shapes_[c].num_elements()) *
                        DTypeSize(dtypes_[c]));
  }
  pool_ = std::make_unique<SlotPool>(std::move(row_bytes), capacity);
}

void RowBag::ReserveSlots(size_t count, std::vector<uint32_t>* slots,
                          std::vector<char*>* dst) {
  const size_t start = slots->size();
  for (size_t i = 0; i < count; ++i) slots->push_back(pool_->Pop());
  dst->resize(components_ * count);
  for (size_t c = 0; c < components_; ++c) {
    for (size_t i = 0; i < count; ++i) {
      (*dst)[c * count + i] = pool_->Row((*slots)[start + i], c);
    }
  }
}

void RowBag::AppendSlots(std::span<const uint32_t> slots) {
  for (const uint32_t slot : slots) refs_.push_back({0, slot});
}

void RowBag::FreeSlots(std::span<const uint32_t> slots) {
  for (const uint32_t slot : slots) pool_->Push(slot);
}

uint32_t RowBag::NewChunk(int64_t held) {
  uint32_t id;
  if (!free_chunks_.empty()) {
    id = free_chunks_.back();
    free_chunks_.pop_back();
  } else {
    id = static_cast<uint32_t>(chunks_.size());
    chunks_.emplace_back();
  }
  Chunk& chunk = chunks_[id];
  chunk.held = held;
  chunk.base.resize(components_);
  chunk.row_bytes.resize(components_);
  return id;
}

void RowBag::Unhold(uint32_t id) {
  Chunk& chunk = chunks_[id];
  assert(chunk.held > 0);
  if (--chunk.held > 0) return;
  chunk.tensors.clear();  // keeps the vectors' capacity for the next chunk
  free_chunks_.push_back(id);
}

void RowBag::AppendRows(const Tuple& batch, int64_t first, int64_t count) {
  if (count <= 0) return;
  const uint32_t id = NewChunk(count);
  Chunk& chunk = chunks_[id];
  chunk.batched = true;
  chunk.tensors = batch;
  for (size_t c = 0; c < components_; ++c) {
    const Tensor& t = chunk.tensors[c];
    const int64_t rows = t.dim_size(0);
    chunk.row_bytes[c] = rows == 0 ? 0 : t.num_bytes() / rows;
    chunk.base[c] = static_cast<const char*>(t.raw_data());
  }
  for (int64_t r = first; r < first + count; ++r) {
    refs_.push_back({id, static_cast<uint32_t>(r)});
  }
}

void RowBag::Append(Tuple& element) {
  if (pooled()) {
    const uint32_t slot = pool_->Pop();
    for (size_t c = 0; c < components_; ++c) {
      const size_t bytes = pool_->row_bytes(c);
      if (bytes > 0)
        std::memcpy(pool_->Row(slot, c), element[c].raw_data(), bytes);
    }
    refs_.push_back({0, slot});
    return;
  }
  const uint32_t id = NewChunk(1);
  Chunk& chunk = chunks_[id];
  chunk.batched = false;
  chunk.tensors = std::move(element);
  for (size_t c = 0; c < components_; ++c) {
    const Tensor& t = chunk.tensors[c];
    chunk.row_bytes[c] = t.num_bytes();
    chunk.base[c] = static_cast<const char*>(t.raw_data());
  }
  refs_.push_back({id, 0});
}

Tuple RowBag::Release(Ref ref) {
  if (pooled()) {
    Tuple element;
    element.reserve(components_);
    for (size_t c = 0; c < components_; ++c) {
      Tensor t = Tensor::Uninitialized(dtypes_[c], row_shapes_[c]);
      const size_t bytes = pool_->row_bytes(c);
      if (bytes > 0) {
        // Just allocated, so writable.
        std::memcpy(t.mutable_raw_data().value(), pool_->Row(ref.row, c),
                    bytes);
      }
      element.push_back(std::move(t));
    }
    pool_->Push(ref.row);
    return element;
  }
  Chunk& chunk = chunks_[ref.chunk];
  Tuple element;
  if (!chunk.batched) {
    // Its only row: the element itself.
    element = std::move(chunk.tensors);
    chunk.tensors = Tuple();
  } else {
    element.reserve(components_);
    for (const Tensor& t : chunk.tensors)
      element.push_back(t.SubTensor(ref.row));
  }
  Unhold(ref.chunk);
  return element;
}

void RowBag::ReleaseInto(std::span<const Ref> refs, GatheredRows* out) {
  assert(out->rows == 0);
  if (refs.empty()) return;
  const size_t rows = refs.size();
  out->rows = rows;
  out->ptr.resize(components_ * rows);
  if (pooled()) {
    out->row_shapes = row_shapes_;
    out->slots.resize(rows);
    for (size_t i = 0; i < rows; ++i) out->slots[i] = refs[i].row;
    for (size_t c = 0; c < components_; ++c) {
      for (size_t i = 0; i < rows; ++i) {
        out->ptr[c * rows + i] = pool_->Row(refs[i].row, c);
      }
    }
    return;
  }
  ++release_calls_;
  const Chunk& first = chunks_[refs[0].chunk];
  out->row_shapes.clear();
  for (const Tensor& t : first.tensors) {
    TensorShape shape = t.shape();
    if (first.batched) shape.RemoveDim(0);
    out->row_shapes.push_back(std::move(shape));
  }
  for (size_t i = 0; i < rows; ++i) {
    const Ref ref = refs[i];
    Chunk& chunk = chunks_[ref.chunk];
    if (chunk.kept_by != release_calls_) {
      chunk.kept_by = release_calls_;
      for (const Tensor& t : chunk.tensors) {
        if (t.buffer() != nullptr) out->keep.push_back(t.buffer());
      }
    }
    for (size_t c = 0; c < components_; ++c) {
      out->ptr[c * rows + i] =
          chunk.base[c] + static_cast<size_t>(ref.row) * chunk.row_bytes[c];
    }
    Unhold(ref.chunk);
  }
}

}  // namespace inflow::internal
