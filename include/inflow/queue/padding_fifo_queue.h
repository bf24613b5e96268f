// Copyright 2026 The inflow Authors.
//
// PaddingFIFOQueue: a FIFOQueue whose component shapes (required, known
// rank) may have unknown (-1) dims. Enqueue accepts any compatible shape;
// Dequeue returns elements unpadded; DequeueMany/DequeueUpTo pad each
// unknown dim to the largest in the batch (0 for an empty batch), filling
// with zeros, false or empty strings. Any rank is supported.
//
// Thread-safe: every method may be called from any thread.

#ifndef INFLOW_QUEUE_PADDING_FIFO_QUEUE_H_
#define INFLOW_QUEUE_PADDING_FIFO_QUEUE_H_

#include <memory>

#include "inflow/core/result.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

namespace inflow {

class PaddingFIFOQueue : public QueueInterface {
 public:
  static constexpr QueueKind kKind = QueueKind::kPaddingFIFO;

  // INVALID_ARGUMENT for bad options (see QueueOptions) or, for a shared
  // queue, a mismatch with the existing one.
  static Result<std::shared_ptr<PaddingFIFOQueue>> Create(
      const QueueOptions& options);

 protected:
  PaddingFIFOQueue() = default;
};

}  // namespace inflow

#endif  // INFLOW_QUEUE_PADDING_FIFO_QUEUE_H_
