// Copyright 2026 The inflow Authors.
//
// HostBarrier: a barrier of the ranks of one host over two words of their
// shared memory (HostMemory::Barrier): every rank arrives with an atomic
// increment, the last one bumps a generation that the others wait for.
// A waiting rank spins for `spin` and then naps 10 to 50 us between
// looks, which leaves its core to the rank it waits for on a busy
// machine; at every look after the spin it calls `poll`, whose error (a
// rank left, a stop) ends the wait.
//
// Thread-safe and process-safe: the words are lock-free atomics, which
// work across processes that map the same memory.

#ifndef INFLOW_SRC_DISTRIBUTED_HOST_BARRIER_H_
#define INFLOW_SRC_DISTRIBUTED_HOST_BARRIER_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "inflow/core/status.h"

namespace inflow::distributed::internal {

// The words, at the start of the shared memory (zeroed before first use).
struct alignas(64) BarrierWords {
  std::atomic<uint32_t> arrived;
  alignas(64) std::atomic<uint32_t> generation;
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);

inline constexpr size_t kBarrierBytes = sizeof(BarrierWords);

// Waits for `ranks` ranks (this one included) at `words`.
template <typename Poll>
Status HostBarrierWait(BarrierWords* words, int ranks,
                       std::chrono::microseconds spin, Poll poll) {
  // Acquire: the previous barrier's last arrival published everything
  // before it with its release of the generation.
  const uint32_t generation = words->generation.load(std::memory_order_acquire);
  // acq_rel: this rank's writes before the barrier reach the last arrival,
  // which publishes them to all with the generation's release.
  if (words->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      static_cast<uint32_t>(ranks)) {
    // Read by the next barrier's increments after they acquire the new
    // generation.
    words->arrived.store(0, std::memory_order_relaxed);
    // Pairs with the waiters' acquire loads below.
    words->generation.store(generation + 1, std::memory_order_release);
    return OkStatus();
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point spin_until = Clock::now() + spin;
  std::chrono::microseconds nap{10};
  for (uint32_t looks = 0;; ++looks) {
    // Pairs with the last arrival's release store.
    if (words->generation.load(std::memory_order_acquire) != generation) {
      return OkStatus();
    }
    if (looks % 64 != 63) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      continue;
    }
    if (Clock::now() < spin_until) continue;
    if (Status s = poll(); !s.ok()) return s;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(50));
  }
}

}  // namespace inflow::distributed::internal

#endif  // INFLOW_SRC_DISTRIBUTED_HOST_BARRIER_H_
