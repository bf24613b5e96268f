// Copyright 2026 The inflow Authors.
//
// The enqueue op of the maybe_* batching forms: runs the step, asks
// keep_input, and enqueues the whole output, nothing, or (with
// enqueue_many and a bool vector) only the kept rows.

#ifndef INFLOW_INPUT_KEEP_INPUT_H_
#define INFLOW_INPUT_KEEP_INPUT_H_

#include <functional>
#include <memory>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/input/batching.h"
#include "inflow/queue/queue.h"
#include "inflow/threads/queue_runner.h"

#include "input/sparse_rows.h"

namespace inflow::internal {

// `batch` with only the rows whose entry of `keep` is true: `batch` itself
// (no copy) when every row is kept, otherwise one fresh tensor per
// component holding copies of the kept rows. INVALID_ARGUMENT when `keep`
// is not a bool vector with one entry per row, naming `where`.
Result<Tuple> KeepRows(Tuple batch, const Tensor& keep,
                       const std::string& where);

// An enqueue op for `queue`: step(), then keep_input(output). A false
// scalar skips the output; a vector (enqueue_many only, else
// INVALID_ARGUMENT) filters rows with KeepRows. With `sparse` (nullptr: no
// sparse component), the output is stored there before it is enqueued
// (only when kept; a vector's dropped rows are released again).
QueueOp MakeKeepInputEnqueueOp(
    std::shared_ptr<QueueInterface> queue,
    std::function<Result<Tuple>(const CallOptions&)> step,
    KeepInputFn keep_input, bool enqueue_many,
    std::shared_ptr<SparseRows> sparse = nullptr, bool row_extents = false);

// An enqueue op for `queue` storing each output of `step` in `sparse`
// first (MakeEnqueueOp's, for inputs with sparse components).
QueueOp MakeSparseEnqueueOp(
    std::shared_ptr<QueueInterface> queue,
    std::function<Result<Tuple>(const CallOptions&)> step,
    std::shared_ptr<SparseRows> sparse, bool enqueue_many, bool row_extents);

}  // namespace inflow::internal

#endif  // INFLOW_INPUT_KEEP_INPUT_H_
