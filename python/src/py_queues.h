// Copyright 2026 The inflow Authors.
//
// Queues between the bindings: the C++ queue under a Python queue object
// (inflow.FIFOQueue and the other kinds), and a Python queue object for a
// queue C++ made (a batch function's queue, a producer's).

#ifndef INFLOW_PYTHON_SRC_PY_QUEUES_H_
#define INFLOW_PYTHON_SRC_PY_QUEUES_H_

#include <nanobind/nanobind.h>

#include <memory>

#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

namespace inflow::py {

// The queue under `value`: an inflow.FIFOQueue (or any kind) or the
// native _inflow._Queue it holds. TypeError otherwise.
std::shared_ptr<QueueInterface> QueueFromPython(nanobind::handle value);

// An inflow.<Kind>Queue object over `queue` (of `kind`).
nanobind::object QueueToPython(std::shared_ptr<QueueInterface> queue,
                               QueueKind kind);
// The same, with the kind found from the queue's class.
nanobind::object QueueToPython(std::shared_ptr<QueueInterface> queue);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_QUEUES_H_
