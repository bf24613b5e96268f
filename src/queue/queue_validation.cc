// Copyright 2026 The inflow Authors.
//
// Argument checks shared by every queue kind (docs/conformance.md,
// "Validation before blocking (1.3)"), and the errors every kind returns. The
// checks run before the lock is taken, so a bad call never blocks and never
// changes the queue.

#include <string>

#include "queue/queue_core.h"

namespace inflow::internal {

std::string QueueCore::Label(size_t component) const {
  std::string label = "component " + std::to_string(component);
  if (!spec_.names.empty()) label += " ('" + spec_.names[component] + "')";
  return label;
}

Status QueueCore::ValidateElement(const Tuple& element) const {
  const size_t n = spec_.dtypes.size();
  if (element.size() != n) {
    return InvalidArgumentError(
        Prefix() + ": wrong number of components in tuple. Expected " +
        std::to_string(n) + ", got " + std::to_string(element.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (element[i].dtype() != spec_.dtypes[i]) {
      return InvalidArgumentError(
          Prefix() + ": type mismatch in tuple " + Label(i) + ". Expected " +
          std::string(DTypeName(spec_.dtypes[i])) + ", got " +
          std::string(DTypeName(element[i].dtype())));
    }
  }
  if (spec_.kind == QueueKind::kPriority && element[0].rank() != 0) {
    return InvalidArgumentError(Prefix() + ": shape mismatch in tuple " +
                                Label(0) + ". Expected [], got " +
                                element[0].shape().DebugString());
  }
  if (specified_shapes_) {
    for (size_t i = 0; i < n; ++i) {
      if (!spec_.shapes[i].IsCompatibleWith(element[i].shape())) {
        return InvalidArgumentError(Prefix() + ": shape mismatch in tuple " +
                                    Label(i) + ". Expected " +
                                    spec_.shapes[i].DebugString() + ", got " +
                                    element[i].shape().DebugString());
      }
    }
  }
  return OkStatus();
}

Status QueueCore::ValidateBatch(const Tuple& batch, int64_t* rows) const {
  const size_t n = spec_.dtypes.size();
  if (batch.size() != n) {
    return InvalidArgumentError(
        Prefix() + ": wrong number of components in tuple. Expected " +
        std::to_string(n) + ", got " + std::to_string(batch.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (batch[i].dtype() != spec_.dtypes[i]) {
      return InvalidArgumentError(
          Prefix() + ": type mismatch in tuple " + Label(i) + ". Expected " +
          std::string(DTypeName(spec_.dtypes[i])) + ", got " +
          std::string(DTypeName(batch[i].dtype())));
    }
    if (batch[i].rank() < 1) {
      return InvalidArgumentError(Prefix() +
                                  ": enqueue_many needs a batch, but " +
                                  Label(i) + " is a scalar");
    }
  }
  *rows = batch[0].dim_size(0);
  for (size_t i = 1; i < n; ++i) {
    if (batch[i].dim_size(0) != *rows) {
      return InvalidArgumentError(
          Prefix() +
          ": all input tensors must have the same size in the 0th "
          "dimension. " +
          Label(i) + " has " + std::to_string(batch[i].dim_size(0)) +
          ", and should have " + std::to_string(*rows));
    }
  }
  if (spec_.kind == QueueKind::kPriority && batch[0].rank() != 1) {
    return InvalidArgumentError(
        Prefix() + ": shape mismatch in tuple " + Label(0) + ". Expected [" +
        std::to_string(*rows) + "], got " + batch[0].shape().DebugString());
  }
  if (specified_shapes_) {
    for (size_t i = 0; i < n; ++i) {
      const PartialShape expected = spec_.shapes[i].Prepend(*rows);
      if (!expected.IsCompatibleWith(batch[i].shape())) {
        return InvalidArgumentError(
            Prefix() + ": shape mismatch in tuple " + Label(i) + ". Expected " +
            expected.DebugString() + ", got " + batch[i].shape().DebugString());
      }
    }
  }
  return OkStatus();
}

Status QueueCore::ValidateDequeueMany(int64_t n) const {
  if (n < 0) {
    return InvalidArgumentError(
        Prefix() + ": cannot dequeue a negative number of elements (" +
        std::to_string(n) + ")");
  }
  if (!pad_ && !specified_shapes_) {
    return InvalidArgumentError(
        Prefix() +
        ": DequeueMany and DequeueUpTo require the components to have "
        "specified shapes.");
  }
  return OkStatus();
}

std::string QueueCore::Prefix() const {
  return std::string(QueueKindName(spec_.kind)) + " '" + spec_.name + "'";
}

Status QueueCore::ClosedError() const {
  return CancelledError(Prefix() + " is closed.");
}

Status QueueCore::InsufficientError(int64_t requested, int64_t size) const {
  return OutOfRangeError(Prefix() +
                         " is closed and has insufficient elements "
                         "(requested " +
                         std::to_string(requested) + ", current size " +
                         std::to_string(size) + ")");
}

Status QueueCore::ClosedDequeueError(int64_t requested,
                                     const CallOptions& options) const {
  // The stop came first: it, not the close, answers the call (as a stop
  // answers a waiting attempt before a later close can).
  if (options.stop.stop_requested()) {
    return CancelledError("Dequeue operation was cancelled");
  }
  return InsufficientError(requested, StoredLocked());
}

}  // namespace inflow::internal
