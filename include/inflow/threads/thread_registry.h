// Copyright 2026 The inflow Authors.
//
// The thread registry: every thread inflow starts has a name and counters
// (runs, errors, time blocked) that progress lines, stats exports and traces
// read from one place.
//
//   for (const ThreadSnapshot& t : ThreadRegistry::Global().Snapshot())
//     std::printf("%s runs=%lld\n", t.name.c_str(), (long long)t.runs);
//
// Code running on an inflow thread can charge time spent waiting to that
// thread with ScopedBlockedTimer (QueueRunner does so around enqueues).

#ifndef INFLOW_THREADS_THREAD_REGISTRY_H_
#define INFLOW_THREADS_THREAD_REGISTRY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/mutex.h"

namespace inflow {

enum class ThreadState { kCreated = 0, kRunning = 1, kFinished = 2 };

// "created", "running", "finished".
std::string_view ThreadStateName(ThreadState state);

// Counters of one thread. Thread-safe: the thread updates them while any
// thread reads them; values read together are not a consistent snapshot.
class ThreadStats {
 public:
  ThreadStats(uint64_t id, std::string name);
  ThreadStats(const ThreadStats&) = delete;
  ThreadStats& operator=(const ThreadStats&) = delete;

  uint64_t id() const { return id_; }
  const std::string& name() const { return name_; }

  // The counters are statistics only: no other memory is published through
  // them, so relaxed increments and loads are enough.
  void AddRun() { runs_.fetch_add(1, std::memory_order_relaxed); }
  void AddError() { errors_.fetch_add(1, std::memory_order_relaxed); }
  void AddBlocked(std::chrono::nanoseconds d) {
    blocked_ns_.fetch_add(d.count(), std::memory_order_relaxed);
  }
  void set_state(ThreadState s) { state_.store(s, std::memory_order_relaxed); }

  int64_t runs() const { return runs_.load(std::memory_order_relaxed); }
  int64_t errors() const { return errors_.load(std::memory_order_relaxed); }
  std::chrono::nanoseconds blocked() const {
    return std::chrono::nanoseconds(
        blocked_ns_.load(std::memory_order_relaxed));
  }
  ThreadState state() const { return state_.load(std::memory_order_relaxed); }

 private:
  const uint64_t id_;
  const std::string name_;
  std::atomic<int64_t> runs_{0};
  std::atomic<int64_t> errors_{0};
  std::atomic<int64_t> blocked_ns_{0};
  std::atomic<ThreadState> state_{ThreadState::kCreated};
};

// A copy of one thread's counters.
struct ThreadSnapshot {
  uint64_t id = 0;
  std::string name;
  ThreadState state = ThreadState::kCreated;
  int64_t runs = 0;
  int64_t errors = 0;
  std::chrono::nanoseconds blocked{0};
};

// Thread-safe. Holds the stats of every live inflow Thread object; an entry
// goes when the last reference to its stats goes (normally with the Thread).
class ThreadRegistry {
 public:
  // The process-wide registry every inflow Thread registers with.
  static ThreadRegistry& Global();

  ThreadRegistry() = default;
  ThreadRegistry(const ThreadRegistry&) = delete;
  ThreadRegistry& operator=(const ThreadRegistry&) = delete;

  // New stats for a thread called `name`, with a fresh id.
  std::shared_ptr<ThreadStats> Register(std::string name) INFLOW_EXCLUDES(mu_);

  // The registered threads, oldest first.
  std::vector<ThreadSnapshot> Snapshot() const INFLOW_EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  uint64_t next_id_ INFLOW_GUARDED_BY(mu_) = 1;
  mutable std::vector<std::weak_ptr<ThreadStats>> entries_
      INFLOW_GUARDED_BY(mu_);
};

// The stats of the inflow thread running the caller; nullptr on threads
// inflow did not start.
ThreadStats* CurrentThreadStats();

namespace internal {
// Sets what CurrentThreadStats() returns on this thread.
void SetCurrentThreadStats(ThreadStats* stats);
}  // namespace internal

// Adds the time from construction to destruction to the calling thread's
// blocked time (no-op off inflow threads). Not thread-safe: one thread.
class ScopedBlockedTimer {
 public:
  ScopedBlockedTimer()
      : stats_(CurrentThreadStats()),
        start_(stats_ ? std::chrono::steady_clock::now()
                      : std::chrono::steady_clock::time_point()) {}
  ~ScopedBlockedTimer() {
    if (stats_) stats_->AddBlocked(std::chrono::steady_clock::now() - start_);
  }
  ScopedBlockedTimer(const ScopedBlockedTimer&) = delete;
  ScopedBlockedTimer& operator=(const ScopedBlockedTimer&) = delete;

 private:
  ThreadStats* const stats_;
  const std::chrono::steady_clock::time_point start_;
};

}  // namespace inflow

#endif  // INFLOW_THREADS_THREAD_REGISTRY_H_
