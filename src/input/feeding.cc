// Copyright 2026 The inflow Authors.
//
// Feeding: a FIFOQueue whose elements are whole batches (no shapes, so the
// leading dimension may vary); its capacity is the backpressure.

#include <atomic>
#include <utility>

#include "inflow/input/batch_source.h"
#include "inflow/queue/fifo_queue.h"

namespace inflow {
namespace {

class FeedingSource : public Feeding {
 public:
  FeedingSource(FeedingOptions options, std::shared_ptr<FIFOQueue> queue)
      : options_(std::move(options)), queue_(std::move(queue)) {}

  Status Feed(Tuple batch, const CallOptions& options) override {
    INFLOW_RETURN_IF_ERROR(Check(batch));
    Status s = queue_->Enqueue(std::move(batch), options);
    if (IsCancelled(s) && queue_->IsClosed()) {
      return CancelledError(options_.name + ": Feed after Finish or Close");
    }
    return s;
  }

  void Finish() override { queue_->Close(false).IgnoreError(); }

  Result<Tuple> Next(const CallOptions& options) override {
    if (closed_.load()) return CancelledError(options_.name + " is closed");
    Result<Tuple> batch = queue_->Dequeue(options);
    if (!batch.ok() && closed_.load()) {
      return CancelledError(options_.name + " is closed");
    }
    return batch;
  }

  const std::vector<std::string>& names() const override {
    return options_.names;
  }
  const std::vector<DType>& dtypes() const override { return options_.dtypes; }
  const std::vector<PartialShape>& row_shapes() const override {
    return options_.row_shapes;
  }

  Status Close() override {
    closed_.store(true);
    // Fails feeds blocked on a full queue and releases blocked Next()s.
    queue_->Close(/*cancel_pending_enqueues=*/true).IgnoreError();
    return OkStatus();
  }

 private:
  Status Check(const Tuple& batch) const {
    const std::string& name = options_.name;
    if (batch.size() != options_.dtypes.size()) {
      return InvalidArgumentError(
          name + ": a batch of " + std::to_string(batch.size()) +
          " components, expected " + std::to_string(options_.dtypes.size()));
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      const Tensor& t = batch[i];
      const std::string what = name + ": component " + std::to_string(i);
      if (t.dtype() != options_.dtypes[i]) {
        return InvalidArgumentError(
            what + " is " + std::string(DTypeName(t.dtype())) + ", expected " +
            std::string(DTypeName(options_.dtypes[i])));
      }
      const int64_t n = t.rank() >= 1 ? t.dim_size(0) : 0;
      const PartialShape want = options_.row_shapes[i].Prepend(n);
      if (t.rank() < 1 || n < 1 || !want.IsCompatibleWith(t.shape()) ||
          n != batch[0].dim_size(0)) {
        return InvalidArgumentError(
            what + " has shape " + t.shape().DebugString() +
            ", expected [n] + " + options_.row_shapes[i].DebugString() +
            " with n >= 1 the same " + "for every component");
      }
    }
    return OkStatus();
  }

  const FeedingOptions options_;
  const std::shared_ptr<FIFOQueue> queue_;
  std::atomic<bool> closed_{false};
};

}  // namespace

Result<std::shared_ptr<Feeding>> Feeding::Create(FeedingOptions options) {
  if (options.dtypes.empty()) {
    return InvalidArgumentError("Feeding needs at least one component");
  }
  if (options.row_shapes.size() != options.dtypes.size() ||
      (!options.names.empty() &&
       options.names.size() != options.dtypes.size())) {
    return InvalidArgumentError(
        "Feeding: dtypes, row_shapes and names (when given) must have one "
        "entry per component");
  }
  for (size_t i = 0; i < options.row_shapes.size(); ++i) {
    if (!options.row_shapes[i].IsFullyDefined()) {
      return InvalidArgumentError(
          "Feeding: the row shape of component " + std::to_string(i) +
          " is not fully defined: " + options.row_shapes[i].DebugString());
    }
  }
  if (options.capacity < 1) {
    return InvalidArgumentError("Feeding: capacity must be >= 1, got " +
                                std::to_string(options.capacity));
  }
  QueueOptions q;
  q.capacity = options.capacity;
  q.dtypes = options.dtypes;
  q.name = options.name;
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<FIFOQueue> queue,
                          FIFOQueue::Create(q));
  return std::shared_ptr<Feeding>(
      std::make_shared<FeedingSource>(std::move(options), std::move(queue)));
}

}  // namespace inflow
