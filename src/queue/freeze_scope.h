// Copyright 2026 The inflow Authors.
//
// QueueCore::FreezeScope: the lock-free path's gate kept closed for one
// locked section (queue_core.h).

#ifndef INFLOW_QUEUE_FREEZE_SCOPE_H_
#define INFLOW_QUEUE_FREEZE_SCOPE_H_

#include "inflow/core/mutex.h"

#include "queue/queue_core.h"

namespace inflow::internal {

// Keeps the lock-free path's gate closed for a locked section: declare it
// right after the lock, so that it reopens the gate (if (a)-(c) of
// queue_core.h hold) before the lock is released.
class QueueCore::FreezeScope {
 public:
  explicit FreezeScope(const QueueCore* core) INFLOW_NO_THREAD_SAFETY_ANALYSIS
      : core_(core) {
    core_->FreezeLocked();
  }
  ~FreezeScope() INFLOW_NO_THREAD_SAFETY_ANALYSIS { core_->ThawLocked(); }
  FreezeScope(const FreezeScope&) = delete;
  FreezeScope& operator=(const FreezeScope&) = delete;

 private:
  const QueueCore* const core_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_FREEZE_SCOPE_H_
