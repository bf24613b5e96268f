// Copyright 2026 The inflow Authors.
//
// LooperThread: tf.train.LooperThread (docs/conformance.md, "LooperThread"). A
// thread that calls a function every `interval` (fixed rate), or back to
// back, until its coordinator stops.
//
//   INFLOW_ASSIGN_OR_RETURN(auto t, LooperThread::Loop(
//       &coord, std::chrono::seconds(1), [&] { return ReportProgress(); }));

#ifndef INFLOW_THREADS_LOOPER_THREAD_H_
#define INFLOW_THREADS_LOOPER_THREAD_H_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/thread.h"

namespace inflow {

struct LooperOptions {
  std::string name = "looper";
  // Run once before the first run_loop / after the last (skipped when the
  // loop ended with an error). Either may be empty.
  std::function<Status()> start_loop;
  std::function<Status()> stop_loop;
  // The clock the fixed-rate schedule reads (steady_clock::now when
  // empty). The waits are real ones on the coordinator; a test's fake
  // clock shows the schedule's arithmetic (the catch-up after an overrun)
  // without asserting on wall-clock time.
  std::function<std::chrono::steady_clock::time_point()> now;
};

// Builds looper threads; the threads are inflow Threads (thread-safe).
//
// The body runs inside coord->StopOnException: start_loop, then
//  - interval == nullopt: run_loop back to back while !ShouldStop();
//  - otherwise fixed-rate: the first call at once, then one call per
//    interval; calls that overrun are followed back to back to catch up;
// then stop_loop. An error (or exception) from any of them requests a stop
// with that error (the first error wins) and ends the thread. The loop also
// ends when the Thread itself is asked to stop.
class LooperThread {
 public:
  // INVALID_ARGUMENT without a coordinator or run_loop, or with a
  // non-positive interval. The thread is registered with `coord`, not
  // started.
  static Result<std::shared_ptr<Thread>> Create(
      Coordinator* coord, std::optional<std::chrono::nanoseconds> interval,
      std::function<Status()> run_loop, LooperOptions options = {});

  // Create + Start (TF's LooperThread.loop).
  static Result<std::shared_ptr<Thread>> Loop(
      Coordinator* coord, std::optional<std::chrono::nanoseconds> interval,
      std::function<Status()> run_loop, LooperOptions options = {});
};

}  // namespace inflow

#endif  // INFLOW_THREADS_LOOPER_THREAD_H_
