// Copyright 2026 The inflow Authors.
//
// EnqueuerRunner: what OrderedEnqueuer and GeneratorEnqueuer share around
// their EnqueuerSlots: starting once, the named threads, the coordinator
// whose stop token reaches the user's code, Get(), IsRunning() and a Stop()
// with a bounded join.

#ifndef INFLOW_SRC_INPUT_ENQUEUER_RUNNER_H_
#define INFLOW_SRC_INPUT_ENQUEUER_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/thread.h"

#include "input/enqueuer_slots.h"

namespace inflow::internal {

// Thread-safe: every method may be called from any thread.
class EnqueuerRunner {
 public:
  // A thread's loop. `options` carries the stop token that fires when the
  // enqueuer stops, for the user's code.
  using Body =
      std::function<void(EnqueuerSlots* slots, const CallOptions& options)>;

  // `kind` names the enqueuer in messages ("OrderedEnqueuer").
  explicit EnqueuerRunner(std::string kind);
  // Stop() without a time limit.
  ~EnqueuerRunner();
  EnqueuerRunner(const EnqueuerRunner&) = delete;
  EnqueuerRunner& operator=(const EnqueuerRunner&) = delete;

  // FAILED_PRECONDITION when started before; INVALID_ARGUMENT for
  // workers < 1 or max_queue_size < 1; then `prepare`'s error, if any
  // (it runs under the start lock). Otherwise starts `workers` threads
  // "<name>/worker:<k>" running `worker`, and "<name>/producer" running
  // `producer` unless it is empty. An exception escaping a body stops the
  // slots with it (UNKNOWN): the bodies catch the user code's own.
  [[nodiscard]] Status Start(int workers, int64_t max_queue_size,
                             const std::function<Status()>& prepare,
                             const std::string& name, Body worker,
                             Body producer) INFLOW_EXCLUDES(mu_);

  // EnqueuerSlots::Take; FAILED_PRECONDITION before Start(). A stopping
  // answer (an error handed out, the end) also fires the stop token.
  [[nodiscard]] Result<Tuple> Get(const CallOptions& options)
      INFLOW_EXCLUDES(mu_);
  bool IsRunning() const INFLOW_EXCLUDES(mu_);
  // Stops the slots (Take then returns CANCELLED), fires the stop token and
  // joins the threads for up to `timeout` (nullopt: no limit): OK, or
  // UNKNOWN naming the threads still running. OK when never started.
  Status Stop(std::optional<std::chrono::milliseconds> timeout)
      INFLOW_EXCLUDES(mu_);

 private:
  std::shared_ptr<Thread> MakeThread(std::string name, Body body,
                                     EnqueuerSlots* slots);
  std::shared_ptr<EnqueuerSlots> slots() const INFLOW_EXCLUDES(mu_);

  const std::string kind_;
  mutable Mutex mu_;
  bool started_ INFLOW_GUARDED_BY(mu_) = false;
  std::shared_ptr<EnqueuerSlots> slots_ INFLOW_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Thread>> threads_ INFLOW_GUARDED_BY(mu_);
  // Last: destroyed first, joining any thread still running while the
  // members above are alive.
  Coordinator coord_;
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_INPUT_ENQUEUER_RUNNER_H_
