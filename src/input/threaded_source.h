// Copyright 2026 The inflow Authors.
//
// ThreadedSource: what Pipeline and Preloaded share: a Batcher whose
// queue runners (and the producer's) live in a private collection, run
// by the source's own Coordinator. Next() turns the coordinator's
// recorded error into the answer of every call once a stage has failed.

#ifndef INFLOW_SRC_INPUT_THREADED_SOURCE_H_
#define INFLOW_SRC_INPUT_THREADED_SOURCE_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/input/batch_source.h"
#include "inflow/input/batching.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"
#include "inflow/threads/thread.h"

namespace inflow {
namespace internal {

// capacity 0 -> min_after_dequeue + 3 * batch_size.
int64_t EffectiveCapacity(const BatchingOptions& options);

// Makes the batching call of `options` (batch / shuffle_batch, their
// *_join forms when inputs.size() > 1): each input's step returns one row
// of `row_shapes`, or with `enqueue_many` a chunk of rows. Registered in
// `collection`.
Result<std::shared_ptr<Batcher>> MakeBatcher(
    std::vector<BatchInput> inputs, std::vector<PartialShape> row_shapes,
    bool enqueue_many, const BatchingOptions& options, const std::string& scope,
    MetricsRegistry* metrics, QueueRunnerCollection* collection);

class ThreadedSource {
 public:
  // `sparse`: empty, or one per component (BatchSource::sparse()).
  ThreadedSource(std::vector<std::string> names, std::vector<DType> dtypes,
                 std::vector<PartialShape> row_shapes,
                 std::chrono::milliseconds stop_grace_period,
                 std::vector<bool> sparse = {});
  // Stops and joins (Close()).
  ~ThreadedSource();
  ThreadedSource(const ThreadedSource&) = delete;
  ThreadedSource& operator=(const ThreadedSource&) = delete;

  QueueRunnerCollection* collection() { return &collection_; }
  // Starts every runner of collection() on the source's coordinator; Next()
  // dequeues from `batcher`.
  void Start(std::shared_ptr<Batcher> batcher) INFLOW_EXCLUDES(mu_);

  Result<Tuple> Next(const CallOptions& options);
  Status Close() INFLOW_EXCLUDES(mu_);

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<DType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& row_shapes() const { return row_shapes_; }
  const std::vector<bool>& sparse() const { return sparse_; }
  const std::shared_ptr<Batcher>& batcher() const { return batcher_; }

 private:
  const std::vector<std::string> names_;
  const std::vector<DType> dtypes_;
  const std::vector<PartialShape> row_shapes_;
  const std::chrono::milliseconds stop_grace_period_;
  const std::vector<bool> sparse_;
  QueueRunnerCollection collection_;
  // Set by Start(), before any Next().
  std::shared_ptr<Batcher> batcher_;
  Mutex mu_;
  std::vector<std::shared_ptr<Thread>> threads_ INFLOW_GUARDED_BY(mu_);
  bool closed_ INFLOW_GUARDED_BY(mu_) = false;
  Status close_status_ INFLOW_GUARDED_BY(mu_);
  // Last: destroyed first, joining any thread still running while the
  // members above are alive.
  Coordinator coord_;
};

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_SRC_INPUT_THREADED_SOURCE_H_
