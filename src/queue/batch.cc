// Copyright 2026 The inflow Authors.

#include "queue/batch.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "queue/batch_pool.h"

namespace inflow::internal {
namespace {

// Copies `count` elements; strings are assigned, everything else is bytes.
void CopyValues(DType dtype, const void* src, void* dst, int64_t count) {
  if (count <= 0) return;
  if (dtype == DType::kString) {
    const auto* from = static_cast<const std::string*>(src);
    auto* to = static_cast<std::string*>(dst);
    std::copy(from, from + count, to);
    return;
  }
  std::memcpy(dst, src, static_cast<size_t>(count) * DTypeSize(dtype));
}

size_t ElementBytes(DType dtype) {
  return dtype == DType::kString ? sizeof(std::string) : DTypeSize(dtype);
}

// Copies `element` into the leading corner of `slot_dims` at `dst`.
void CopyIntoCorner(const Tensor& element, const std::vector<int64_t>& slot,
                    char* dst) {
  const DType dtype = element.dtype();
  const size_t esize = ElementBytes(dtype);
  const int rank = element.rank();
  if (element.num_elements() == 0) return;
  if (rank == 0) {
    CopyValues(dtype, element.raw_data(), dst, 1);
    return;
  }
  // Row-major strides (in elements) of the slot.
  std::vector<int64_t> stride(rank, 1);
  for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * slot[d + 1];
  const int64_t row = element.dim_size(rank - 1);
  const char* src = static_cast<const char*>(element.raw_data());
  // Odometer over the element's leading rank-1 dims.
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t offset = 0;
    for (int d = 0; d + 1 < rank; ++d) offset += index[d] * stride[d];
    CopyValues(dtype, src, dst + offset * esize, row);
    src += row * esize;
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < element.dim_size(d)) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
}

// Copies the numeric rows at `rows` to `dst`, one after the other,
// prefetching a few rows ahead.
void CopyRows(std::span<const char* const> rows, size_t row_bytes, char* dst) {
  if (row_bytes == 0) return;
  constexpr size_t kAhead = 4;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + kAhead < rows.size()) {
      const char* next = rows[i + kAhead];
      for (size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(next + b);
    }
    std::memcpy(dst, rows[i], row_bytes);
    dst += row_bytes;
  }
}

}  // namespace

Tensor StackComponent(std::span<const Tuple> elements, int c) {
  const Tensor& first = elements[0][c];
  Tensor out = Tensor::Uninitialized(
      first.dtype(),
      first.shape().Prepend(static_cast<int64_t>(elements.size())));
  const size_t row_bytes = first.num_bytes();
  // `out` was just allocated, so it is writable.
  char* dst = static_cast<char*>(out.mutable_raw_data().value());
  if (first.dtype() == DType::kString) {
    for (const Tuple& e : elements) {
      CopyValues(first.dtype(), e[c].raw_data(), dst, e[c].num_elements());
      dst += row_bytes;
    }
    return out;
  }
  // Rows of a shuffling queue lie anywhere in memory. Finding a row's bytes
  // (element, tensor, buffer) is a chain of cache misses, which a loop that
  // also copies rows would take one at a time; gathered first, the misses
  // of all rows overlap.
  std::vector<const char*> rows(elements.size());
  for (size_t i = 0; i < elements.size(); ++i) {
    rows[i] = static_cast<const char*>(elements[i][c].raw_data());
  }
  CopyRows(rows, row_bytes, dst);
  return out;
}

Tensor PadComponent(std::span<const Tuple> elements, int c, DType dtype,
                    const PartialShape& declared) {
  std::vector<int64_t> slot = declared.dims();
  for (size_t d = 0; d < slot.size(); ++d) {
    if (slot[d] >= 0) continue;
    int64_t largest = 0;
    for (const Tuple& e : elements) {
      largest = std::max(largest, e[c].dim_size(static_cast<int>(d)));
    }
    slot[d] = largest;
  }
  const TensorShape slot_shape(slot);
  Tensor out(dtype, slot_shape.Prepend(static_cast<int64_t>(elements.size())));
  const size_t slot_bytes = slot_shape.num_elements() * ElementBytes(dtype);
  char* dst = static_cast<char*>(out.mutable_raw_data().value());
  for (const Tuple& e : elements) {
    CopyIntoCorner(e[c], slot, dst);
    dst += slot_bytes;
  }
  return out;
}

Tuple MakeBatch(std::span<const Tuple> elements,
                const std::vector<DType>& dtypes,
                const std::vector<PartialShape>& shapes, bool pad) {
  Tuple batch;
  batch.reserve(dtypes.size());
  for (size_t c = 0; c < dtypes.size(); ++c) {
    const int ci = static_cast<int>(c);
    if (pad && !shapes[c].IsFullyDefined()) {
      batch.push_back(PadComponent(elements, ci, dtypes[c], shapes[c]));
    } else if (elements.empty()) {
      batch.emplace_back(dtypes[c], shapes[c].AsTensorShape().Prepend(0));
    } else {
      batch.push_back(StackComponent(elements, ci));
    }
  }
  return batch;
}

