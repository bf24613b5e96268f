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
  bool outer = false;
  std::atomic<bool> ready{false};  // published after the fields above
};

// No lock of its own: a registration may race with a fork, and a child
// must never find a lock of this file taken.
Entry entries[kMaxMutexes];
std::atomic<int> claimed{0};
// The entries the last Prepare took, in the order it took them, read by
// the Release after it (both run on the forking thread; a concurrent
// fork's Prepare writes them only once it holds every mutex).
int taken_order[kMaxMutexes];
std::atomic<int> taken{0};

void Prepare() {
  const int n = std::min(claimed.load(std::memory_order_acquire), kMaxMutexes);
  int order[kMaxMutexes];
  int locked = 0;
  // The outer mutexes first: they may be held while a leaf one is taken.
  for (const bool outer : {true, false}) {
    for (int i = 0; i < n; ++i) {
      Entry& e = entries[i];
      if (!e.ready.load(std::memory_order_acquire) || e.outer != outer) {
        continue;  // being registered, or of the other pass
      }
      e.lock(e.mu);
      order[locked++] = i;
    }
  }
  std::copy_n(order, locked, taken_order);
  taken.store(locked, std::memory_order_relaxed);
}

// The same in the parent and in the child, where the forking thread (the
// child's only one) is the one that took them in Prepare.
void Release() {
  for (int k = taken.load(std::memory_order_relaxed); k-- > 0;) {
    const Entry& e = entries[taken_order[k]];
    e.unlock(e.mu);
  }
}

// Installed when the library is loaded, before any thread of its can run.
[[maybe_unused]] const int kInstalled =
    ::pthread_atfork(&Prepare, &Release, &Release);

}  // namespace

void HoldAcrossFork(void* mu, void (*lock)(void*), void (*unlock)(void*),
                    ForkLockOrder order) {
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
  e.outer = order == ForkLockOrder::kOuter;
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

void HoldAcrossFork(Mutex* mu, ForkLockOrder order) {
  HoldAcrossFork(mu, &Lock<Mutex>, &Unlock<Mutex>, order);
}
void HoldAcrossFork(std::mutex* mu, ForkLockOrder order) {
  HoldAcrossFork(mu, &Lock<std::mutex>, &Unlock<std::mutex>, order);
}

}  // namespace inflow::internal
