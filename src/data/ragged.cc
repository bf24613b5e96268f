// Copyright 2026 The inflow Authors.
//
// RaggedBatch and SparseBatch (tf.data's ragged_batch and sparse_batch):
// batches of elements whose first dimension varies (a VarLen feature's
// values, a line's tokens). Both keep Batch's iterator (its state, and its
// check that every row has as many components as the first) and change
// how the rows are put together: ragged, each component as
// {values: the rows concatenated, row_splits: int64 [rows + 1]} (a scalar
// component as {its values stacked, an empty row_splits}); sparse, one
// component as {indices int64 [n, rank + 1], values [n], dense_shape int64
// [rank + 1]}, row-major, the dense shape [rows, row_shape...].

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "data/dataset_base.h"

namespace inflow::data::internal {
namespace {

// The rows of component c: one dtype and rank, and the same dimensions
// after the first.
Status CheckSameInner(const std::vector<Tensor>& rows, size_t c) {
  const Tensor& first = rows[0];
  for (size_t i = 0; i < rows.size(); ++i) {
    const Tensor& t = rows[i];
    if (t.dtype() != first.dtype() || t.rank() != first.rank()) {
      return InvalidArgumentError("component " + std::to_string(c) + ": row " +
                                  std::to_string(i) +
                                  " differs from row 0 in dtype or rank");
    }
    for (int d = 1; d < t.rank(); ++d) {
      if (t.dim_size(d) != first.dim_size(d)) {
        return InvalidArgumentError("component " + std::to_string(c) +
                                    ": row " + std::to_string(i) +
                                    " has shape " + t.shape().DebugString() +
                                    ", row 0 " + first.shape().DebugString() +
                                    " (only the first dimension may differ)");
      }
    }
  }
  return OkStatus();
}

Result<Tuple> Ragged(std::vector<Tuple> rows) {
  Tuple out;
  const size_t components = rows[0].size();
  std::vector<Tensor> column(rows.size());
  for (size_t c = 0; c < components; ++c) {
    for (size_t i = 0; i < rows.size(); ++i) column[i] = std::move(rows[i][c]);
    if (column[0].rank() == 0) {
      Result<Tensor> stacked = Tensor::Stack(column);
      if (!stacked.ok()) {
        return stacked.status().WithContext("component " + std::to_string(c));
      }
      out.push_back(std::move(stacked).value());
      out.push_back(Tensor(DType::kInt64, TensorShape({0})));
      continue;
    }
    INFLOW_RETURN_IF_ERROR(CheckSameInner(column, c));
    Tensor splits(DType::kInt64,
                  TensorShape({static_cast<int64_t>(column.size() + 1)}));
    std::span<int64_t> s = splits.mutable_flat<int64_t>().value();
    s[0] = 0;
    for (size_t i = 0; i < column.size(); ++i) {
      s[i + 1] = s[i] + column[i].dim_size(0);
    }
    Result<Tensor> values = Tensor::Concat(column);
    if (!values.ok()) {
      return values.status().WithContext("component " + std::to_string(c));
    }
    out.push_back(std::move(values).value());
    out.push_back(std::move(splits));
  }
  return out;
}

Result<Tuple> Sparse(std::vector<Tuple> rows,
                     const std::vector<int64_t>& row_shape) {
  const int rank = static_cast<int>(row_shape.size());
  std::vector<int64_t> dense(row_shape);
  int64_t n = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != 1) {
      return InvalidArgumentError("element " + std::to_string(i) + " has " +
                                  std::to_string(rows[i].size()) +
                                  " components: sparse_batch takes one");
    }
    const Tensor& t = rows[i][0];
    if (t.rank() != rank || t.dtype() != rows[0][0].dtype()) {
      return InvalidArgumentError(
          "element " + std::to_string(i) + " has rank " +
          std::to_string(t.rank()) + " (dtype " +
          std::string(DTypeName(t.dtype())) + "), the row shape rank " +
          std::to_string(rank));
    }
    for (int d = 0; d < rank; ++d) {
      if (row_shape[d] >= 0 && t.dim_size(d) > row_shape[d]) {
        // TF's code and words.
        std::string row = "[";
        for (int k = 0; k < rank; ++k) {
          if (k > 0) row += ',';
          row += std::to_string(row_shape[k]);
        }
        return DataLossError(
            "Input element had shape (" + t.shape().DebugString() +
            ") that is larger than the row shape (" + row + "]).");
      }
      if (row_shape[d] < 0) dense[d] = std::max(dense[d], t.dim_size(d));
    }
    n += t.num_elements();
  }
  for (int64_t& d : dense) d = std::max<int64_t>(d, 0);
  Tensor indices(DType::kInt64, TensorShape({n, rank + 1}));
  std::span<int64_t> ix = indices.mutable_flat<int64_t>().value();
  std::vector<Tensor> flat;
  flat.reserve(rows.size());
  int64_t at = 0;
  std::vector<int64_t> pos(rank);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Tensor& t = rows[i][0];
    std::fill(pos.begin(), pos.end(), 0);
    for (int64_t e = 0; e < t.num_elements(); ++e) {
      ix[at * (rank + 1)] = static_cast<int64_t>(i);
      for (int d = 0; d < rank; ++d) ix[at * (rank + 1) + 1 + d] = pos[d];
      ++at;
      for (int d = rank - 1; d >= 0; --d) {  // the next row-major index
        if (++pos[d] < t.dim_size(d)) break;
        pos[d] = 0;
      }
    }
    INFLOW_ASSIGN_OR_RETURN(Tensor v,
                            t.Reshape(TensorShape({t.num_elements()})));
    flat.push_back(std::move(v));
  }
  Result<Tensor> values = Tensor::Concat(flat);
  if (!values.ok()) return values.status();
  Tensor shape(DType::kInt64, TensorShape({rank + 1}));
  std::span<int64_t> sh = shape.mutable_flat<int64_t>().value();
  sh[0] = static_cast<int64_t>(rows.size());
  for (int d = 0; d < rank; ++d) sh[d + 1] = dense[d];
  return Tuple{std::move(indices), std::move(values).value(), std::move(shape)};
}

}  // namespace

DatasetPtr MakeRaggedBatch(DatasetPtr input, int64_t batch_size,
                           bool drop_remainder) {
  return MakeRowsBatch(std::move(input), "ragged_batch", batch_size,
                       drop_remainder, Ragged);
}

DatasetPtr MakeSparseBatch(DatasetPtr input, int64_t batch_size,
                           std::vector<int64_t> row_shape) {
  Status s = row_shape.empty()
                 ? InvalidArgumentError("row_shape has no dimensions")
                 : OkStatus();
  return MakeRowsBatch(
      std::move(input), "sparse_batch", batch_size, false,
      [row_shape](std::vector<Tuple> rows) {
        return Sparse(std::move(rows), row_shape);
      },
      std::move(s));
}

}  // namespace inflow::data::internal
