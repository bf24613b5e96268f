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

QueueOp MakeKeepInputEnqueueOp(
    std::shared_ptr<QueueInterface> queue,
    std::function<Result<Tuple>(const CallOptions&)> step,
    KeepInputFn keep_input, bool enqueue_many) {
  return [queue = std::move(queue), step = std::move(step),
          keep_input = std::move(keep_input),
          enqueue_many](const CallOptions& options) -> Status {
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
      ScopedBlockedTimer blocked;
      return enqueue_many ? queue->EnqueueMany(std::move(output), options)
                          : queue->Enqueue(std::move(output), options);
    }
    if (!enqueue_many) {
      return InvalidArgumentError(
          where + ": keep_input cannot be a vector when enqueue_many is false");
    }
    INFLOW_ASSIGN_OR_RETURN(Tuple kept,
                            KeepRows(std::move(output), keep, where));
    if (!kept.empty() && kept[0].dim_size(0) == 0) return OkStatus();
    ScopedBlockedTimer blocked;
    return queue->EnqueueMany(std::move(kept), options);
  };
}

}  // namespace inflow::internal
