// Copyright 2026 The inflow Authors.
//
// Internal: MathPool, the threads a model's math runs on. A pool of
// `threads` runs a task as `threads` parts at once: the calling thread
// runs part 0 and threads - 1 workers, named "inflow-math-1", ... in the
// thread registry, started when the pool is made and joined when it is
// destroyed (no thread is made per task), claim the others. A part no
// worker has claimed when the caller is done with its own (the worker is
// off the CPU on a busy machine) the caller runs itself, so a task never
// waits for a thread to be scheduled before its part starts. Which thread
// runs a part does not change what it computes.
//
// A worker that finishes its part spins briefly for the next task (the
// step's products follow each other within tens of microseconds; waking a
// sleeping thread costs about as much) and then sleeps on a condition
// variable. The caller, done with part 0 and any part left unclaimed,
// waits for the parts in progress the same way. A worker's registry counters:
// runs = parts it ran, blocked = time asleep.
//
// Thread-compatible: one thread at a time calls Run.

#ifndef INFLOW_SRC_MODEL_MATH_POOL_H_
#define INFLOW_SRC_MODEL_MATH_POOL_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <stop_token>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/threads/thread.h"

namespace inflow::internal {

class MathPool {
 public:
  static constexpr int kMaxThreads = 64;

  // threads in [1, kMaxThreads] (clamped). With 1, Run calls the task on
  // the caller and nothing is started.
  explicit MathPool(int threads);
  // Waits for the workers to finish their parts (Run has returned, so
  // none is running one) and joins them.
  ~MathPool();
  MathPool(const MathPool&) = delete;
  MathPool& operator=(const MathPool&) = delete;

  int threads() const { return threads_; }

  // Calls task(part) for every part in [0, threads()), each once, part 0
  // on this thread, and returns when every call has returned. An
  // exception from a part (std::bad_alloc) is rethrown here once every
  // part has finished; the first one wins.
  template <typename Task>
  void Run(const Task& task) {
    if (threads_ == 1) {
      task(0);
      return;
    }
    RunParts(
        [](const void* t, int part) { (*static_cast<const Task*>(t))(part); },
        &task);
  }

  // Part `part` of `parts` of [0, n) split into contiguous ranges whose
  // inner bounds are multiples of `align` (as near equal as that allows):
  // sets *begin and *end.
  static void Split(int64_t n, int64_t align, int part, int parts,
                    int64_t* begin, int64_t* end);

 private:
  using Trampoline = void (*)(const void* task, int part);

  void RunParts(Trampoline fn, const void* task);
  void WorkerLoop(std::stop_token own);
  // Claims and runs parts of generation `gen` until none is left; returns
  // how many it ran.
  int RunClaimedParts(uint64_t gen);
  // Runs one part, keeping an exception it throws in error_.
  void RunPart(int part);

  const int threads_;

  // The task of the current generation: written by Run before it stores
  // a new generation in state_ (release), read by a thread after it
  // claimed a part of that generation (acquire); not rewritten before
  // every claimed part has finished (pending_).
  Trampoline fn_ = nullptr;
  const void* task_ = nullptr;
  // generation << 8 | the next part to claim. The generation is bumped by
  // each Run and by the destructor; a part is claimed by a compare-and-
  // swap that checks the generation too, so a late worker never claims
  // a part of a task it did not see.
  std::atomic<uint64_t> state_{0};
  // Parts 1.. of the current task not finished yet.
  std::atomic<int> pending_{0};
  // Workers about to sleep or asleep on work_cv_, and whether the caller
  // is on done_cv_: the side that changes state_ / pending_ reads them
  // after the change and signals under mu_ when they are set
  // (sequentially consistent, so that either the sleeper sees the change
  // or the changer sees the sleeper).
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<bool> stopping_{false};

  Mutex mu_;
  CondVar work_cv_;
  CondVar done_cv_;
  std::exception_ptr error_ INFLOW_GUARDED_BY(mu_);

  std::vector<std::unique_ptr<Thread>> workers_;
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_MODEL_MATH_POOL_H_
