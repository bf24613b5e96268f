// Copyright 2026 The inflow Authors.
//
// BatchSource: the three ways to load data behind one interface, so a
// training loop switches between them by changing the line that makes the
// source (docs/ARCHITECTURE.md, "Three ways to load data"):
//
//   std::shared_ptr<BatchSource> source =
//       Pipeline::Create({.files = {"train-*.tfrecord"}, ...}).value();
//   //  Preloaded::Create({images, labels}, {...}).value();   // in memory
//   //  Feeding::Create({...}).value();                      // fed batches
//   for (;;) {
//     Result<Tuple> batch = source->Next();
//     if (!batch.ok()) break;  // OUT_OF_RANGE: the end; anything else: error
//     ...
//   }
//   Status s = source->Close();  // OK, or the first error of any stage
//
//   - Pipeline (input/pipeline.h): reading from files.
//   - Preloaded: every example already in memory as tensors, sliced by a
//     slice_input_producer and batched by batch / shuffle_batch.
//   - Feeding: the caller hands each batch in (TF's feed_dict), from any
//     thread; Next() returns the batches in the order they were fed.

#ifndef INFLOW_INPUT_BATCH_SOURCE_H_
#define INFLOW_INPUT_BATCH_SOURCE_H_

#include <chrono>
#include <cstdint>
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

namespace inflow {

// A stream of batches. Thread-safe.
class BatchSource {
 public:
  virtual ~BatchSource() = default;

  // The next batch: component i has shape [n] + row shape i (a sparse
  // component is three tensors, as Batcher::Next gives it). OUT_OF_RANGE
  // at the end of input; after an error in any stage, that error (the
  // first one), from this and every later call. `options.timeout` bounds
  // the wait (DEADLINE_EXCEEDED, nothing lost); `options.stop` releases it
  // (CANCELLED, nothing lost; the source runs on), as the source's own stop
  // (Close()) does.
  [[nodiscard]] virtual Result<Tuple> Next(const CallOptions& options = {}) = 0;
  // Next() keyed by names() (INVALID_ARGUMENT when the source has none, or
  // has a sparse component).
  [[nodiscard]] Result<NamedTuple> NextNamed(const CallOptions& options = {});

  // One per component; names() may be empty.
  virtual const std::vector<std::string>& names() const = 0;
  // A sparse component's: its values' dtype.
  virtual const std::vector<DType>& dtypes() const = 0;
  // The shape of one row of each component (a sparse component's: its
  // dense shape, [-1] for a VarLenFeature).
  virtual const std::vector<PartialShape>& row_shapes() const = 0;
  // Empty (every component dense), or one per component: true for a
  // SparseTensor, which Next() gives as three tensors in its place:
  // indices int64 [m, 1 + rank] (the row in the batch first), values [m]
  // and dense_shape int64 [n, max over the rows of each dim]
  // (input/batching.h, BatchInput).
  virtual const std::vector<bool>& sparse() const;

  // Stops every thread of the source and joins them (within the source's
  // stop grace period); later Next() calls fail. Returns the first error of
  // any stage, or OK. Idempotent. The destructor calls it.
  virtual Status Close() = 0;
};

// How examples are grouped into batches (tf.train.batch / shuffle_batch).
struct BatchingOptions {
  int64_t batch_size = 32;  // > 0
  // shuffle_batch (a RandomShuffleQueue) instead of batch (a FIFOQueue).
  bool shuffle = false;
  // Queue capacity; 0: min_after_dequeue + 3 * batch_size (TF's usual
  // choice).
  int64_t capacity = 0;
  int64_t min_after_dequeue = 0;  // shuffle only
  // TF's op and graph seeds, for the shuffling of every stage.
  std::optional<int64_t> seed = std::nullopt;
  std::optional<int64_t> graph_seed = std::nullopt;
  // A short final batch instead of dropping the remainder.
  bool allow_smaller_final_batch = false;
  // Niceness added by the threads that fill the batching queue (the
  // Pipeline's readers; QueueRunnerOptions::nice), 0..19. With more busy
  // threads than cores, a positive value (5 in docs/PERFORMANCE.md) lets
  // the consumer run whenever it has a batch to take, and the readers in
  // the CPU it leaves. 0: unchanged, as in TF.
  int nice = 0;
};

struct PreloadedOptions {
  // One per tensor, or empty.
  std::vector<std::string> names = {};
  // nullopt: unlimited.
  std::optional<int64_t> num_epochs = std::nullopt;
  // Shuffle the slice order each epoch (slice_input_producer's shuffle).
  bool shuffle = true;
  BatchingOptions batching = {};
  // Scope of the queues, threads and metrics.
  std::string name = "preloaded";
  // nullptr: MetricsRegistry::Default().
  MetricsRegistry* metrics = nullptr;
  std::chrono::milliseconds stop_grace_period{10000};
};

// Preloaded data: `tensors` share their first dimension (one row per
// example); each epoch takes every row once (slice_input_producer ->
// batch / shuffle_batch, one thread).
class Preloaded {
 public:
  // INVALID_ARGUMENT for an empty list, a scalar, tensors whose first
  // dimensions differ, names that do not match, or bad batching options.
  static Result<std::shared_ptr<BatchSource>> Create(
      Tuple tensors, PreloadedOptions options = {});
};

struct FeedingOptions {
  std::vector<DType> dtypes;
  // The shape of one row of each component (fully defined).
  std::vector<PartialShape> row_shapes;
  std::vector<std::string> names = {};
  // Batches that may wait in the source; Feed() blocks when it is full.
  int64_t capacity = 4;
  std::string name = "feeding";
};

// Feeding: the caller hands each batch in. Feed() from one or more
// threads, Finish() when there are no more; Next() returns the batches as
// fed (FIFO), then OUT_OF_RANGE.
class Feeding : public BatchSource {
 public:
  // INVALID_ARGUMENT for no components, shapes or names that do not match
  // the dtypes, a shape not fully defined or capacity < 1.
  static Result<std::shared_ptr<Feeding>> Create(FeedingOptions options);

  // Hands in one batch: every component [n] + row shape, n >= 1 the same
  // for all (INVALID_ARGUMENT naming the component otherwise). Blocks while
  // `capacity` batches wait (per `options`). CANCELLED after Finish() or
  // Close().
  [[nodiscard]] virtual Status Feed(Tuple batch,
                                    const CallOptions& options = {}) = 0;
  // No more batches: Next() drains those fed, then OUT_OF_RANGE.
  virtual void Finish() = 0;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_BATCH_SOURCE_H_
