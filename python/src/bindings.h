// Copyright 2026 The inflow Authors.
//
// The Bind* functions module.cc calls, in this order (a later one may use
// the classes an earlier one registered).

#ifndef INFLOW_PYTHON_SRC_BINDINGS_H_
#define INFLOW_PYTHON_SRC_BINDINGS_H_

#include <nanobind/nanobind.h>

namespace inflow::py {

// errors (exception classes), dtypes, Tensor helpers.
void BindCore(nanobind::module_& m);
// FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, PriorityQueue.
void BindQueues(nanobind::module_& m);
// Coordinator, QueueRunner, add_queue_runner, start_queue_runners.
void BindThreads(nanobind::module_& m);
// TFRecordWriter, tf_record_iterator, TFRecordOptions.
void BindIo(nanobind::module_& m);
// parse_single_example, parse_example, feature specs, decode_raw.
void BindExample(nanobind::module_& m);
// input producers, batch family, Pipeline.
void BindInput(nanobind::module_& m);
// Saver, latest_checkpoint, get_checkpoint_state, load_checkpoint.
void BindCheckpoint(nanobind::module_& m);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_BINDINGS_H_
