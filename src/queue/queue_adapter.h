// Copyright 2026 The inflow Authors.
//
// QueueAdapter<Public>: a public queue class (FIFOQueue, ...) implemented
// by a QueueCore. Thread-safe.

#ifndef INFLOW_QUEUE_QUEUE_ADAPTER_H_
#define INFLOW_QUEUE_QUEUE_ADAPTER_H_

#include <utility>

#include "queue/queue_core.h"

namespace inflow::internal {

template <typename Public>
class QueueAdapter final : public Public {
 public:
  explicit QueueAdapter(QueueSpec spec) : core_(std::move(spec)) {}

  Status Enqueue(Tuple element, const CallOptions& options) override {
    return core_.Enqueue(std::move(element), options);
  }
  Status EnqueueMany(Tuple batch, const CallOptions& options) override {
    return core_.EnqueueMany(std::move(batch), options);
  }
  Status EnqueueManyInPlace(int64_t rows, const RowWriter& write,
                            const CallOptions& options) override {
    return core_.EnqueueManyInPlace(rows, write, options);
  }
  Result<Tuple> Dequeue(const CallOptions& options) override {
    return core_.Dequeue(options);
  }
  Result<Tuple> DequeueMany(int64_t n, const CallOptions& options) override {
    return core_.DequeueMany(n, /*allow_small_batch=*/false, options);
  }
  Result<Tuple> DequeueUpTo(int64_t n, const CallOptions& options) override {
    return core_.DequeueMany(n, /*allow_small_batch=*/true, options);
  }
  Status Close(bool cancel_pending_enqueues,
               const CallOptions& options) override {
    return core_.Close(cancel_pending_enqueues, options);
  }
  int64_t Size() const override { return core_.Size(); }
  bool IsClosed() const override { return core_.IsClosed(); }
  int32_t Capacity() const override { return core_.spec().capacity; }
  QueueStats stats() const override { return core_.stats(); }
  const std::string& name() const override { return core_.spec().name; }
  const std::vector<DType>& component_dtypes() const override {
    return core_.spec().dtypes;
  }
  const std::vector<PartialShape>& component_shapes() const override {
    return core_.spec().shapes;
  }
  const std::vector<std::string>& component_names() const override {
    return core_.spec().names;
  }

  const QueueSpec& spec() const { return core_.spec(); }
  const QueueCore& core() const { return core_; }

 private:
  QueueCore core_;
};

// The core behind a queue made by this library's factories; nullptr for
// any other QueueInterface.
const QueueCore* CoreOf(const QueueInterface& queue);

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_QUEUE_ADAPTER_H_
