// Copyright 2026 The inflow Authors.
//
// How a queue call waits before it becomes an attempt: the time limits of
// CallOptions, PollUntil, the poll outside the lock, and BlockedClock,
// which measures a call's time blocked.

#ifndef INFLOW_QUEUE_POLL_H_
#define INFLOW_QUEUE_POLL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>

#include "inflow/core/mutex.h"
#include "inflow/queue/queue.h"

#include "queue/cpu_pause.h"

namespace inflow::internal {

// When a timed blocking call began to sleep while it polled before
// joining the waiters (PollUntil), so that Wait counts that time against
// the call's timeout. Empty: Wait starts the timeout itself.
using PollStart = std::optional<CondVar::Clock::time_point>;

// Whether `options` bound the call's wait: a timeout, and not one beyond a
// century ("forever", which also keeps deadlines from overflowing).
inline bool Timed(const CallOptions& options) {
  return options.timeout.has_value() &&
         *options.timeout < std::chrono::hours(24 * 365 * 100);
}

// Whether the call must not block at all (a timeout <= 0).
inline bool NoWait(const CallOptions& options) {
  return options.timeout.has_value() && options.timeout->count() <= 0;
}

// Polls `ready` before a call that would block joins the waiters; returns
// whether `ready` came true. It runs outside the lock because, when the
// other side is about to act, a wake-up through the attempt lists (an
// allocation, a futex wake, a context switch) costs far more than a short
// wait: 32 pauses, then at most 8 sleeps of 20 us. It sleeps rather than
// yields so that a core whose threads all wait goes idle and the scheduler
// can move a runnable thread there (docs/PERFORMANCE.md has the
// measurements). A polling call has not arrived as far as waiter order
// goes. Polling ends (false) when the stop token fires and never sleeps
// past the call's timeout; `waiting_since` records when a timed call began
// to sleep.
template <typename Ready>
bool PollUntil(Ready ready, const CallOptions& options,
               PollStart* waiting_since) {
  for (int i = 0; i < 32; ++i) {
    if (ready()) return true;
    CpuPause();
  }
  constexpr auto kSleep = std::chrono::microseconds(20);
  for (int i = 0; i < 8; ++i) {
    if (options.stop.stop_requested()) return false;
    if (Timed(options)) {
      const auto now = CondVar::Clock::now();
      if (!waiting_since->has_value()) *waiting_since = now;
      if (now + kSleep >= **waiting_since + *options.timeout) return false;
    }
    std::this_thread::sleep_for(kSleep);
    if (ready()) return true;
  }
  return false;
}

// A call's time blocked (QueueStats): Start() when the call first has to
// wait (poll or join the waiters); on destruction the time since then is
// added to `*total_ns`. A call that never starts it reads no clock.
class BlockedClock {
 public:
  explicit BlockedClock(std::atomic<int64_t>* total_ns) : total_ns_(total_ns) {}
  ~BlockedClock() {
    if (since_.has_value()) {
      const auto waited = CondVar::Clock::now() - *since_;
      total_ns_->fetch_add(
          std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count(),
          std::memory_order_relaxed);
    }
  }
  BlockedClock(const BlockedClock&) = delete;
  BlockedClock& operator=(const BlockedClock&) = delete;

  void Start() {
    if (!since_.has_value()) since_ = CondVar::Clock::now();
  }

 private:
  std::atomic<int64_t>* const total_ns_;
  std::optional<CondVar::Clock::time_point> since_;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_POLL_H_
