// Copyright 2026 The inflow Authors.
//
// PriorityQueue: component 0 is an int64 scalar priority (prepended to the
// dtypes and shapes given in QueueOptions); Dequeue returns the smallest
// priority first (ties in TF's heap order). DequeueMany(n) is all at once:
// it waits until n elements are stored, then takes the n smallest.
//
// Thread-safe: every method may be called from any thread.

#ifndef INFLOW_QUEUE_PRIORITY_QUEUE_H_
#define INFLOW_QUEUE_PRIORITY_QUEUE_H_

#include <memory>

#include "inflow/core/result.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

namespace inflow {

class PriorityQueue : public QueueInterface {
 public:
  static constexpr QueueKind kKind = QueueKind::kPriority;

  // INVALID_ARGUMENT for bad options (see QueueOptions) or, for a shared
  // queue, a mismatch with the existing one.
  static Result<std::shared_ptr<PriorityQueue>> Create(
      const QueueOptions& options);

 protected:
  PriorityQueue() = default;
};

}  // namespace inflow

#endif  // INFLOW_QUEUE_PRIORITY_QUEUE_H_
