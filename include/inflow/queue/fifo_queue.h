// Copyright 2026 The inflow Authors.
//
// FIFOQueue: elements leave in insertion order (TF's FIFOQueue). Shapes are
// optional; DequeueMany/DequeueUpTo require them (INVALID_ARGUMENT even for
// n == 0). DequeueMany(n) collects elements one at a time as they arrive.
//
// Thread-safe: every method may be called from any thread.

#ifndef INFLOW_QUEUE_FIFO_QUEUE_H_
#define INFLOW_QUEUE_FIFO_QUEUE_H_

#include <memory>

#include "inflow/core/result.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

namespace inflow {

class FIFOQueue : public QueueInterface {
 public:
  static constexpr QueueKind kKind = QueueKind::kFIFO;

  // INVALID_ARGUMENT for bad options (see QueueOptions) or, for a shared
  // queue, a mismatch with the existing one.
  static Result<std::shared_ptr<FIFOQueue>> Create(const QueueOptions& options);

 protected:
  FIFOQueue() = default;
};

}  // namespace inflow

#endif  // INFLOW_QUEUE_FIFO_QUEUE_H_
