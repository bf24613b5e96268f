// Copyright 2026 The inflow Authors.

#include "threaded_source.h"

#include <optional>
#include <stop_token>
#include <utility>

namespace inflow {
namespace internal {

int64_t EffectiveCapacity(const BatchingOptions& options) {
  if (options.capacity > 0) return options.capacity;
  return (options.shuffle ? options.min_after_dequeue : 0) +
         3 * options.batch_size;
}

Result<std::shared_ptr<Batcher>> MakeBatcher(
    std::vector<BatchInput> inputs, std::vector<PartialShape> row_shapes,
    bool enqueue_many, const BatchingOptions& options, const std::string& scope,
    MetricsRegistry* metrics, QueueRunnerCollection* collection) {
  if (options.batch_size < 1) {
    return InvalidArgumentError("batch_size must be >= 1, got " +
                                std::to_string(options.batch_size));
  }
  const bool join = inputs.size() > 1;
  ShuffleBatchOptions o;
  o.batch_size = options.batch_size;
  o.capacity = EffectiveCapacity(options);
  o.enqueue_many = enqueue_many;
  o.shapes = std::move(row_shapes);
  o.allow_smaller_final_batch = options.allow_smaller_final_batch;
  o.metrics = metrics;
  o.collection = collection;
  o.nice = options.nice;
  if (options.shuffle) {
    o.name = scope + (join ? "/shuffle_batch_join" : "/shuffle_batch");
    o.min_after_dequeue = options.min_after_dequeue;
    o.seed = options.seed;
    o.graph_seed = options.graph_seed;
    return join ? ShuffleBatchJoin(std::move(inputs), o)
                : ShuffleBatch(std::move(inputs.front()), o);
  }
  o.name = scope + (join ? "/batch_join" : "/batch");
  const BatchOptions& b = o;
  return join ? BatchJoin(std::move(inputs), b)
              : Batch(std::move(inputs.front()), b);
}

ThreadedSource::ThreadedSource(std::vector<std::string> names,
                               std::vector<DType> dtypes,
                               std::vector<PartialShape> row_shapes,
                               std::chrono::milliseconds stop_grace_period,
                               std::vector<bool> sparse)
    : names_(std::move(names)),
      dtypes_(std::move(dtypes)),
      row_shapes_(std::move(row_shapes)),
      stop_grace_period_(stop_grace_period),
      sparse_(std::move(sparse)) {}

ThreadedSource::~ThreadedSource() { Close().IgnoreError(); }

void ThreadedSource::Start(std::shared_ptr<Batcher> batcher) {
  batcher_ = std::move(batcher);
  std::vector<std::shared_ptr<Thread>> threads =
      collection_.Start(&coord_, /*start=*/true);
  MutexLock lock(&mu_);
  threads_ = std::move(threads);
}

Result<Tuple> ThreadedSource::Next(const CallOptions& options) {
  CallOptions call = coord_.MakeCallOptions();
  call.timeout = options.timeout;
  // The caller's stop releases the call as the source's own does: one
  // token that either fires (an abandoned dequeue puts back what it took).
  std::optional<std::stop_source> either;
  auto fire = [&either] { either->request_stop(); };
  std::optional<std::stop_callback<decltype(fire)>> from_caller, from_source;
  if (options.stop.stop_possible()) {
    either.emplace();
    from_caller.emplace(options.stop, fire);
    from_source.emplace(call.stop, fire);
    call.stop = either->get_token();
  }
  Result<Tuple> batch = batcher_->Next(call);
  if (batch.ok()) return batch;
  if (options.stop.stop_requested() && IsCancelled(batch.status()) &&
      !coord_.ShouldStop()) {
    // The caller's stop, not the source's: the source runs on.
    return batch;
  }
  // A stage's error stops the coordinator (recording the error) before its
  // stop releases this call, so the error is visible here.
  Status recorded = coord_.RecordedError();
  if (!recorded.ok()) return recorded;
  const Status& s = batch.status();
  if (IsOutOfRange(s) || IsDeadlineExceeded(s)) return s;
  if (coord_.ShouldStop()) return CancelledError("the source is closed");
  // The batching queue itself failed: that stops everything too.
  Status error = s.WithContext("batch");
  coord_.RequestStop(error).IgnoreError();
  return error;
}

Status ThreadedSource::Close() {
  MutexLock lock(&mu_);
  if (closed_) return close_status_;
  closed_ = true;
  coord_.RequestStop();
  close_status_ = coord_.Join(threads_, stop_grace_period_);
  threads_.clear();
  return close_status_;
}

}  // namespace internal
}  // namespace inflow
