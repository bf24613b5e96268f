// Copyright 2026 The inflow Authors.
//
// ThreadSlots: a per-thread slot number, one of 32 process-wide, that
// gives a thread a busy flag of its own in every Gate (gate.h).

#ifndef INFLOW_QUEUE_THREAD_SLOTS_H_
#define INFLOW_QUEUE_THREAD_SLOTS_H_

#include <atomic>
#include <bit>
#include <cstdint>

namespace inflow::internal {

// Process-wide slots for threads that take Gate tickets: a thread gets
// one of kSlots slots of its own (the lowest free one, on its first
// ticket) and gives it back when it exits; threads beyond kSlots get none
// and share striped counters instead. A thread's slot is its own in every
// Gate, so its ticket can end with a plain store rather than an atomic
// read-modify-write, which costs a call on the lock-free path a tenth of
// its time.
class ThreadSlots {
 public:
  static constexpr int kSlots = 32;
  static constexpr int kNone = -1;

  // This thread's slot, or kNone.
  static int OfThisThread() {
    if (slot_ == kUnassigned) [[unlikely]]
      Assign();
    return slot_;
  }
  // One more than the highest slot ever assigned.
  static int HighWater() { return high_water_.load(std::memory_order_seq_cst); }

 private:
  static constexpr int kUnassigned = -2;

  // Gives the slot back when the thread exits; the thread uses the shared
  // counters from then on (queue calls from later thread-exit code).
  struct Releaser {
    int slot = kNone;
    ~Releaser() {
      if (slot == kNone) return;
      slot_ = kNone;
      used_.fetch_and(~(uint32_t{1} << slot), std::memory_order_release);
    }
  };

  static void Assign() {
    slot_ = kNone;
    uint32_t used = used_.load(std::memory_order_relaxed);
    while (used != ~uint32_t{0}) {
      const int slot = std::countr_one(used);
      if (used_.compare_exchange_weak(used, used | (uint32_t{1} << slot),
                                      std::memory_order_acquire)) {
        // Raised before the slot's first use: Gate::Close reads the high
        // water after shutting the gate (see Gate).
        int high = high_water_.load(std::memory_order_relaxed);
        while (high < slot + 1 &&
               !high_water_.compare_exchange_weak(high, slot + 1,
                                                  std::memory_order_seq_cst)) {
        }
        thread_local Releaser releaser;
        releaser.slot = slot;
        slot_ = slot;
        return;
      }
    }
  }

  static_assert(kSlots == 32, "used_ holds one bit per slot");
  inline static std::atomic<uint32_t> used_{0};
  inline static std::atomic<int> high_water_{0};
  inline static thread_local int slot_ = kUnassigned;
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_THREAD_SLOTS_H_
