// Copyright 2026 The inflow Authors.
//
// EpochLimit: tf.train.limit_epochs's counter (a CountUpTo on a local
// variable), checked before the value is handed out.

#include <string>

#include "inflow/input/producers.h"

namespace inflow {

Result<std::shared_ptr<EpochLimit>> EpochLimit::Create(
    Tuple value, std::optional<int64_t> num_epochs) {
  if (num_epochs.has_value() && *num_epochs <= 0) {
    return InvalidArgumentError("num_epochs must be > 0 or unset, got " +
                                std::to_string(*num_epochs));
  }
  return std::shared_ptr<EpochLimit>(
      new EpochLimit(std::move(value), num_epochs));
}

Result<Tuple> EpochLimit::Next() {
  int64_t epochs = epochs_.load(std::memory_order_relaxed);
  do {
    if (num_epochs_.has_value() && epochs >= *num_epochs_) {
      return OutOfRangeError("Reached limit of " +
                             std::to_string(*num_epochs_));
    }
  } while (!epochs_.compare_exchange_weak(epochs, epochs + 1,
                                          std::memory_order_relaxed));
  return value_;
}

int64_t EpochLimit::epochs() const {
  return epochs_.load(std::memory_order_relaxed);
}

void EpochLimit::Reset() { epochs_.store(0, std::memory_order_relaxed); }

}  // namespace inflow
