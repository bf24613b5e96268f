// Copyright 2026 The inflow Authors.
//
// QueueCore::stats() (queue.h's QueueStats). Counting costs the hot paths
// nothing: a lock-free push is its segment's position advance, a locked
// push one increment under the lock, and a dequeued element is one that
// left the storage and is not held by a pending DequeueMany. Only calls
// that wait read a clock (BlockedClock, poll.h).

#include <chrono>
#include <cstdint>

#include "queue/attempt.h"
#include "queue/freeze_scope.h"
#include "queue/queue_core.h"

namespace inflow::internal {

int64_t QueueCore::EnqueuedLocked() const {
  int64_t enqueued = locked_enqueued_ + dropped_try_pushes_;
  for (const auto& segment : segments_) {
    enqueued += static_cast<int64_t>(segment->TryPushesExclusive());
  }
  return enqueued;
}

QueueStats QueueCore::stats() const {
  QueueStats stats;
  {
    MutexLock lock(&mu_);
    // Exact: with the gate closed no lock-free call is in flight.
    FreezeScope freeze(this);
    int64_t held = 0;
    for (const auto& a : dequeue_attempts_) {
      held += static_cast<int64_t>(a->taken.size() + a->taken_rows.size());
    }
    stats.enqueued = EnqueuedLocked();
    stats.dequeued = stats.enqueued - StoredLocked() - held;
  }
  stats.enqueue_blocked =
      std::chrono::nanoseconds(blocked_ns_[0].load(std::memory_order_relaxed));
  stats.dequeue_blocked =
      std::chrono::nanoseconds(blocked_ns_[1].load(std::memory_order_relaxed));
  return stats;
}

}  // namespace inflow::internal
