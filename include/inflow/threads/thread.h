// Copyright 2026 The inflow Authors.
//
// Thread: a named thread that inflow starts (queue runners, closers,
// loopers). It registers its counters with ThreadRegistry::Global(), names
// itself for debuggers (the OS keeps the first 15 bytes of the name), and
// can be asked whether it is still running without joining it, which is
// what Coordinator::Join needs to bound its wait.

#ifndef INFLOW_THREADS_THREAD_H_
#define INFLOW_THREADS_THREAD_H_

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include "inflow/core/mutex.h"
#include "inflow/core/status.h"
#include "inflow/threads/thread_registry.h"

namespace inflow {

// Thread-safe: every method may be called from any thread.
//
// The body runs once, after Start(). It receives this thread's own stop
// token, which fires on RequestStop() and when the Thread is destroyed. An
// exception escaping the body is caught: it counts as an error in the stats
// and becomes exit_status() (UNKNOWN); it never terminates the process.
//
// Destroying a started Thread requests stop and then waits for the body to
// return, like std::jthread; bodies must honour their stop token.
class Thread {
 public:
  using Body = std::function<void(std::stop_token)>;

  Thread(std::string name, Body body);
  ~Thread();
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;

  // Launches the body. FAILED_PRECONDITION when already started.
  [[nodiscard]] Status Start() INFLOW_EXCLUDES(mu_);

  // Fires the token the body received. Does not wait.
  void RequestStop() INFLOW_EXCLUDES(mu_);

  // Waits until the body has returned, then reaps the OS thread. Returns at
  // once when the thread was never started.
  void Join() INFLOW_EXCLUDES(mu_);

  // Waits until the body returned or `deadline` passed; true when it
  // returned (or was never started).
  bool WaitUntil(std::chrono::steady_clock::time_point deadline)
      INFLOW_EXCLUDES(mu_);

  // Started and not yet returned.
  bool IsAlive() const INFLOW_EXCLUDES(mu_);
  bool started() const INFLOW_EXCLUDES(mu_);

  // OK, or the error of an exception that escaped the body. Meaningful once
  // the body returned.
  Status exit_status() const INFLOW_EXCLUDES(mu_);

  const std::string& name() const { return stats_->name(); }
  ThreadStats& stats() const { return *stats_; }

 private:
  // State the running body shares with this object.
  struct Shared {
    Mutex mu;
    CondVar done_cv;
    bool done INFLOW_GUARDED_BY(mu) = false;
    Status exit_status INFLOW_GUARDED_BY(mu);
  };

  const std::shared_ptr<ThreadStats> stats_;
  const std::shared_ptr<Shared> shared_;
  std::stop_source stop_;  // thread-safe itself; the body gets its token

  // Lock order: join_mu_ before mu_. join_mu_ is held while reaping, so
  // that concurrent Join() calls and Start() never touch thread_ together.
  Mutex join_mu_;
  std::jthread thread_ INFLOW_GUARDED_BY(join_mu_);
  Body body_ INFLOW_GUARDED_BY(join_mu_);  // moved into the thread by Start()

  mutable Mutex mu_;
  bool started_ INFLOW_GUARDED_BY(mu_) = false;
};

// The highest niceness (the lowest priority) Linux gives a thread.
inline constexpr int kMaxNiceness = 19;

// OK for a niceness increment in [0, kMaxNiceness]; otherwise
// INVALID_ARGUMENT naming it.
Status CheckNicenessIncrement(int increment);

// Raises the calling thread's niceness (its scheduling priority; higher is
// lower) by `increment`, clamped at kMaxNiceness. Linux keeps a niceness
// per thread, and an unprivileged thread may raise its own but not lower it
// back, so this is for threads that keep it to their end (a queue runner's,
// QueueRunnerOptions::nice). CheckNicenessIncrement's error for a bad
// increment; the OS's refusal as INTERNAL with its errno text.
Status AddCurrentThreadNiceness(int increment);

// The calling thread's niceness (-20..19).
int CurrentThreadNiceness();

}  // namespace inflow

#endif  // INFLOW_THREADS_THREAD_H_
