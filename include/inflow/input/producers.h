// Copyright 2026 The inflow Authors.
//
// Input producers: tf.train.limit_epochs, input_producer,
// string_input_producer, range_input_producer and slice_input_producer
// (docs/conformance.md, "Input producers"). Each producer is a FIFOQueue
// filled by one QueueRunner whose single enqueue op enqueues one whole
// epoch per step (a fresh permutation of the input when shuffling), so
// every element is delivered exactly num_epochs times and epochs never
// interleave. After the last epoch the op fails with OUT_OF_RANGE, the
// runner closes the queue, and consumers drain it and then get
// OUT_OF_RANGE.
//
//   auto files = StringInputProducer({"a.tfrecord", "b.tfrecord"},
//                                    {.num_epochs = 2, .seed = 7}).value();
//   Coordinator coord;
//   auto threads = StartQueueRunners(&coord);  // or files.runner->...
//   reader->Read(*files.queue, coord.MakeCallOptions());
//
// Seeds follow TF's graph/op seed rule (tf.compat.v1.get_seed): with an op
// seed and no graph seed the generator is seeded with (87654321, seed), so
// a seeded producer yields TF's permutations in TF's order.

#ifndef INFLOW_INPUT_PRODUCERS_H_
#define INFLOW_INPUT_PRODUCERS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/metrics.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/queue/queue.h"
#include "inflow/threads/queue_runner.h"

namespace inflow {

// tf.train.limit_epochs: yields `value` num_epochs times, then OUT_OF_RANGE
// ("Reached limit of N"). The check comes before the value is handed out,
// so the failing call yields nothing. Thread-safe.
class EpochLimit {
 public:
  // nullopt: unlimited. num_epochs <= 0: INVALID_ARGUMENT.
  static Result<std::shared_ptr<EpochLimit>> Create(
      Tuple value, std::optional<int64_t> num_epochs);

  [[nodiscard]] Result<Tuple> Next();
  // Epochs handed out so far (TF's `epochs` local variable).
  int64_t epochs() const;
  // The limit; nullopt: unlimited.
  std::optional<int64_t> num_epochs() const { return num_epochs_; }
  // Back to 0 epochs (TF's re-initialisation of local variables).
  void Reset();

 private:
  EpochLimit(Tuple value, std::optional<int64_t> num_epochs)
      : value_(std::move(value)), num_epochs_(num_epochs) {}

  const Tuple value_;
  const std::optional<int64_t> num_epochs_;
  std::atomic<int64_t> epochs_{0};
};

// Options shared by every producer; the defaults are TF's.
struct ProducerOptions {
  // nullopt: unlimited. <= 0: INVALID_ARGUMENT.
  std::optional<int64_t> num_epochs = std::nullopt;
  bool shuffle = true;
  // TF's op-level seed; nullopt: no op seed.
  std::optional<int64_t> seed = std::nullopt;
  // TF's graph-level seed (tf.compat.v1.set_random_seed); nullopt: none.
  // Neither seed: a random permutation each run.
  std::optional<int64_t> graph_seed = std::nullopt;
  int64_t capacity = 32;
  std::string shared_name = {};
  // Scope of the queue, its runner's threads and its metric; empty: TF's
  // default ("input_producer").
  std::string name = {};
  // Where the fill metric "<scope>/fraction_of_<capacity>_full" goes;
  // nullptr: MetricsRegistry::Default().
  MetricsRegistry* metrics = nullptr;
  // Where the runner is registered (TF's add_queue_runner); nullptr:
  // QueueRunnerCollection::Default().
  QueueRunnerCollection* collection = nullptr;
  std::string collection_name = kQueueRunnersCollection;
  // TF's cancel_op: what the runner's closer runs once the coordinator
  // stops; empty: the queue's Close(true).
  QueueOp cancel_op = {};
};

// A producer's queue and the runner that fills it (already added to the
// options' collection), and its fill metric (unregistered when `metrics`
// is destroyed). Start its threads with the collection's Start() /
// StartQueueRunners, or runner->CreateThreads.
struct Producer {
  std::shared_ptr<QueueInterface> queue;
  std::shared_ptr<QueueRunner> runner;
  // Epochs started so far; a cancelled epoch still counts (TF's caveat).
  std::shared_ptr<EpochLimit> epochs;
  MetricGroup metrics;
};

// tf.train.input_producer: `input` has rank >= 1 and at least one row
// (INVALID_ARGUMENT otherwise; TF accepts no rows); the element shape is
// input.shape[1:] merged with `element_shape` (INVALID_ARGUMENT when they
// disagree). One FIFOQueue(capacity, [dtype], [element shape]) named after
// the scope; the fill metric is published even without TF's summary_name.
Result<Producer> InputProducer(Tensor input, PartialShape element_shape,
                               ProducerOptions options = {});

// tf.train.string_input_producer over scalar strings. Empty `strings`:
// INVALID_ARGUMENT.
Result<Producer> StringInputProducer(std::vector<std::string> strings,
                                     ProducerOptions options = {});

// tf.train.range_input_producer: int32 scalars 0 .. limit-1. limit <= 0:
// INVALID_ARGUMENT.
Result<Producer> RangeInputProducer(int32_t limit,
                                    ProducerOptions options = {});

// tf.train.slice_input_producer: a range producer over the shared first
// dimension of `tensors`, and a step that dequeues one index i (blocking,
// per its CallOptions) and returns {t[i] for t in tensors}. Empty list, a
// scalar, or tensors whose first dimensions differ: INVALID_ARGUMENT (TF
// does not check the last; see docs/conformance.md). Exhaustion surfaces
// as OUT_OF_RANGE from the step.
struct SliceProducer {
  Producer indices;
  std::vector<DType> dtypes;
  std::vector<PartialShape> shapes;  // t.shape[1:]
  std::function<Result<Tuple>(const CallOptions&)> step;
};
Result<SliceProducer> SliceInputProducer(Tuple tensors,
                                         ProducerOptions options = {});

}  // namespace inflow

#endif  // INFLOW_INPUT_PRODUCERS_H_
