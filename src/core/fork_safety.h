// Copyright 2026 The inflow Authors.
//
// The process-wide mutexes that a child of fork() may take: the tensor
// allocator's depots and block cache, the string recycler's depot, the
// thread registry, the readers' buffer pool, the default metrics registry.
// fork() copies only the calling thread; a mutex that another thread held at
// that instant stays locked in the child for ever, and the child's first
// allocation that needs it hangs (Python's multiprocessing forks by default,
// and inflow's enqueuers fork worker processes that may read and parse through
// inflow). Each mutex registered here is taken by fork()'s prepare step, so
// that fork waits until no other thread holds it, and released again in both
// the parent and the child (pthread_atfork).
//
// For mutexes that live for the rest of the process and are held briefly,
// never while waiting for anything else. A leaf mutex (the default) is
// never held while another registered one is taken; an outer one may be
// (the metrics registry, whose removals can free a queue and so take the
// allocator's): fork takes every outer mutex before any leaf one.

#ifndef INFLOW_SRC_CORE_FORK_SAFETY_H_
#define INFLOW_SRC_CORE_FORK_SAFETY_H_

#include <mutex>

#include "inflow/core/mutex.h"

namespace inflow::internal {

enum class ForkLockOrder { kLeaf, kOuter };

// Thread-safe; `mu` must not be held by the caller. At most 32 mutexes
// (a 33rd aborts: registrations are for process-wide singletons).
void HoldAcrossFork(Mutex* mu, ForkLockOrder order = ForkLockOrder::kLeaf);
void HoldAcrossFork(std::mutex* mu, ForkLockOrder order = ForkLockOrder::kLeaf);
// Any lock: lock(mu) and unlock(mu) take and release it.
void HoldAcrossFork(void* mu, void (*lock)(void*), void (*unlock)(void*),
                    ForkLockOrder order = ForkLockOrder::kLeaf);

// A process-wide object made with new, its mutex member `mu` held across
// fork; returns the object:
//   static Cache* const cache = HeldAcrossFork(new Cache, &Cache::mu_);
template <typename T, typename M>
T* HeldAcrossFork(T* object, M T::*mu,
                  ForkLockOrder order = ForkLockOrder::kLeaf) {
  HoldAcrossFork(&(object->*mu), order);
  return object;
}

}  // namespace inflow::internal

#endif  // INFLOW_SRC_CORE_FORK_SAFETY_H_
