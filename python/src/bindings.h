// Copyright 2026 The inflow Authors.
//
// The Bind* functions module.cc calls, in this order (a later one may use
// the classes an earlier one registered), each named for what it
// registers, with the Python module that uses it.

#ifndef INFLOW_PYTHON_SRC_BINDINGS_H_
#define INFLOW_PYTHON_SRC_BINDINGS_H_

#include <nanobind/nanobind.h>

namespace inflow::py {

// bind_core.cc, inflow.errors and inflow: the exception classes, dtypes,
// Tensor helpers.
void BindCore(nanobind::module_& m);
// bind_queues.cc, inflow._queues: FIFOQueue, PaddingFIFOQueue,
// RandomShuffleQueue, PriorityQueue.
void BindQueues(nanobind::module_& m);
// bind_threads.cc, inflow.train._coordination: the thread objects
// start_queue_runners returns, and the C++ queue ops they run.
void BindThreads(nanobind::module_& m);
// bind_threads.cc, inflow.train._coordination: Coordinator.
void BindCoordinator(nanobind::module_& m);
// bind_queue_runners.cc, inflow.train._coordination: QueueRunner.
void BindQueueRunner(nanobind::module_& m);
// bind_queue_runners.cc, inflow._graph: a Graph's queue runners, by
// collection name (add_queue_runner, start_queue_runners).
void BindQueueRunnerCollection(nanobind::module_& m);
// bind_io.cc, inflow.io._records and inflow.io.gfile: TFRecordWriter,
// tf_record_iterator, TFRecordOptions, file functions.
void BindIo(nanobind::module_& m);
// bind_example.cc, inflow.io._parsing: parse_single_example,
// parse_example, feature specs, decode_raw.
void BindExample(nanobind::module_& m);
// bind_steps.cc, inflow._steps: Node, run, py_func, constants.
void BindSteps(nanobind::module_& m);
// bind_example.cc, inflow.io._parsing: the parse and decode_raw steps.
void BindParseSteps(nanobind::module_& m);
// bind_steps.cc, inflow._steps: reshape, cast and one_hot.
void BindStepOps(nanobind::module_& m);
// bind_input.cc, inflow.train._input: the readers and the enqueue op over
// Nodes.
void BindReaders(nanobind::module_& m);
// bind_input.cc, inflow.train._input: the input producers.
void BindProducers(nanobind::module_& m);
// bind_input.cc, inflow.train._input: the batch family.
void BindBatching(nanobind::module_& m);
// bind_pipeline.cc, inflow._pipeline: Pipeline.
void BindPipeline(nanobind::module_& m);
// bind_record_sequence.cc, inflow._record_sequence: TFRecordSequence.
void BindRecordSequence(nanobind::module_& m);
// bind_checkpoint.cc, inflow.train._checkpoint: Saver, latest_checkpoint,
// get_checkpoint_state, load_checkpoint.
void BindCheckpoint(nanobind::module_& m);
// bind_data.cc: inflow.data's native Dataset and its iterator.
void BindData(nanobind::module_& m);
// bind_ops.cc, inflow._ops: op libraries, custom ops as steps and as
// Dataset map functions.
void BindOps(nanobind::module_& m);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_BINDINGS_H_
