// Copyright 2026 The inflow Authors.
//
// Batching: tf.train.batch, shuffle_batch, batch_join, shuffle_batch_join
// and their maybe_* forms (docs/conformance.md, "Batching"). Each call
// makes one queue (FIFOQueue, PaddingFIFOQueue with dynamic_pad, or
// RandomShuffleQueue) and one QueueRunner whose threads run the input's
// step and enqueue what it returns; the returned Batcher dequeues batches
// (DequeueMany(batch_size), or DequeueUpTo with allow_smaller_final_batch).
//
// End of input (TF's cascade): when every thread's step has failed with
// OUT_OF_RANGE (e.g. a reader reaching the end of a closed filename queue),
// the last one closes the batching queue; Next() then drains full batches
// (and a final short one with allow_smaller_final_batch; without it the
// remainder stays in the queue) and returns OUT_OF_RANGE.
//
//   BatchInput in{.dtypes = {DType::kFloat32, DType::kInt64},
//                 .shapes = {PartialShape({784}), PartialShape({})},
//                 .step = read_and_parse};
//   ShuffleBatchOptions options;
//   options.batch_size = 128;
//   options.capacity = 10000;
//   options.min_after_dequeue = 5000;
//   options.seed = 1;
//   auto batches = ShuffleBatch(in, options).value();
//   auto threads = StartQueueRunners(&coord);
//   Result<Tuple> batch = batches->Next(coord.MakeCallOptions());

#ifndef INFLOW_INPUT_BATCHING_H_
#define INFLOW_INPUT_BATCHING_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/dtype.h"
#include "inflow/core/metrics.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/queue/queue.h"
#include "inflow/threads/queue_runner.h"

namespace inflow {

// What is batched: the static signature of a step's output (TF's tensors
// with their static shapes) and the step that computes one output.
//
// SparseTensor components (TF batches tf.SparseTensor inputs too): a
// component marked in `sparse` takes three tensors in the step's output,
// in its place: indices int64 [n, rank], values [n] of its dtype and
// dense_shape int64 [rank] (with enqueue_many, a SparseTensor of rank >= 2
// whose first dimension is the rows). Next() returns it the same way,
// batched as TF's TakeManySparseFromTensorsMap does: indices [m, 1 + rank]
// (the row in the batch, then the row's indices; rows in batch order, each
// row's entries as the step gave them), values [m], dense_shape [rows,
// max over the rows of each dim]. Each row is kept in the Batcher and the
// queue carries an int64 [1] handle to it (docs/conformance.md, "Batching
// SparseTensors").
struct BatchInput {
  // A sparse component's: the dtype of its values.
  std::vector<DType> dtypes;
  // One per dtype (unknown dims -1; PartialShape::Unknown() for an unknown
  // rank). With enqueue_many, the shape of a batch of rows: the leading
  // dimension is dropped. A sparse component's: its dense shape, of which
  // only the rank counts (it may be unknown).
  std::vector<PartialShape> shapes;
  // Empty, or one unique name per component (TF's dict of tensors): the
  // queue gets these names and NextNamed() returns them.
  std::vector<std::string> names = {};
  // Empty (every component dense), or one per component: true for a
  // SparseTensor.
  std::vector<bool> sparse = {};
  // With enqueue_many, the dense shape each row of a sparse component
  // gets: false, the batch's dense_shape[1:] (TF's
  // AddManySparseToTensorsMap); true, the row's own extent (1 + its largest
  // index in each dim, 0 without entries), which is what parsing that row
  // alone gives for a VarLenFeature.
  bool sparse_row_extents = false;
  // One element (or, with enqueue_many, a batch of rows) per call;
  // OUT_OF_RANGE at the end of input. Must pass its CallOptions to any
  // blocking call.
  std::function<Result<Tuple>(const CallOptions&)> step;
  // Optional, used in place of `step` with enqueue_many, no keep_input and
  // no sparse component: a step that enqueues its batch of rows into the
  // batching queue itself, e.g. writing them straight into the queue's
  // storage with EnqueueManyInPlace. Its result is the step's and the
  // enqueue's (OUT_OF_RANGE at the end of input; CANCELLED once the queue
  // is closed). It must count the time it waits for the queue as blocked
  // (ScopedBlockedTimer).
  std::function<Status(QueueInterface& queue, const CallOptions&)>
      enqueue_step = nullptr;
};

// The maybe_* forms' keep_input, computed from each step's output: a bool
// scalar (keep or skip the whole input) or, with enqueue_many, a bool
// vector with one entry per row. A vector without enqueue_many:
// INVALID_ARGUMENT.
using KeepInputFn = std::function<Result<Tensor>(const Tuple& output)>;

struct BatchOptions {
  int64_t batch_size = 0;  // > 0
  // Threads running the same step (batch / shuffle_batch only; *_join runs
  // one thread per input).
  int num_threads = 1;
  int64_t capacity = 32;
  bool enqueue_many = false;
  // Overrides the inputs' shapes (one per component); empty: inferred.
  std::vector<PartialShape> shapes = {};
  // batch / batch_join only: a PaddingFIFOQueue that pads each batch to its
  // longest element; shapes then need only known ranks.
  bool dynamic_pad = false;
  bool allow_smaller_final_batch = false;
  std::string shared_name = {};
  // Scope of the queue, threads and fill metric; empty: TF's default
  // ("batch", "batch_join", "shuffle_batch", "shuffle_batch_join").
  std::string name = {};
  // nullptr: MetricsRegistry::Default(). Must outlive the Batcher, which
  // unregisters its gauges when destroyed.
  MetricsRegistry* metrics = nullptr;
  // Where the runner is registered; nullptr: QueueRunnerCollection::Default().
  QueueRunnerCollection* collection = nullptr;
  std::string collection_name = kQueueRunnersCollection;
  // Niceness the runner's enqueue threads add to their own
  // (QueueRunnerOptions::nice); 0..19, 0: unchanged, as in TF.
  int nice = 0;
};

// dynamic_pad must stay false (INVALID_ARGUMENT): TF's shuffle_batch has
// no padding queue.
struct ShuffleBatchOptions : BatchOptions {
  // capacity <= min_after_dequeue: INVALID_ARGUMENT ("capacity %d must be
  // bigger than min_after_dequeue %d").
  int64_t min_after_dequeue = 0;
  // TF's op and graph seeds, as in ProducerOptions: the queue gets TF's
  // (seed, seed2), so one thread and a seed give TF's batches in TF's
  // order. Neither: a random order each run.
  std::optional<int64_t> seed = std::nullopt;
  std::optional<int64_t> graph_seed = std::nullopt;
};

// The consumer's side of one batching call. Thread-safe.
class Batcher {
 public:
  virtual ~Batcher() = default;

