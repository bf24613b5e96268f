// Copyright 2026 The inflow Authors.
//
// SlotRing: a bounded ring of Tuples with lock-free push and pop (one
// sequence number per slot, D. Vyukov's bounded MPMC scheme), and
// exclusive operations for an owner that knows no lock-free call is in
// flight. Gate: admits lock-free calls while open; closing it waits until
// the admitted ones have finished. QueueCore combines them (see
// queue_core.h).
//
// Positions are 64-bit and never wrap in practice; slot index = position
// modulo the slot count (any count >= 2, not only powers of two). A slot
// whose sequence number equals position p is free for a push at p; p + 1
// means it holds the element pushed at p; a pop at p sets it to p + slots,
// freeing it for the push one lap later.

#ifndef INFLOW_QUEUE_SLOT_RING_H_
#define INFLOW_QUEUE_SLOT_RING_H_

#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "inflow/core/tensor.h"

namespace inflow::internal {

inline void CpuPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Thread-safe for TryPush / TryPop; the *Exclusive operations need that no
// other operation runs (the owner's Gate is closed).
class SlotRing {
 public:
  enum class Outcome { kDone, kFullOrEmpty, kGated };

  // `slots` >= 2.
  explicit SlotRing(size_t slots)
      : slot_count_(slots),
        mask_((slots & (slots - 1)) == 0 ? slots - 1 : 0),
        slots_(std::make_unique<Slot[]>(slots)) {
    assert(slots >= 2);
    // Start far from zero so that PushFrontExclusive never goes below
    // zero (the modulo would then jump), at a multiple of the slot count
    // so that the first position is slot 0.
    const uint64_t base = kBaseLaps * slots;
    for (size_t i = 0; i < slots; ++i) {
      slots_[i].seq.store(base + i, std::memory_order_relaxed);
    }
    push_pos_.store(base, std::memory_order_relaxed);
    pop_pos_.store(base, std::memory_order_relaxed);
  }
  SlotRing(const SlotRing&) = delete;
  SlotRing& operator=(const SlotRing&) = delete;

  size_t slot_count() const { return slot_count_; }

  // Lock-free. kDone: `t` was moved in. kFullOrEmpty: every slot is taken
  // (or the next one is still being emptied); `t` is untouched.
  Outcome TryPush(Tuple& t) {
    uint64_t pos = push_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[Index(pos)];
      const uint64_t seq = slot.seq.load(std::memory_order_acquire);
      const int64_t diff = static_cast<int64_t>(seq - pos);
      if (diff == 0) {
        if (push_pos_.compare_exchange_weak(pos, pos + 1,
                                            std::memory_order_relaxed)) {
          slot.value = std::move(t);
          slot.seq.store(pos + 1, std::memory_order_release);
          return Outcome::kDone;
        }
      } else if (diff < 0) {
        return Outcome::kFullOrEmpty;
      } else {
        pos = push_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  // Lock-free. kDone: the oldest element was moved into `*t`.
  // kFullOrEmpty: no element (or the oldest one is still being written).
  Outcome TryPop(Tuple* t) {
    uint64_t pos = pop_pos_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[Index(pos)];
      const uint64_t seq = slot.seq.load(std::memory_order_acquire);
      const int64_t diff = static_cast<int64_t>(seq - (pos + 1));
      if (diff == 0) {
        if (pop_pos_.compare_exchange_weak(pos, pos + 1,
                                           std::memory_order_relaxed)) {
          *t = std::move(slot.value);
          slot.value = Tuple();
          slot.seq.store(pos + slot_count_, std::memory_order_release);
          return Outcome::kDone;
        }
      } else if (diff < 0) {
        return Outcome::kFullOrEmpty;
      } else {
        pos = pop_pos_.load(std::memory_order_relaxed);
      }
    }
  }

  // Exclusive operations.
  size_t SizeExclusive() const {
    return static_cast<size_t>(push_pos_.load(std::memory_order_relaxed) -
                               pop_pos_.load(std::memory_order_relaxed));
  }
  bool FullExclusive() const { return SizeExclusive() == slot_count_; }
  // Precondition: !FullExclusive().
  void PushBackExclusive(Tuple&& t) {
    assert(!FullExclusive());
    const uint64_t pos = push_pos_.load(std::memory_order_relaxed);
    Slot& slot = slots_[Index(pos)];
    slot.value = std::move(t);
    slot.seq.store(pos + 1, std::memory_order_relaxed);
    push_pos_.store(pos + 1, std::memory_order_relaxed);
  }
  // Precondition: !FullExclusive().
  void PushFrontExclusive(Tuple&& t) {
    assert(!FullExclusive());
    const uint64_t pos = pop_pos_.load(std::memory_order_relaxed) - 1;
    Slot& slot = slots_[Index(pos)];
    slot.value = std::move(t);
    slot.seq.store(pos + 1, std::memory_order_relaxed);
    pop_pos_.store(pos, std::memory_order_relaxed);
  }
  // Precondition: SizeExclusive() > 0.
  Tuple PopFrontExclusive() {
    assert(SizeExclusive() > 0);
    const uint64_t pos = pop_pos_.load(std::memory_order_relaxed);
    Slot& slot = slots_[Index(pos)];
    Tuple t = std::move(slot.value);
    slot.value = Tuple();
    slot.seq.store(pos + slot_count_, std::memory_order_relaxed);
    pop_pos_.store(pos + 1, std::memory_order_relaxed);
    return t;
  }

 private:
  static constexpr uint64_t kBaseLaps = uint64_t{1} << 32;

  // 32 bytes, two to a cache line: a backlog of elements takes half the
  // memory of one slot per line, which measured faster when the consumer
  // falls behind; near empty, producer and consumer share a line.
  struct Slot {
    std::atomic<uint64_t> seq{0};
    Tuple value;
  };

  size_t Index(uint64_t pos) const {
    return mask_ != 0 ? static_cast<size_t>(pos & mask_)
                      : static_cast<size_t>(pos % slot_count_);
  }

  const size_t slot_count_;
  const size_t mask_;  // slot_count_ - 1 if a power of two, else 0
  const std::unique_ptr<Slot[]> slots_;
  // Each on its own line: with one producer and one consumer, each line
  // stays in its thread's cache.
  alignas(64) std::atomic<uint64_t> push_pos_{0};
  alignas(64) std::atomic<uint64_t> pop_pos_{0};
};

// Process-wide slots for threads that take Gate tickets: a thread gets
// one of kSlots slots of its own (the lowest free one, on its first
// ticket) and gives it back when it exits; threads beyond kSlots get none
// and share striped counters instead. A thread's slot is its own in every
// Gate, so its ticket can end with a plain store rather than an atomic
// read-modify-write: in a single thread enqueue+dequeue, 10 ns of 110.
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

#endif  // INFLOW_QUEUE_SLOT_RING_H_
