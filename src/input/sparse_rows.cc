// Copyright 2026 The inflow Authors.

#include "input/sparse_rows.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace inflow::internal {
namespace {

std::string Dims(std::span<const int64_t> dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

// TF's SparseTensor::IndicesValid: every index inside `shape`, the rows in
// strictly increasing lexicographic order.
Status CheckIndicesValid(const Tensor& indices,
                         std::span<const int64_t> shape) {
  const int64_t n = indices.dim_size(0);
  const int64_t r = indices.dim_size(1);
  const int64_t* ix = indices.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const std::span<const int64_t> row(ix + i * r, static_cast<size_t>(r));
    for (int64_t d = 0; d < r; ++d) {
      if (row[d] < 0 || row[d] >= shape[d]) {
        return InvalidArgumentError(
            "indices[" + std::to_string(i) + "] = " + Dims(row) +
            " is out of bounds: need 0 <= index < " + Dims(shape));
      }
    }
    if (i == 0) continue;
    const int64_t* prev = ix + (i - 1) * r;
    int cmp = 0;
    for (int64_t d = 0; d < r && cmp == 0; ++d) {
      cmp = row[d] < prev[d] ? -1 : row[d] > prev[d] ? 1 : 0;
    }
    if (cmp < 0) {
      return InvalidArgumentError(
          "indices[" + std::to_string(i) + "] = " + Dims(row) +
          " is out of order. Many sparse ops require sorted indices.");
    }
    if (cmp == 0) {
      return InvalidArgumentError("indices[" + std::to_string(i) +
                                  "] = " + Dims(row) + " is repeated");
    }
  }
  return OkStatus();
}

}  // namespace

SparseRows::SparseRows(std::vector<Component> components, bool enqueue_many,
                       std::string where)
    : components_(std::move(components)),
      enqueue_many_(enqueue_many),
      where_(std::move(where)) {
  for (const Component& c : components_) flat_size_ += c.sparse ? 3 : 1;
}

size_t SparseRows::size() const {
  MutexLock lock(&mu_);
  return rows_.size();
}

int64_t SparseRows::Put(std::vector<Row> rows) {
  MutexLock lock(&mu_);
  const int64_t first = next_handle_;
  for (Row& row : rows) rows_.emplace(next_handle_++, std::move(row));
  return first;
}

Result<Tuple> SparseRows::Store(Tuple output, bool row_extents) {
  if (output.size() != flat_size_) {
    return InvalidArgumentError(
        where_ + ": the step gave " + std::to_string(output.size()) +
        " tensors, expected " + std::to_string(flat_size_) +
        " (three per SparseTensor)");
  }
  Tuple queued;
  queued.reserve(components_.size());
  size_t t = 0;
  for (size_t c = 0; c < components_.size(); ++c) {
    if (!components_[c].sparse) {
      queued.push_back(std::move(output[t++]));
      continue;
    }
    Result<Tensor> handles =
        enqueue_many_
            ? StoreMany(output[t], output[t + 1], output[t + 2], c, row_extents)
            : StoreOne(output[t], output[t + 1], output[t + 2], c);
    t += 3;
    if (!handles.ok()) {
      Release(queued);
      return handles.status();
    }
    queued.push_back(std::move(handles).value());
  }
  return queued;
}

namespace {

// TF's checks of AddSparseToTensorsMap and SparseTensor::Create; the
// dense shape on success.
Result<std::vector<int64_t>> CheckSparse(const Tensor& indices,
                                         const Tensor& values,
                                         const Tensor& dense_shape, DType dtype,
                                         int rank) {
  if (indices.dtype() != DType::kInt64 || indices.rank() != 2) {
    return InvalidArgumentError(
        "Input indices should be an int64 matrix but received " +
        std::string(DTypeName(indices.dtype())) + " " +
        indices.shape().DebugString());
  }
  if (values.rank() != 1) {
    return InvalidArgumentError(
        "Input values should be a vector but received shape " +
        values.shape().DebugString());
  }
  if (values.dtype() != dtype) {
    return InvalidArgumentError(
        "Input values should be " + std::string(DTypeName(dtype)) +
        " but received " + std::string(DTypeName(values.dtype())));
  }
  if (dense_shape.dtype() != DType::kInt64 || dense_shape.rank() != 1) {
    return InvalidArgumentError(
        "Input shape should be an int64 vector but received " +
        std::string(DTypeName(dense_shape.dtype())) + " " +
        dense_shape.shape().DebugString());
  }
  if (indices.dim_size(0) != values.dim_size(0)) {
    return InvalidArgumentError(
        "indices and values rows (indexing dimension) must match. "
        "(indices = " +
        std::to_string(indices.dim_size(0)) +
        ", values = " + std::to_string(values.dim_size(0)) + ")");
  }
  if (indices.dim_size(1) != dense_shape.dim_size(0)) {
    return InvalidArgumentError(
        "Shape rank must be SparseTensor rank: indices have " +
        std::to_string(indices.dim_size(1)) + " columns, dense_shape " +
        std::to_string(dense_shape.dim_size(0)) + " dims");
  }
  if (rank >= 0 && dense_shape.dim_size(0) != rank) {
    return InvalidArgumentError("the SparseTensor has rank " +
                                std::to_string(dense_shape.dim_size(0)) +
                                ", declared " + std::to_string(rank));
  }
  std::vector<int64_t> shape(dense_shape.flat<int64_t>().begin(),
                             dense_shape.flat<int64_t>().end());
  for (int64_t d : shape) {
    if (d < 0) {
      return InvalidArgumentError("Dimension " + std::to_string(d) +
                                  " must be >= 0");
    }
  }
  return shape;
}

}  // namespace