  // The next batch: component i has shape [n] + shape_i, n == batch_size
  // except for a final short batch; a sparse component is three tensors
  // (BatchInput). OUT_OF_RANGE at the end of input.
  [[nodiscard]] virtual Result<Tuple> Next(const CallOptions& options = {}) = 0;
  // Next() keyed by the input's names (INVALID_ARGUMENT without names, or
  // with a sparse component).
  [[nodiscard]] Result<NamedTuple> NextNamed(const CallOptions& options = {});

  // [batch_size] + shape_i, or [-1] + shape_i with allow_smaller_final_batch.
  // A sparse component's: its batched dense shape, every dim unknown (rank
  // 1 + rank, or unknown).
  virtual const std::vector<PartialShape>& output_shapes() const = 0;
  // One per component: true for a SparseTensor.
  virtual const std::vector<bool>& sparse() const = 0;
  // The batching queue (a sparse component's elements are its handles).
  virtual const std::shared_ptr<QueueInterface>& queue() const = 0;
  virtual const std::shared_ptr<QueueRunner>& runner() const = 0;
  // "<scope>/fraction_of_<C>_full" or
  // "<scope>/fraction_over_<M>_of_<C-M>_full".
  virtual const std::string& fill_metric_tag() const = 0;
};

Result<std::shared_ptr<Batcher>> Batch(BatchInput input,
                                       const BatchOptions& options);
Result<std::shared_ptr<Batcher>> BatchJoin(std::vector<BatchInput> inputs,
                                           const BatchOptions& options);
Result<std::shared_ptr<Batcher>> ShuffleBatch(
    BatchInput input, const ShuffleBatchOptions& options);
Result<std::shared_ptr<Batcher>> ShuffleBatchJoin(
    std::vector<BatchInput> inputs, const ShuffleBatchOptions& options);

Result<std::shared_ptr<Batcher>> MaybeBatch(BatchInput input,
                                            KeepInputFn keep_input,
                                            const BatchOptions& options);
Result<std::shared_ptr<Batcher>> MaybeBatchJoin(std::vector<BatchInput> inputs,
                                                KeepInputFn keep_input,
                                                const BatchOptions& options);
Result<std::shared_ptr<Batcher>> MaybeShuffleBatch(
    BatchInput input, KeepInputFn keep_input,
    const ShuffleBatchOptions& options);
Result<std::shared_ptr<Batcher>> MaybeShuffleBatchJoin(
    std::vector<BatchInput> inputs, KeepInputFn keep_input,
    const ShuffleBatchOptions& options);

}  // namespace inflow

#endif  // INFLOW_INPUT_BATCHING_H_
