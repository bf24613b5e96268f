// Copyright 2026 The inflow Authors.
//
// The extension module inflow._inflow: the Bind* functions of bindings.h,
// each registering what one module of the Python package (python/inflow)
// uses; that package gives the names their TF1 places
// (inflow.train.Coordinator, inflow.io...).

#include <nanobind/nanobind.h>

#include "bindings.h"

NB_MODULE(_inflow, m) {
  m.doc() =
      "inflow's C++ core: queues, threads, records, Example parsing, "
      "input pipelines and checkpoints";
  inflow::py::BindCore(m);
  inflow::py::BindQueues(m);
  inflow::py::BindThreads(m);
  inflow::py::BindCoordinator(m);
  inflow::py::BindQueueRunner(m);
  inflow::py::BindQueueRunnerCollection(m);
  inflow::py::BindIo(m);
  inflow::py::BindExample(m);
  inflow::py::BindSteps(m);
  inflow::py::BindParseSteps(m);
  inflow::py::BindStepOps(m);
  inflow::py::BindReaders(m);
  inflow::py::BindProducers(m);
  inflow::py::BindBatching(m);
  inflow::py::BindPipeline(m);
  inflow::py::BindRecordSequence(m);
  inflow::py::BindCheckpoint(m);
  inflow::py::BindData(m);
  inflow::py::BindOps(m);
}
