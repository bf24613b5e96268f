// Copyright 2026 The inflow Authors.

#include "model/math_pool.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

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
  for (int i = 1; i < threads_; ++i) {
    workers_.push_back(std::make_unique<Thread>(
        "inflow-math-" + std::to_string(i),
        [this](std::stop_token own) { WorkerLoop(own); }));
  }
  // A fresh Thread starts.
  for (auto& w : workers_) w->Start().IgnoreError();
}

MathPool::~MathPool() {
  stopping_.store(true);
  // A new generation with no part left to claim.
  const uint64_t gen = (state_.load() >> 8) + 1;
  state_.store(gen << 8 | static_cast<uint64_t>(threads_));
  {
    MutexLock lock(&mu_);
    work_cv_.SignalAll();
  }
  // Each Thread's destructor joins it; a worker returns as soon as it
  // sees the new generation with stopping_ set.
  workers_.clear();
}

void MathPool::Split(int64_t n, int64_t align, int part, int parts,
                     int64_t* begin, int64_t* end) {
  const int64_t units = (n + align - 1) / align;
  *begin = std::min(n, align * (units * part / parts));
  *end =
      part + 1 == parts ? n : std::min(n, align * (units * (part + 1) / parts));
}

void MathPool::RunParts(Trampoline fn, const void* task) {
  fn_ = fn;
  task_ = task;
  // Relaxed: read only by threads that claimed a part of the generation
  // the store to state_ below publishes.
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  // Relaxed: only this thread changes the generation (workers' claims
  // change the part bits).
  const uint64_t gen = (state_.load(std::memory_order_relaxed) >> 8) + 1;
  state_.store(gen << 8 | 1);  // publishes fn_, task_ and pending_
  if (sleepers_.load() > 0) {
    MutexLock lock(&mu_);
    work_cv_.SignalAll();
  }
  RunPart(0);
  RunClaimedParts(gen);
  // Acquire: pairs with the fetch_sub after each part (its writes).
  auto done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  const bool spun = SpinUntil(done);
  std::exception_ptr error;
  {
    MutexLock lock(&mu_);
    if (!spun) {
      caller_sleeping_.store(true);
      while (pending_.load() != 0) done_cv_.Wait(&mu_);
      caller_sleeping_.store(false);
    }
    error = std::exchange(error_, nullptr);
  }
  // Every part has finished: nothing refers to the task any more.
  if (error) std::rethrow_exception(error);
}

void MathPool::RunPart(int part) {
  try {
    fn_(task_, part);
  } catch (...) {
    MutexLock lock(&mu_);
    if (!error_) error_ = std::current_exception();
  }
}

int MathPool::RunClaimedParts(uint64_t gen) {
  int ran = 0;
  // Acquire (here, in the failed exchange and below): pairs with the
  // store in RunParts that published the generation's fn_ and task_.
  uint64_t s = state_.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t part = s & 0xff;
    if (s >> 8 != gen || part >= static_cast<uint64_t>(threads_)) return ran;
    if (!state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      continue;  // s reloaded
    }
    RunPart(static_cast<int>(part));
    ++ran;
    if (pending_.fetch_sub(1) == 1 && caller_sleeping_.load()) {
      MutexLock lock(&mu_);
      done_cv_.Signal();
    }
    s = state_.load(std::memory_order_acquire);
  }
}

void MathPool::WorkerLoop(std::stop_token own) {
  ThreadStats* stats = CurrentThreadStats();
  // The destructor stops the workers through stopping_; a stop request on
  // the Thread itself (its destructor) also ends a sleeping worker. A
  // worker gone early is no hazard: the caller runs unclaimed parts.
  std::stop_callback wake(own, [this] {
    MutexLock lock(&mu_);
    work_cv_.SignalAll();
  });
  uint64_t seen = 0;
  for (;;) {
    // Acquire: pairs with the store in RunParts (see RunClaimedParts).
    auto fresh = [&] {
      return state_.load(std::memory_order_acquire) >> 8 != seen ||
             own.stop_requested();
    };
    if (!SpinUntil(fresh)) {
      // Asleep counts as blocked in the registry; spinning does not.
      ScopedBlockedTimer blocked;
      MutexLock lock(&mu_);
      sleepers_.fetch_add(1);
      while (state_.load() >> 8 == seen && !own.stop_requested()) {
        work_cv_.Wait(&mu_);
      }
      sleepers_.fetch_sub(1);
    }
    if (stopping_.load() || own.stop_requested()) return;
    seen = state_.load(std::memory_order_acquire) >> 8;
    const int ran = RunClaimedParts(seen);
    if (stats != nullptr) {
      for (int i = 0; i < ran; ++i) stats->AddRun();
    }
  }
}

}  // namespace inflow::internal
