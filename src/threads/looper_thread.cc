// Copyright 2026 The inflow Authors.

#include "inflow/threads/looper_thread.h"

#include <utility>

namespace inflow {
namespace {

using Clock = std::chrono::steady_clock;

// One call of a loop function, counted in the calling thread's stats.
Status RunCounted(const std::function<Status()>& fn) {
  Status s = fn();
  if (ThreadStats* stats = CurrentThreadStats()) {
    stats->AddRun();
    if (!s.ok()) stats->AddError();
  }
  return s;
}

Status RunLooper(Coordinator* coord,
                 std::optional<std::chrono::nanoseconds> interval,
                 const std::function<Status()>& run_loop,
                 const LooperOptions& options, std::stop_token own) {
  if (options.start_loop) INFLOW_RETURN_IF_ERROR(options.start_loop());
  if (!interval) {
    while (!coord->ShouldStop() && !own.stop_requested()) {
      INFLOW_RETURN_IF_ERROR(RunCounted(run_loop));
    }
  } else {
    const auto now = [&options] {
      return options.now ? options.now() : Clock::now();
    };
    auto next = now();
    for (;;) {
      const auto wait = std::max(Clock::duration::zero(), next - now());
      if (coord->WaitForStop(wait, own) || own.stop_requested()) break;
      next += *interval;
      INFLOW_RETURN_IF_ERROR(RunCounted(run_loop));
    }
  }
  if (options.stop_loop) INFLOW_RETURN_IF_ERROR(options.stop_loop());
  return OkStatus();
}

}  // namespace

Result<std::shared_ptr<Thread>> LooperThread::Create(
    Coordinator* coord, std::optional<std::chrono::nanoseconds> interval,
    std::function<Status()> run_loop, LooperOptions options) {
  if (coord == nullptr) {
    return InvalidArgumentError("LooperThread needs a Coordinator");
  }
  if (!run_loop) {
    return InvalidArgumentError("LooperThread needs a run_loop function");
  }
  if (interval && interval->count() <= 0) {
    return InvalidArgumentError("LooperThread interval must be positive");
  }
  std::string name = options.name;
  auto thread = std::make_shared<Thread>(
      std::move(name), [coord, interval, run_loop = std::move(run_loop),
                        options = std::move(options)](std::stop_token own) {
        // After a Join the error comes back here instead of being recorded;
        // the thread has nobody to give it to but its own stats.
        Status late = coord->StopOnException(
            [&] { return RunLooper(coord, interval, run_loop, options, own); });
        if (!late.ok()) {
          if (ThreadStats* stats = CurrentThreadStats()) stats->AddError();
        }
      });
  coord->RegisterThread(thread);
  return thread;
}

Result<std::shared_ptr<Thread>> LooperThread::Loop(
    Coordinator* coord, std::optional<std::chrono::nanoseconds> interval,
    std::function<Status()> run_loop, LooperOptions options) {
  INFLOW_ASSIGN_OR_RETURN(
      std::shared_ptr<Thread> thread,
      Create(coord, interval, std::move(run_loop), std::move(options)));
  INFLOW_RETURN_IF_ERROR(thread->Start());
  return thread;
}

}  // namespace inflow
