// Copyright 2026 The inflow Authors.
//
// The SparseTensor components of a batching call, as TF keeps them (its
// SparseTensorsMap; docs/conformance.md, "Batching SparseTensors"): each
// row's SparseTensor is kept here under an int64 handle, the queue
// carries the handle (an int64 [1] component, TF's expand_dims of it), and
// a dequeued batch of handles is turned back into one SparseTensor.
//
// Layout: a step's output and a batch hold one tensor per dense component
// and three per sparse one, in its place: indices int64 [n, rank], values
// [n], dense_shape int64 [rank]. A batch's sparse component has indices
// [m, 1 + rank] (the row in the batch first, then the row's own indices,
// rows in batch order, each row's entries in the order stored) and
// dense_shape [rows, max over the rows of each dim].

#ifndef INFLOW_SRC_INPUT_SPARSE_ROWS_H_
#define INFLOW_SRC_INPUT_SPARSE_ROWS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"

namespace inflow::internal {

// Thread-safe.
class SparseRows {
 public:
  struct Component {
    bool sparse = false;
    DType dtype = DType::kInvalid;  // a sparse component's values
    int rank = -1;                  // of one row; -1: unknown
  };

  // `enqueue_many`: each stored SparseTensor is a batch of rows (rank >=
  // 2, split along its first dim, TF's AddManySparseToTensorsMap). `where`
  // names the call in messages.
  SparseRows(std::vector<Component> components, bool enqueue_many,
             std::string where);

  // The number of tensors of a step's output: one per dense component,
  // three per sparse one.
  size_t flat_size() const { return flat_size_; }

  // A step's output -> the tuple to enqueue: the dense tensors as they
  // are, each sparse one replaced by its handles (int64 [1], or [rows, 1]
  // with enqueue_many). With enqueue_many each row's dense shape is the
  // batch's dense_shape[1:], or with `row_extents` the row's own extent (1
  // + its largest index in each dim, 0 without entries). INVALID_ARGUMENT,
  // naming the component, for a malformed SparseTensor (TF's messages).
  Result<Tuple> Store(Tuple output, bool row_extents = false)
      INFLOW_EXCLUDES(mu_);
  // Forgets the rows whose handles `queued` holds (a Store whose enqueue
  // failed), or with `keep` only those of the rows keep[r] is false for.
  void Release(const Tuple& queued, const bool* keep = nullptr)
      INFLOW_EXCLUDES(mu_);
  // A dequeued tuple -> the batch (layout above); the rows are taken out.
  // INVALID_ARGUMENT when the rows' ranks differ (TF's message).
  Result<Tuple> Take(Tuple dequeued) INFLOW_EXCLUDES(mu_);

  // Rows held (for tests).
  size_t size() const INFLOW_EXCLUDES(mu_);

 private:
  // The tensors one Store kept, which its rows index into.
  struct Chunk {
    Tensor indices;     // int64 [*, first_col + rank]
    Tensor values;      // [*]
    int first_col = 0;  // 1 with enqueue_many: the column of the row
    int rank = 0;       // of a row
    // The rows' dense shapes: `rank` dims for each row, or one shape for
    // all of them when `shared_shape`.
    std::vector<int64_t> shapes;
    bool shared_shape = true;
  };
  // One row: entries [begin, end) of its chunk, the row-th there. A row
  // costs one map entry and a reference, not tensors of its own.
  struct Row {
    std::shared_ptr<const Chunk> chunk;
    int64_t begin = 0;
    int64_t end = 0;
    int64_t row = 0;
    std::span<const int64_t> shape() const {
      const size_t r = static_cast<size_t>(chunk->rank);
      return {chunk->shapes.data() + (chunk->shared_shape ? 0 : row * r), r};
    }
  };

  Result<Tensor> StoreOne(const Tensor& indices, const Tensor& values,
                          const Tensor& dense_shape, size_t c)
      INFLOW_EXCLUDES(mu_);
  Result<Tensor> StoreMany(const Tensor& indices, const Tensor& values,
                           const Tensor& dense_shape, size_t c,
                           bool row_extents) INFLOW_EXCLUDES(mu_);
  Result<Tuple> TakeComponent(const Tensor& handles, size_t c)
      INFLOW_EXCLUDES(mu_);
  // Keeps `rows` under consecutive handles; the first.
  int64_t Put(std::vector<Row> rows) INFLOW_EXCLUDES(mu_);

  const std::vector<Component> components_;
  const bool enqueue_many_;
  const std::string where_;
  size_t flat_size_ = 0;

  mutable Mutex mu_;
  int64_t next_handle_ INFLOW_GUARDED_BY(mu_) = 0;
  std::unordered_map<int64_t, Row> rows_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_INPUT_SPARSE_ROWS_H_