Result<Tensor> SparseRows::StoreOne(const Tensor& indices, const Tensor& values,
                                    const Tensor& dense_shape, size_t c) {
  const Component& comp = components_[c];
  Result<std::vector<int64_t>> shape =
      CheckSparse(indices, values, dense_shape, comp.dtype, comp.rank);
  if (!shape.ok()) {
    return shape.status().WithContext(where_ + ": SparseTensor component " +
                                      std::to_string(c));
  }
  auto chunk = std::make_shared<Chunk>();
  chunk->indices = indices;
  chunk->values = values;
  chunk->rank = static_cast<int>(shape->size());
  chunk->shapes = std::move(*shape);
  std::vector<Row> rows(1);
  rows[0] = Row{std::move(chunk), 0, indices.dim_size(0), 0};
  return Tensor::FromVector<int64_t>({Put(std::move(rows))});
}

Result<Tensor> SparseRows::StoreMany(const Tensor& indices,
                                     const Tensor& values,
                                     const Tensor& dense_shape, size_t c,
                                     bool row_extents) {
  const Component& comp = components_[c];
  const std::string context =
      where_ + ": SparseTensor component " + std::to_string(c);
  Result<std::vector<int64_t>> shape =
      CheckSparse(indices, values, dense_shape, comp.dtype,
                  comp.rank >= 0 ? comp.rank + 1 : -1);
  if (!shape.ok()) return shape.status().WithContext(context);
  const int64_t rank = static_cast<int64_t>(shape->size());
  if (rank < 2) {
    return InvalidArgumentError(
        context + ": Rank of input SparseTensor should be > 1, but saw rank: " +
        std::to_string(rank));
  }
  Status valid = CheckIndicesValid(indices, *shape);
  if (!valid.ok()) return valid.WithContext(context);

  const int64_t n = (*shape)[0];
  const int64_t nnz = indices.dim_size(0);
  const int64_t* ix = indices.data<int64_t>();
  auto chunk = std::make_shared<Chunk>();
  chunk->indices = indices;
  chunk->values = values;
  chunk->first_col = 1;
  chunk->rank = static_cast<int>(rank - 1);
  chunk->shared_shape = !row_extents;
  if (row_extents) {
    chunk->shapes.assign(static_cast<size_t>(n * (rank - 1)), 0);
  } else {
    chunk->shapes.assign(shape->begin() + 1, shape->end());
  }
  std::vector<Row> rows(static_cast<size_t>(n));
  int64_t e = 0;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t begin = e;
    int64_t* extent =
        row_extents ? chunk->shapes.data() + r * (rank - 1) : nullptr;
    while (e < nnz && ix[e * rank] == r) {
      if (extent != nullptr) {
        for (int64_t d = 1; d < rank; ++d) {
          extent[d - 1] = std::max(extent[d - 1], ix[e * rank + d] + 1);
        }
      }
      ++e;
    }
    rows[static_cast<size_t>(r)] = Row{chunk, begin, e, r};
  }
  const int64_t first = Put(std::move(rows));
  Tensor handles(DType::kInt64, TensorShape({n, 1}));
  std::span<int64_t> h = handles.mutable_flat<int64_t>().value();
  for (int64_t r = 0; r < n; ++r) h[r] = first + r;
  return handles;
}

