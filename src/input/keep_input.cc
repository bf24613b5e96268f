// Copyright 2026 The inflow Authors.

#include "input/keep_input.h"

#include <string>
#include <utility>
#include <vector>

#include "inflow/threads/thread_registry.h"

namespace inflow::internal {

Result<Tuple> KeepRows(Tuple batch, const Tensor& keep,
                       const std::string& where) {
  if (keep.dtype() != DType::kBool || keep.rank() != 1) {
    return InvalidArgumentError(where + ": keep_input must be a bool vector " +
                                "here, got " + keep.DebugString(4));
  }
  if (batch.empty() || batch[0].rank() < 1) {
    return InvalidArgumentError(where +
                                ": a keep_input vector needs a batch of rows");
  }
  const int64_t rows = batch[0].dim_size(0);
  for (const Tensor& t : batch) {
    if (t.rank() < 1 || t.dim_size(0) != rows) {
      return InvalidArgumentError(
          where + ": all components must have the same number of rows (" +
          std::to_string(rows) + ")");
    }
  }
  if (keep.dim_size(0) != rows) {
    return InvalidArgumentError(
        where + ": keep_input has " + std::to_string(keep.dim_size(0)) +
        " entries for " + std::to_string(rows) + " rows");
  }
  const bool* flags = keep.data<bool>();
  int64_t kept = 0;
  for (int64_t r = 0; r < rows; ++r) kept += flags[r] ? 1 : 0;
  if (kept == rows) return batch;  // zero-copy

  // Runs of kept rows, as zero-copy slices, concatenated once per
  // component.
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t r = 0; r < rows;) {
    if (!flags[r]) {
      ++r;
      continue;
    }
    const int64_t begin = r;
    while (r < rows && flags[r]) ++r;
    runs.emplace_back(begin, r);
  }
  Tuple out;
  out.reserve(batch.size());
  std::vector<Tensor> parts;
  for (const Tensor& t : batch) {
    if (runs.empty()) {
      out.push_back(Tensor(t.dtype(), t.shape().Slice(1).Prepend(0)));
      continue;
    }
    parts.clear();
    for (const auto& [begin, end] : runs) parts.push_back(t.Slice(begin, end));
    INFLOW_ASSIGN_OR_RETURN(Tensor filtered, Tensor::Concat(parts));
    out.push_back(std::move(filtered));
  }
  return out;
}

namespace {

// Enqueues `tuple`; with `sparse`, releases its rows when that fails and
// none went in. A timed-out or cancelled EnqueueMany may have inserted
// some rows (queue/queue.h), whose handles must stay valid: its rows stay
// until the Batcher goes.
Status Enqueue(QueueInterface& queue, Tuple tuple, bool many,
               SparseRows* sparse, const CallOptions& options) {
  // The handles, kept to release them (a copy shares the buffers).
  Tuple handles;
  if (sparse != nullptr) handles = tuple;
  Status s;
  {
    ScopedBlockedTimer blocked;
    s = many ? queue.EnqueueMany(std::move(tuple), options)
             : queue.Enqueue(std::move(tuple), options);
  }
  if (!s.ok() && sparse != nullptr && (!many || IsInvalidArgument(s))) {
    sparse->Release(handles);
  }
  return s;
}

}  // namespace

QueueOp MakeKeepInputEnqueueOp(
    std::shared_ptr<QueueInterface> queue,
    std::function<Result<Tuple>(const CallOptions&)> step,
    KeepInputFn keep_input, bool enqueue_many,
    std::shared_ptr<SparseRows> sparse, bool row_extents) {
  return [queue = std::move(queue), step = std::move(step),
          keep_input = std::move(keep_input), enqueue_many,
          sparse = std::move(sparse),
          row_extents](const CallOptions& options) -> Status {
    INFLOW_ASSIGN_OR_RETURN(Tuple output, step(options));
    INFLOW_ASSIGN_OR_RETURN(Tensor keep, keep_input(output));
    const std::string& where = queue->name();
    if (keep.dtype() != DType::kBool || keep.rank() > 1) {
      return InvalidArgumentError(
          where + ": keep_input must be a bool scalar or vector, got " +
          keep.DebugString(4));
    }
    if (keep.rank() == 0) {
      if (!*keep.data<bool>()) return OkStatus();
      if (sparse != nullptr) {
        INFLOW_ASSIGN_OR_RETURN(output,
                                sparse->Store(std::move(output), row_extents));
      }
      return Enqueue(*queue, std::move(output), enqueue_many, sparse.get(),
                     options);
    }
    if (!enqueue_many) {
      return InvalidArgumentError(
          where + ": keep_input cannot be a vector when enqueue_many is false");
    }
    if (sparse != nullptr) {
      INFLOW_ASSIGN_OR_RETURN(output,
                              sparse->Store(std::move(output), row_extents));
    }
    // With sparse components, the rows' handles are what is filtered.
    Result<Tuple> kept = KeepRows(output, keep, where);
    if (sparse != nullptr) {
      if (!kept.ok()) {
        sparse->Release(output);
        return kept.status();
      }
      sparse->Release(output, keep.data<bool>());
    }
    if (!kept.ok()) return kept.status();
    output.clear();
    if (!kept->empty() && (*kept)[0].dim_size(0) == 0) return OkStatus();
    return Enqueue(*queue, std::move(kept).value(), true, sparse.get(),
                   options);
  };
}

QueueOp MakeSparseEnqueueOp(
    std::shared_ptr<QueueInterface> queue,
    std::function<Result<Tuple>(const CallOptions&)> step,
    std::shared_ptr<SparseRows> sparse, bool enqueue_many, bool row_extents) {
  return [queue = std::move(queue), step = std::move(step),
          sparse = std::move(sparse), enqueue_many,
          row_extents](const CallOptions& options) -> Status {
    INFLOW_ASSIGN_OR_RETURN(Tuple output, step(options));
    INFLOW_ASSIGN_OR_RETURN(Tuple stored,
                            sparse->Store(std::move(output), row_extents));
    return Enqueue(*queue, std::move(stored), enqueue_many, sparse.get(),
                   options);
  };
}

}  // namespace inflow::internal
