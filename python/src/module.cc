// Copyright 2026 The inflow Authors.
//
// The extension module inflow._inflow: one Bind* function per component,
// each in its own file. The Python package (python/inflow) gives the
// names their TF1 places (inflow.train.Coordinator, inflow.io...).

#include <nanobind/nanobind.h>

#include "bindings.h"

NB_MODULE(_inflow, m) {
  m.doc() =
      "inflow's C++ core: queues, threads, records, Example parsing, "
      "input pipelines and checkpoints";
  inflow::py::BindCore(m);
  inflow::py::BindQueues(m);
  inflow::py::BindThreads(m);
  inflow::py::BindIo(m);
  inflow::py::BindExample(m);
  inflow::py::BindInput(m);
  inflow::py::BindCheckpoint(m);
}
