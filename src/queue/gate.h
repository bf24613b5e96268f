// Copyright 2026 The inflow Authors.
//
// Gate: admits lock-free calls while open; closing it waits until the
// admitted ones have finished. QueueCore guards its SlotRings with one
// (see queue_core.h).

#ifndef INFLOW_QUEUE_GATE_H_
#define INFLOW_QUEUE_GATE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "queue/cpu_pause.h"
#include "queue/thread_slots.h"

namespace inflow::internal {

// Gate: admits lock-free calls while open. A call takes a Ticket (it
// announces itself in a busy flag of its side, then reads the gate) and
// touches the guarded state only if admitted. Close() shuts the gate and
// waits until every busy flag is clear: from then on no admitted call is
// in flight and none will be admitted, so the owner has the guarded state
// to itself until Open(). Close, Open and is_open are for one owner at a
// time (QueueCore calls them under its lock); tickets are thread-safe.
//
// Busy flags: a thread with a slot (ThreadSlots) sets and clears its own
// flag with stores; other threads count on shared striped counters.
//
// Why an admitted call cannot straddle a Close: the call sets its flag
// (a sequentially consistent store or increment) and then loads the gate;
// Close stores the gate, then loads the slots' high water and the flags,
// all sequentially consistent. Either the call's load sees the gate shut
// (not admitted), or it comes before Close's store, so the call's slot was
// assigned (high water raised) and its flag set before Close reads them:
// Close sees the flag and waits for it to clear, which comes after the
// call's last access. So every admitted call finishes before Close
// returns, and its writes are visible to the owner (clearing is a
// release, Close's load an acquire); the owner's writes are visible to
// every call admitted after Open (Open's store is a release, the ticket's
// load an acquire).
class Gate {
 public:
  enum Side { kPush = 0, kPop = 1 };

  class Ticket {
   public:
    Ticket(Gate* gate, Side side) {
      const int slot = ThreadSlots::OfThisThread();
      if (slot != ThreadSlots::kNone) {
        flag_ = &gate->own_[side][slot].value;
        own_ = true;
        flag_->store(1, std::memory_order_seq_cst);
      } else {
        flag_ = &gate->shared_[side][StripeOfThisThread()].value;
        own_ = false;
        flag_->fetch_add(1, std::memory_order_seq_cst);
      }
      admitted_ = gate->open_flag_.load(std::memory_order_seq_cst);
    }
    ~Ticket() {
      if (own_) {
        flag_->store(0, std::memory_order_release);
      } else {
        flag_->fetch_sub(1, std::memory_order_release);
      }
    }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    bool admitted() const { return admitted_; }

   private:
    // Threads without a slot of their own count on different lines
    // (mostly: by where the thread's stack lies; stacks of threads created
    // one after another lie one default stack size, 8 MiB, apart). Any
    // stripe is correct: a ticket undoes its count on the stripe it
    // counted on.
    static size_t StripeOfThisThread() {
      int here;
      return static_cast<size_t>((reinterpret_cast<uintptr_t>(&here) >> 23) %
                                 kStripes);
    }

    std::atomic<uint32_t>* flag_;
    bool own_;
    bool admitted_;
  };

  // Shuts the gate and waits for admitted calls to finish (at once if
  // already shut).
  void Close() {
    if (!open_) return;
    open_flag_.store(false, std::memory_order_seq_cst);
    const int slots = ThreadSlots::HighWater();
    for (int spins = 0; Busy(slots); ++spins) {
      // An admitted call is a few instructions from done unless its
      // thread was preempted; then let it run.
      if (spins < 64) {
        CpuPause();
      } else {
        std::this_thread::yield();
      }
    }
    open_ = false;
  }
  void Open() {
    if (open_) return;
    open_ = true;
    open_flag_.store(true, std::memory_order_seq_cst);
  }
  bool is_open() const { return open_; }

 private:
  // Read by every call, written only by Close/Open: a line that stays
  // shared.
  alignas(64) std::atomic<bool> open_flag_{false};
  bool open_ = false;  // the owner's view
  // Whether an admitted call may still run: any flag of the first `slots`
  // slots, or any shared counter, of either side.
  bool Busy(int slots) const {
    for (int side = 0; side < 2; ++side) {
      for (int i = 0; i < slots; ++i) {
        if (own_[side][i].value.load(std::memory_order_seq_cst) != 0) {
          return true;
        }
      }
      for (const Flag& stripe : shared_[side]) {
        if (stripe.value.load(std::memory_order_seq_cst) != 0) return true;
      }
    }
    return false;
  }

  static constexpr size_t kStripes = 4;
  // Each flag on its own line.
  struct alignas(64) Flag {
    std::atomic<uint32_t> value{0};
  };
  Flag own_[2][ThreadSlots::kSlots];
  Flag shared_[2][kStripes];
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_GATE_H_
