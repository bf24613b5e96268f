// Copyright 2026 The inflow Authors.
//
// Threads between the bindings: C++ enqueue ops that a Python QueueRunner
// runs (CppQueueOp), and the C++ objects under inflow.train.Coordinator,
// QueueRunner, the thread objects start_queue_runners returns, and the
// queue runner collection of an inflow.Graph.
//
//   // In a Bind* function: a read+parse op for QueueRunner(queue, [op]).
//   m.def("_read_op", [](...) { return CppQueueOp{MakeEnqueueOp(...),
//                                                 "read+parse"}; });

#ifndef INFLOW_PYTHON_SRC_PY_THREADS_H_
#define INFLOW_PYTHON_SRC_PY_THREADS_H_

#include <nanobind/nanobind.h>

#include <memory>
#include <string>
#include <vector>

#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"
#include "inflow/threads/thread.h"

namespace inflow::py {

// An enqueue op written in C++ (python type _inflow._CppQueueOp): a
// QueueRunner runs it on its threads without ever taking the GIL. Return
// one from a binding (nb::cast(CppQueueOp{...})) and pass it in a
// QueueRunner's enqueue_ops (or as close_op / cancel_op).
struct CppQueueOp {
  QueueOp op;
  // Shown in repr() and thread names.
  std::string description;
};

// The coordinator under an inflow.train.Coordinator (or its native
// object); nullptr for None. TypeError otherwise. The Python object must
// outlive the threads started with it (as in C++).
Coordinator* CoordinatorFromPython(nanobind::handle value);

// The runner under an inflow.train.QueueRunner (or its native object).
std::shared_ptr<QueueRunner> QueueRunnerFromPython(nanobind::handle value);
// An inflow.train.QueueRunner object over a runner C++ made.
nanobind::object QueueRunnerToPython(std::shared_ptr<QueueRunner> runner);

// The collection under an inflow.Graph's runners (its native
// _inflow._QueueRunnerCollection); None gives QueueRunnerCollection::
// Default(). Only for the call it is passed to (the Python object owns it).
QueueRunnerCollection* QueueRunnerCollectionFromPython(nanobind::handle value);

// Thread objects (name, is_alive(), join()) over inflow threads, as
// start_queue_runners returns them.
nanobind::list ThreadsToPython(
    const std::vector<std::shared_ptr<Thread>>& threads, bool daemon = true);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_THREADS_H_
