// Copyright 2026 The inflow Authors.
//
// Builds DequeueMany/DequeueUpTo batches from dequeued elements: one fresh
// (StackGathered: or recycled, batch_pool.h) 64-byte-aligned tensor per
// component, each element copied once.
// Thread-compatible.

#ifndef INFLOW_QUEUE_BATCH_H_
#define INFLOW_QUEUE_BATCH_H_

#include <span>
#include <string>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/queue/queue.h"

#include "queue/row_bag.h"

namespace inflow::internal {

class BatchPool;

// [n] + shape tensors for component `c` of equally shaped `elements`
// (n >= 1; shapes were validated on enqueue).
Tensor StackComponent(std::span<const Tuple> elements, int c);

// [n] + s where each unknown dim of `declared` is the largest of that dim
// over `elements` (0 when there are none); each element lands in the
// leading corner of its row, the rest is zero / false / "".
Tensor PadComponent(std::span<const Tuple> elements, int c, DType dtype,
                    const PartialShape& declared);

// The batch of `elements` for a queue with these components. `pad` selects
// PadComponent (PaddingFIFOQueue), otherwise StackComponent; an empty
// `elements` gives [0] + shape tensors (unknown dims 0).
Tuple MakeBatch(std::span<const Tuple> elements,
                const std::vector<DType>& dtypes,
                const std::vector<PartialShape>& shapes, bool pad);

// The batch of `rows` (rows.rows >= 1, every row of the shapes in
// rows.row_shapes): one tensor per component of `dtypes`; the numeric
// ones in buffers from `pool` when it is given, else freshly allocated.
Tuple StackGathered(const GatheredRows& rows, const std::vector<DType>& dtypes,
                    BatchPool* pool = nullptr);

// EnqueueManyInPlace's condition: INVALID_ARGUMENT, naming the queue
// (`queue`, as "FIFOQueue 'q'") and the component, unless every component
// is numeric with a fully defined shape.
Status CheckInPlace(const std::vector<DType>& dtypes,
                    const std::vector<PartialShape>& shapes,
                    const std::string& queue);

// The bytes of one element of numeric components `dtypes` with fully
// defined `shapes`.
size_t RowBytes(const std::vector<DType>& dtypes,
                const std::vector<PartialShape>& shapes);

// EnqueueManyInPlace's checks before anything is written, in order:
// CheckInPlace, rows >= 0 (else INVALID_ARGUMENT), then a call of 0 rows
// succeeds with nothing to write (false) and a stopped call is CANCELLED;
// true when the rows are to be written.
Result<bool> StartInPlace(const std::vector<DType>& dtypes,
                          const std::vector<PartialShape>& shapes, int64_t rows,
                          const CallOptions& options, const std::string& queue);

// A RowWriter that copies the rows of `batch` (numeric, `rows` >= 1 in
// every component's leading dimension); `batch` must outlive it.
RowWriter CopyRowsOf(const Tuple& batch, int64_t rows);

// A new batch of `rows` (>= 1) rows of components `dtypes` and `shapes`
// (CheckInPlace's), written by `write`; its error if it fails.
Result<Tuple> WriteNewBatch(const std::vector<DType>& dtypes,
                            const std::vector<PartialShape>& shapes,
                            int64_t rows, const RowWriter& write);

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_BATCH_H_
