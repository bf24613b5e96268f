// Copyright 2026 The inflow Authors.

#include "queue/row_bag.h"

#include <cassert>
#include <utility>

namespace inflow::internal {

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

void RowBag::Append(Tuple&& element) {
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
  ++release_calls_;
  const Chunk& first = chunks_[refs[0].chunk];
  out->row_shapes.clear();
  for (const Tensor& t : first.tensors) {
    TensorShape shape = t.shape();
    if (first.batched) shape.RemoveDim(0);
    out->row_shapes.push_back(std::move(shape));
  }
  const size_t rows = refs.size();
  out->rows = rows;
  out->ptr.resize(components_ * rows);
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