void SparseRows::Release(const Tuple& queued, const bool* keep) {
  // Destroyed after the lock is released.
  std::vector<Row> dropped;
  {
    MutexLock lock(&mu_);
    for (size_t c = 0; c < components_.size() && c < queued.size(); ++c) {
      if (!components_[c].sparse) continue;
      const Tensor& handles = queued[c];
      if (handles.dtype() != DType::kInt64) continue;
      const std::span<const int64_t> h = handles.flat<int64_t>();
      for (size_t r = 0; r < h.size(); ++r) {
        if (keep != nullptr && keep[r]) continue;
        auto it = rows_.find(h[r]);
        if (it == rows_.end()) continue;
        dropped.push_back(std::move(it->second));
        rows_.erase(it);
      }
    }
  }
}

Result<Tuple> SparseRows::Take(Tuple dequeued) {
  Tuple batch;
  batch.reserve(flat_size_);
  Status first_error;
  for (size_t c = 0; c < components_.size(); ++c) {
    if (!components_[c].sparse) {
      batch.push_back(std::move(dequeued[c]));
      continue;
    }
    // Every component's rows are taken, also after an error (TF's
    // TakeManySparseFromTensorsMap clears them before it checks).
    Result<Tuple> sparse = TakeComponent(dequeued[c], c);
    if (!sparse.ok()) {
      if (first_error.ok()) first_error = sparse.status();
      continue;
    }
    for (Tensor& t : *sparse) batch.push_back(std::move(t));
  }
  if (!first_error.ok()) return first_error;
  return batch;
}

Result<Tuple> SparseRows::TakeComponent(const Tensor& handles, size_t c) {
  const std::span<const int64_t> h = handles.flat<int64_t>();
  const int64_t n = static_cast<int64_t>(h.size());
  std::vector<Row> rows;
  rows.reserve(h.size());
  {
    MutexLock lock(&mu_);
    for (int64_t handle : h) {
      auto it = rows_.find(handle);
      if (it == rows_.end()) {
        return InternalError(where_ + ": no SparseTensor under handle " +
                             std::to_string(handle));
      }
      rows.push_back(std::move(it->second));
      rows_.erase(it);
    }
  }
  const std::string context =
      where_ + ": SparseTensor component " + std::to_string(c);
  const size_t rank = rows.empty() ? 0 : rows[0].shape().size();
  std::vector<int64_t> shape(rank + 1, 0);
  shape[0] = n;
  int64_t nnz = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::span<const int64_t> row_shape = rows[i].shape();
    if (row_shape.size() != rank) {
      return InvalidArgumentError(
          context +
          ": Inconsistent rank across SparseTensors: rank prior to "
          "SparseTensor[" +
          std::to_string(i) + "] was: " + std::to_string(rank + 1) +
          " but rank of SparseTensor[" + std::to_string(i) +
          "] is: " + std::to_string(row_shape.size() + 1));
    }
    for (size_t d = 0; d < rank; ++d) {
      shape[d + 1] = std::max(shape[d + 1], row_shape[d]);
    }
    nnz += rows[i].end - rows[i].begin;
  }

  // One copy of each row's entries into the batch's tensors.
  const DType dtype = components_[c].dtype;
  const int64_t cols = static_cast<int64_t>(rank) + 1;
  Tensor indices =
      Tensor::Uninitialized(DType::kInt64, TensorShape({nnz, cols}));
  Tensor values = Tensor::Uninitialized(dtype, TensorShape({nnz}));
  int64_t* out = indices.mutable_flat<int64_t>().value().data();
  char* out_values = static_cast<char*>(values.mutable_raw_data().value());
  const size_t value_size = dtype == DType::kString ? 0 : DTypeSize(dtype);
  int64_t at = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const Chunk& chunk = *row.chunk;
    const int64_t in_cols = chunk.indices.dim_size(1);
    const int64_t* in = chunk.indices.data<int64_t>();
    for (int64_t e = row.begin; e < row.end; ++e) {
      *out++ = static_cast<int64_t>(i);
      std::memcpy(out, in + e * in_cols + chunk.first_col,
                  sizeof(int64_t) * rank);
      out += rank;
    }
    const int64_t count = row.end - row.begin;
    if (dtype == DType::kString) {
      const std::string* from = chunk.values.data<std::string>() + row.begin;
      std::copy(from, from + count,
                reinterpret_cast<std::string*>(out_values) + at);
    } else if (count > 0) {
      std::memcpy(out_values + at * value_size,
                  static_cast<const char*>(chunk.values.raw_data()) +
                      row.begin * value_size,
                  static_cast<size_t>(count) * value_size);
    }
    at += count;
  }
  Tuple result;
  result.push_back(std::move(indices));
  result.push_back(std::move(values));
  result.push_back(Tensor::FromVector(shape));
  return result;
}

}  // namespace inflow::internal
