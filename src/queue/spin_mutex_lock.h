// Copyright 2026 The inflow Authors.
//
// SpinMutexLock: a scoped lock of a Mutex that spins briefly before it
// sleeps, for the queue's short critical sections.

#ifndef INFLOW_QUEUE_SPIN_MUTEX_LOCK_H_
#define INFLOW_QUEUE_SPIN_MUTEX_LOCK_H_

#include <algorithm>

#include "inflow/core/mutex.h"

#include "queue/cpu_pause.h"

namespace inflow::internal {

// Holds the queue's Mutex for its scope. Critical sections are a few dozen
// nanoseconds, so under contention a short spin usually gets the lock
// without the futex sleep and wake-up that Mutex::lock() costs.
class INFLOW_SCOPED_CAPABILITY SpinMutexLock {
 public:
  explicit SpinMutexLock(Mutex* mu) INFLOW_ACQUIRE(mu) : mu_(mu) {
    Acquire(mu);
  }
  ~SpinMutexLock() INFLOW_RELEASE() { mu_->unlock(); }
  SpinMutexLock(const SpinMutexLock&) = delete;
  SpinMutexLock& operator=(const SpinMutexLock&) = delete;

 private:
  static void Acquire(Mutex* mu) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
    // Backoff between attempts: each failed try_lock steals the lock's
    // cache line from the holder. It grows to kMaxBackoff pauses and no
    // further, so that a waiter does not sleep through the release of a
    // short critical section (a pause is 15 to 140 cycles depending on
    // the CPU); about 500 pauses in all before the futex.
    constexpr int kMaxBackoff = 32;
    int backoff = 1;
    for (int attempt = 0; attempt < 20; ++attempt) {
      if (mu->try_lock()) return;
      for (int i = 0; i < backoff; ++i) CpuPause();
      backoff = std::min(backoff * 2, kMaxBackoff);
    }
    mu->lock();
  }
  Mutex* const mu_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_SPIN_MUTEX_LOCK_H_
