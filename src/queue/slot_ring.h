// Copyright 2026 The inflow Authors.
//
// SlotRing: a bounded ring of Tuples with lock-free push and pop (one
// sequence number per slot, D. Vyukov's bounded MPMC scheme), and
// exclusive operations for an owner that knows no lock-free call is in
// flight (its Gate, gate.h, is closed). QueueCore combines them (see
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
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "inflow/core/tensor.h"

namespace inflow::internal {

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
    exclusive_push_base_ = base;
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
    ++exclusive_push_base_;
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
  // Elements TryPush moved in since construction or the last
  // ForgetTryPushesExclusive(): the push position's advance, less the
  // PushBackExclusive calls (the queue's counters, queue.h's QueueStats).
  uint64_t TryPushesExclusive() const {
    return push_pos_.load(std::memory_order_relaxed) - exclusive_push_base_;
  }
  void ForgetTryPushesExclusive() {
    exclusive_push_base_ = push_pos_.load(std::memory_order_relaxed);
  }

 private:
  static constexpr uint64_t kBaseLaps = uint64_t{1} << 32;

  // 32 bytes, two to a cache line: a backlog of elements takes half the
  // memory of one slot per line, which matters once the consumer falls
  // behind; near empty, producer and consumer share a line.
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
  // push_pos_ less the TryPush calls counted (see TryPushesExclusive).
  // Only exclusive operations write it; on push_pos_'s line, which they
  // write anyway, so lock-free calls never see the line change for it.
  uint64_t exclusive_push_base_ = 0;
  alignas(64) std::atomic<uint64_t> pop_pos_{0};
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_SLOT_RING_H_