Tuple StackGathered(const GatheredRows& rows, const std::vector<DType>& dtypes,
                    BatchPool* pool) {
  Tuple batch;
  batch.reserve(dtypes.size());
  for (size_t c = 0; c < dtypes.size(); ++c) {
    const TensorShape& row_shape = rows.row_shapes[c];
    const TensorShape shape =
        row_shape.Prepend(static_cast<int64_t>(rows.rows));
    Tensor out = pool != nullptr && dtypes[c] != DType::kString
                     ? pool->Uninitialized(dtypes[c], shape)
                     : Tensor::Uninitialized(dtypes[c], shape);
    const std::span<const char* const> from(&rows.ptr[c * rows.rows],
                                            rows.rows);
    // `out` was just allocated or taken from the pool: writable, and no
    // one else holds it.
    char* dst = static_cast<char*>(out.mutable_raw_data().value());
    if (dtypes[c] == DType::kString) {
      const int64_t count = row_shape.num_elements();
      const size_t row_bytes = static_cast<size_t>(count) * sizeof(std::string);
      for (const char* row : from) {
        CopyValues(dtypes[c], row, dst, count);
        dst += row_bytes;
      }
    } else {
      CopyRows(
          from,
          static_cast<size_t>(row_shape.num_elements()) * DTypeSize(dtypes[c]),
          dst);
    }
    batch.push_back(std::move(out));
  }
  return batch;
}

Status CheckInPlace(const std::vector<DType>& dtypes,
                    const std::vector<PartialShape>& shapes,
                    const std::string& queue) {
  if (shapes.size() != dtypes.size()) {
    return InvalidArgumentError(
        queue + ": enqueue_many in place needs a queue with shapes");
  }
  for (size_t c = 0; c < dtypes.size(); ++c) {
    if (dtypes[c] == DType::kString || !shapes[c].IsFullyDefined()) {
      return InvalidArgumentError(
          queue + ": enqueue_many in place needs numeric components of " +
          "fully defined shapes, but component " + std::to_string(c) + " is " +
          std::string(DTypeName(dtypes[c])) + " " + shapes[c].DebugString());
    }
  }
  return OkStatus();
}

size_t RowBytes(const std::vector<DType>& dtypes,
                const std::vector<PartialShape>& shapes) {
  size_t bytes = 0;
  for (size_t c = 0; c < dtypes.size(); ++c) {
    bytes += static_cast<size_t>(shapes[c].AsTensorShape().num_elements()) *
             DTypeSize(dtypes[c]);
  }
  return bytes;
}

Result<bool> StartInPlace(const std::vector<DType>& dtypes,
                          const std::vector<PartialShape>& shapes, int64_t rows,
                          const CallOptions& options,
                          const std::string& queue) {
  INFLOW_RETURN_IF_ERROR(CheckInPlace(dtypes, shapes, queue));
  if (rows < 0) {
    return InvalidArgumentError(queue + ": enqueue_many of " +
                                std::to_string(rows) + " rows");
  }
  if (rows == 0) return false;  // even on a closed queue, as TF
  if (options.stop.stop_requested()) {
    return CancelledError("Enqueue operation was cancelled");
  }
  return true;
}

RowWriter CopyRowsOf(const Tuple& batch, int64_t rows) {
  return [&batch, rows](std::span<char* const> dst) {
    const size_t n = static_cast<size_t>(rows);
    for (size_t c = 0; c < batch.size(); ++c) {
      const char* src = static_cast<const char*>(batch[c].raw_data());
      const size_t row_bytes = batch[c].num_bytes() / n;
      if (row_bytes == 0) continue;
      char* const* to = &dst[c * n];
      for (size_t r = 0; r < n; ++r, src += row_bytes) {
        std::memcpy(to[r], src, row_bytes);
      }
    }
    return OkStatus();
  };
}

Result<Tuple> WriteNewBatch(const std::vector<DType>& dtypes,
                            const std::vector<PartialShape>& shapes,
                            int64_t rows, const RowWriter& write) {
  const size_t n = static_cast<size_t>(rows);
  Tuple batch;
  batch.reserve(dtypes.size());
  std::vector<char*> to(dtypes.size() * n);
  for (size_t c = 0; c < dtypes.size(); ++c) {
    const TensorShape row_shape = shapes[c].AsTensorShape();
    Tensor t = Tensor::Uninitialized(dtypes[c], row_shape.Prepend(rows));
    // Just allocated, so writable.
    char* base = static_cast<char*>(t.mutable_raw_data().value());
    const size_t row_bytes =
        static_cast<size_t>(row_shape.num_elements()) * DTypeSize(dtypes[c]);
    for (size_t r = 0; r < n; ++r) to[c * n + r] = base + r * row_bytes;
    batch.push_back(std::move(t));
  }
  INFLOW_RETURN_IF_ERROR(write(to));
  return batch;
}

}  // namespace inflow::internal
