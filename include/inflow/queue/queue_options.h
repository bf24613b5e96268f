// Copyright 2026 The inflow Authors.
//
// QueueOptions: the construction parameters of every queue type (TF's
// queue op attributes), and CreateQueue, which builds a queue of a kind
// chosen at run time. Values; thread-compatible.

#ifndef INFLOW_QUEUE_QUEUE_OPTIONS_H_
#define INFLOW_QUEUE_QUEUE_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/queue/queue.h"

namespace inflow {

enum class QueueKind {
  kFIFO,
  kPaddingFIFO,
  kRandomShuffle,
  kPriority,
};

// "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue".
std::string_view QueueKindName(QueueKind kind);

struct QueueOptions {
  // Maximum number of stored elements; < 0 means unbounded (stored as
  // INT32_MAX). 0 is accepted: every enqueue then blocks until Close.
  // INVALID_ARGUMENT above INT32_MAX.
  int64_t capacity = -1;
  // One per component, at least one. PriorityQueue: the value components
  // only; an int64 scalar priority is prepended as component 0.
  std::vector<DType> dtypes = {};
  // Empty, or one per entry of `dtypes`. FIFO, RandomShuffle and Priority:
  // fully defined. PaddingFIFO: required, known rank, dims may be -1.
  std::vector<PartialShape> shapes = {};
  // Empty, or one unique name per component (PriorityQueue: including the
  // priority component, i.e. dtypes.size() + 1 names, as TF).
  std::vector<std::string> names = {};
  // Used in error messages; empty picks TF's default ("fifo_queue",
  // "padding_fifo_queue", "random_shuffle_queue", "priority_queue").
  std::string name = {};
  // A non-empty shared_name makes the queue shared: creating another queue
  // with the same (container, shared_name) returns the same object when the
  // kind and the parameters match, INVALID_ARGUMENT otherwise.
  std::string shared_name = {};
  std::string container = {};

  // RandomShuffleQueue only. 0 <= min_after_dequeue < capacity.
  int64_t min_after_dequeue = 0;
  // RandomShuffleQueue only (TF's seed, seed2 attributes): both 0 seeds the
  // generator randomly; otherwise the dequeue order is a function of the
  // seeds and the sequence of operations (TF's Philox order).
  int64_t seed = 0;
  int64_t seed2 = 0;
};

// Creates a queue of `kind` (see the per-kind headers for the rules).
// INVALID_ARGUMENT for bad options or a shared-queue mismatch.
Result<std::shared_ptr<QueueInterface>> CreateQueue(
    QueueKind kind, const QueueOptions& options);

}  // namespace inflow

#endif  // INFLOW_QUEUE_QUEUE_OPTIONS_H_
