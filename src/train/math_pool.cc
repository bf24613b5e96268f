// Copyright 2026 The inflow Authors.

#include "train/math_pool.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "inflow/threads/thread_registry.h"

namespace inflow::internal {
namespace {

// How long a thread spins for the next task, or for the other parts,
// before it sleeps.
constexpr std::chrono::microseconds kSpin{50};

inline void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or kSpin has passed; returns done().
template <typename Done>
bool SpinUntil(const Done& done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      Pause();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

}  // namespace

MathPool::MathPool(int threads)
    : threads_(std::clamp(threads, 1, kMaxThreads)) {
  for (int part = 1; part < threads_; ++part) {
    workers_.push_back(std::make_unique<Thread>(
        "inflow-math-" + std::to_string(part),
        [this, part](std::stop_token) { WorkerLoop(part); }));
  }
  // A fresh Thread starts.
  for (auto& w : workers_) w->Start().IgnoreError();
}

MathPool::~MathPool() {
  stopping_.store(true);
  generation_.fetch_add(1);
  {
    MutexLock lock(&mu_);
    work_cv_.SignalAll();
  }
  // Each Thread's destructor joins it; a worker returns as soon as it
  // sees the bumped generation with stopping_ set.
  workers_.clear();
}

void MathPool::Split(int64_t n, int64_t align, int part, int parts,
                     int64_t* begin, int64_t* end) {
  const int64_t units = (n + align - 1) / align;
  *begin = std::min(n, align * (units * part / parts));
  *end = part + 1 == parts ? n
                           : std::min(n, align * (units * (part + 1) / parts));
}

void MathPool::RunParts(Trampoline fn, const void* task) {
  fn_ = fn;
  task_ = task;
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1);  // publishes fn_, task_ and pending_
  if (sleepers_.load() > 0) {
    MutexLock lock(&mu_);
    work_cv_.SignalAll();
  }
  fn(task, 0);
  auto done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(done)) return;
  MutexLock lock(&mu_);
  caller_sleeping_.store(true);
  while (pending_.load() != 0) done_cv_.Wait(&mu_);
  caller_sleeping_.store(false);
}

void MathPool::WorkerLoop(int part) {
  ThreadStats* stats = CurrentThreadStats();
  uint64_t seen = 0;
  for (;;) {
    auto fresh = [&] {
      return generation_.load(std::memory_order_acquire) != seen;
    };
    if (!SpinUntil(fresh)) {
      // Asleep counts as blocked in the registry; spinning does not.
      ScopedBlockedTimer blocked;
      MutexLock lock(&mu_);
      sleepers_.fetch_add(1);
      while (generation_.load() == seen) work_cv_.Wait(&mu_);
      sleepers_.fetch_sub(1);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stopping_.load()) return;
    fn_(task_, part);
    if (stats != nullptr) stats->AddRun();
    if (pending_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
      MutexLock lock(&mu_);
      done_cv_.Signal();
    }
  }
}

}  // namespace inflow::internal
