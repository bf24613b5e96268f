// Copyright 2026 The inflow Authors.
//
// Coordinator: tf.train.Coordinator. Threads that start, stop and fail
// together (docs/conformance.md, "Coordinator").
//
//   Coordinator coord;
//   auto threads = runner->CreateThreads(&coord, /*start=*/true);
//   while (!coord.ShouldStop()) {
//     Result<Tuple> batch = queue->DequeueMany(32, coord.MakeCallOptions());
//     if (!batch.ok()) { coord.RequestStop(batch.status()).IgnoreError(); }
//     ...
//   }
//   Status s = coord.Join(threads);  // the first error, or OK
//
// One way to stop: the coordinator owns a std::stop_source. RequestStop
// fires it, so every blocking queue call made with MakeCallOptions() (or
// with stop_token()) returns CANCELLED at once. That answer is final
// before any thread that WaitForStop() wakes can act on the stop: a
// QueueRunner's closer, whose Close(true) would otherwise answer a blocked
// DequeueMany with OUT_OF_RANGE, closes the queue only afterwards.

#ifndef INFLOW_THREADS_COORDINATOR_H_
#define INFLOW_THREADS_COORDINATOR_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/mutex.h"
#include "inflow/core/status.h"
#include "inflow/threads/thread.h"

namespace inflow {

// Thread-safe: every method may be called from any thread.
//
// A Coordinator must outlive the threads that use it; Join() them (or let
// the destructor, which requests stop and joins the registered threads)
// before it goes.
class Coordinator {
 public:
  static constexpr std::chrono::seconds kDefaultStopGracePeriod{120};

  // Errors of a `clean_stop_codes` kind passed to RequestStop count as a
  // clean stop (no error recorded). TF's default is {OUT_OF_RANGE}.
  explicit Coordinator(std::vector<StatusCode> clean_stop_codes = {
                           StatusCode::kOutOfRange});
  // Requests stop, then joins every registered thread and every thread a
  // Join left running (waiting for them: they may still use this object).
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // True once a stop was requested (until ClearStop).
  bool ShouldStop() const;

  // Requests a clean stop. A no-op when a stop was already requested.
  void RequestStop() INFLOW_EXCLUDES(mu_);

  // Requests a stop caused by `error`. A clean-stop kind (or OK) counts as
  // no error. The first request wins: when a stop was already requested the
  // call does nothing, even if that first stop carried no error. After
  // Join(), nothing is recorded and `error` (unless clean) is returned to
  // the caller, like TF's re-raise; otherwise returns OK.
  [[nodiscard]] Status RequestStop(const Status& error) INFLOW_EXCLUDES(mu_);

  // Clears the stop flag, the recorded error and the joined flag; keeps the
  // registered threads. Installs a fresh stop source: tokens taken before
  // stay stopped.
  void ClearStop() INFLOW_EXCLUDES(mu_);

  // Blocks until a stop is requested, `timeout` passes (nullopt: no limit)
  // or `also` fires. Returns true once RequestStop has fired stop_token()
  // and its callbacks have run (every blocked queue call made with the
  // token is answered), whether the wait ends by the stop or by its
  // timeout; false otherwise, also while a RequestStop is still running
  // the callbacks (ShouldStop() is already true then).
  bool WaitForStop(std::optional<std::chrono::nanoseconds> timeout = {},
                   std::stop_token also = {}) INFLOW_EXCLUDES(mu_);

  // Fires when a stop is requested.
  std::stop_token stop_token() const INFLOW_EXCLUDES(mu_);
  // CallOptions for a blocking queue call that a stop releases.
  CallOptions MakeCallOptions(
      std::optional<std::chrono::milliseconds> timeout = {}) const;

  // Adds `thread` to those Join() waits for.
  void RegisterThread(std::shared_ptr<Thread> thread) INFLOW_EXCLUDES(mu_);

  // Runs `fn`. An error it returns or an exception escaping it (UNKNOWN,
  // with what()) goes to RequestStop and is swallowed: the result is OK,
  // unless the coordinator was already joined, when the error is returned
  // (TF's re-raise).
  // `fn` returns Status or void.
  template <typename F>
  [[nodiscard]] Status StopOnException(F&& fn) {
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      return RunAndReport([&fn]() -> Status {
        fn();
        return OkStatus();
      });
    } else {
      return RunAndReport([&fn]() -> Status { return fn(); });
    }
  }

  // Waits until every thread of `threads` and of the registered set has
  // returned, or a stop is requested; then gives the threads
  // `stop_grace_period` (from the moment the stop was noticed) to return,
  // and reaps those that did. Marks the coordinator joined and clears the
  // registered set. Returns the recorded error if there is one; otherwise,
  // when threads are still running, UNKNOWN "Coordinator stopped with
  // threads still running: <names>" (OK instead with
  // `ignore_live_threads`); otherwise OK. Never waits past the grace period
  // once a stop was requested; without any stop and with threads that never
  // return, it waits for them (as TF).
  [[nodiscard]] Status Join(
      std::vector<std::shared_ptr<Thread>> threads = {},
      std::chrono::nanoseconds stop_grace_period = kDefaultStopGracePeriod,
      bool ignore_live_threads = false) INFLOW_EXCLUDES(mu_);

  // The recorded error; OK when there is none (TF's
  // raise_requested_exception).
  Status RecordedError() const INFLOW_EXCLUDES(mu_);
  bool joined() const INFLOW_EXCLUDES(mu_);

 private:
  Status RunAndReport(const std::function<Status()>& fn);
  bool IsCleanStop(const Status& s) const;
  bool AllDone(const std::vector<std::shared_ptr<Thread>>& threads) const;

  const std::vector<StatusCode> clean_stop_codes_;

  mutable Mutex mu_;
  CondVar stop_cv_;  // signalled when stop_fired_ becomes true
  // Also read without the lock by ShouldStop(); written under mu_.
  std::atomic<bool> stop_{false};
  // The stop source of the stop requested has fired (after stop_).
  bool stop_fired_ INFLOW_GUARDED_BY(mu_) = false;
  Status error_ INFLOW_GUARDED_BY(mu_);
  bool joined_ INFLOW_GUARDED_BY(mu_) = false;
  std::stop_source stop_source_ INFLOW_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Thread>> registered_ INFLOW_GUARDED_BY(mu_);
  // Threads a Join gave up on; the destructor still joins them.
  std::vector<std::shared_ptr<Thread>> stragglers_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow

#endif  // INFLOW_THREADS_COORDINATOR_H_
