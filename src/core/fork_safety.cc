// Copyright 2026 The inflow Authors.

#include "core/fork_safety.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace inflow::internal {
namespace {

constexpr int kMaxMutexes = 32;

struct Entry {
  void* mu = nullptr;
  void (*lock)(void*) = nullptr;
  void (*unlock)(void*) = nullptr;
  std::atomic<bool> ready{false};  // published after the fields above
};

// No lock of its own: a registration may race with a fork, and a child
// must never find a lock of this file taken.
Entry entries[kMaxMutexes];
std::atomic<int> claimed{0};
// The entries the last Prepare took, read by the Release after it (both
// run on the forking thread; a concurrent fork's Prepare waits for the
// mutexes before it writes this).
std::atomic<int> taken{0};

void Prepare() {
  const int n = std::min(claimed.load(std::memory_order_acquire), kMaxMutexes);
  int locked = 0;
  for (; locked < n; ++locked) {
    Entry& e = entries[locked];
    if (!e.ready.load(std::memory_order_acquire)) break;  // being registered
    e.lock(e.mu);
  }
  taken.store(locked, std::memory_order_relaxed);
}

// The same in the parent and in the child, where the forking thread (the
// child's only one) is the one that took them in Prepare.
void Release() {
  for (int i = taken.load(std::memory_order_relaxed); i-- > 0;)
    entries[i].unlock(entries[i].mu);
}

// Installed when the library is loaded, before any thread of its can run.
[[maybe_unused]] const int kInstalled =
    ::pthread_atfork(&Prepare, &Release, &Release);

}  // namespace

void HoldAcrossFork(void* mu, void (*lock)(void*), void (*unlock)(void*)) {
  const int i = claimed.fetch_add(1, std::memory_order_acq_rel);
  if (i >= kMaxMutexes) {
    std::fprintf(stderr, "inflow: HoldAcrossFork: more than %d mutexes\n",
                 kMaxMutexes);
    std::abort();
  }
  Entry& e = entries[i];
  e.mu = mu;
  e.lock = lock;
  e.unlock = unlock;
  e.ready.store(true, std::memory_order_release);
}

// Taken in one handler and released in another: out of the analysis's
// sight.
template <typename M>
void Lock(void* m) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  static_cast<M*>(m)->lock();
}
template <typename M>
void Unlock(void* m) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  static_cast<M*>(m)->unlock();
}

void HoldAcrossFork(Mutex* mu) {
  HoldAcrossFork(mu, &Lock<Mutex>, &Unlock<Mutex>);
}
void HoldAcrossFork(std::mutex* mu) {
  HoldAcrossFork(mu, &Lock<std::mutex>, &Unlock<std::mutex>);
}

}  // namespace inflow::internal
