// Copyright 2026 The inflow Authors.
//
// Mutex, MutexLock and CondVar: thin wrappers over the standard ones that
// carry clang thread-safety annotations (libstdc++'s std::mutex has none).
// The annotation macros expand to nothing under gcc.

#ifndef INFLOW_CORE_MUTEX_H_
#define INFLOW_CORE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define INFLOW_THREAD_ANNOTATION_(x) __attribute__((x))
#else
#define INFLOW_THREAD_ANNOTATION_(x)
#endif

#define INFLOW_CAPABILITY(x) INFLOW_THREAD_ANNOTATION_(capability(x))
#define INFLOW_SCOPED_CAPABILITY INFLOW_THREAD_ANNOTATION_(scoped_lockable)
#define INFLOW_GUARDED_BY(x) INFLOW_THREAD_ANNOTATION_(guarded_by(x))
#define INFLOW_PT_GUARDED_BY(x) INFLOW_THREAD_ANNOTATION_(pt_guarded_by(x))
#define INFLOW_REQUIRES(...) \
  INFLOW_THREAD_ANNOTATION_(requires_capability(__VA_ARGS__))
#define INFLOW_EXCLUDES(...) \
  INFLOW_THREAD_ANNOTATION_(locks_excluded(__VA_ARGS__))
#define INFLOW_ACQUIRE(...) \
  INFLOW_THREAD_ANNOTATION_(acquire_capability(__VA_ARGS__))
#define INFLOW_RELEASE(...) \
  INFLOW_THREAD_ANNOTATION_(release_capability(__VA_ARGS__))
#define INFLOW_TRY_ACQUIRE(...) \
  INFLOW_THREAD_ANNOTATION_(try_acquire_capability(__VA_ARGS__))
#define INFLOW_NO_THREAD_SAFETY_ANALYSIS \
  INFLOW_THREAD_ANNOTATION_(no_thread_safety_analysis)

namespace inflow {

class CondVar;

// Thread-safe. A non-recursive mutex.
class INFLOW_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() INFLOW_ACQUIRE() { mu_.lock(); }
  void unlock() INFLOW_RELEASE() { mu_.unlock(); }
  bool try_lock() INFLOW_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // For annotation only: documents that the caller holds the lock.
  void AssertHeld() const INFLOW_THREAD_ANNOTATION_(assert_capability(this)) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class INFLOW_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) INFLOW_ACQUIRE(mu) : mu_(mu) { mu_->lock(); }
  ~MutexLock() INFLOW_RELEASE() { mu_->unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Thread-safe. A condition variable used with a held Mutex.
class CondVar {
 public:
  using Clock = std::chrono::steady_clock;

  void Wait(Mutex* mu) INFLOW_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // Returns false when `deadline` passed before a signal arrived.
  bool WaitUntil(Mutex* mu, Clock::time_point deadline) INFLOW_REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool signalled =
        cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return signalled;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace inflow

#endif  // INFLOW_CORE_MUTEX_H_
