// Copyright 2026 The inflow Authors.
//
// QueueCore's storage, by kind: the segments and rings of FIFO and
// PaddingFIFO, RandomShuffle's bag, Priority's heap. Every function here
// runs under the queue's lock with the lock-free path's gate closed.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "queue/queue_core.h"

namespace inflow::internal {
namespace {

// TF's PriorityQueue comparator: a min-heap on the priority. Equal
// priorities leave in the order std::push_heap / std::pop_heap give, as in
// TF's std::priority_queue.
bool LaterPriority(const std::pair<int64_t, Tuple>& a,
                   const std::pair<int64_t, Tuple>& b) {
  return a.first > b.first;
}

}  // namespace

void QueueCore::AddSegmentLocked(size_t slots) {
  // The last segment, full, becomes one between the first and the last.
  if (segments_.size() >= 2) {
    middle_size_ += static_cast<int64_t>(segments_.back()->SizeExclusive());
  }
  std::unique_ptr<SlotRing> segment;
  if (!spares_.empty() && spares_.back()->slot_count() == slots) {
    segment = std::move(spares_.back());
    spares_.pop_back();
  } else {
    segment = std::make_unique<SlotRing>(slots);
  }
  total_slots_ += static_cast<int64_t>(slots);
  segments_.push_back(std::move(segment));
  PointFastPathLocked();
}

void QueueCore::DropFirstSegmentLocked() {
  std::unique_ptr<SlotRing> first = std::move(segments_.front());
  segments_.pop_front();
  dropped_try_pushes_ += static_cast<int64_t>(first->TryPushesExclusive());
  first->ForgetTryPushesExclusive();
  total_slots_ -= static_cast<int64_t>(first->slot_count());
  if (spares_.size() < kMaxSpareSegments) {
    spares_.push_back(std::move(first));  // empty
  }
  // The new first segment was between the first and the last.
  if (segments_.size() >= 2) {
    middle_size_ -= static_cast<int64_t>(segments_.front()->SizeExclusive());
  }
  PointFastPathLocked();
}

void QueueCore::PointFastPathLocked() {
  push_segment_ = segments_.back().get();
  pop_segment_ = segments_.front().get();
  pop_segment_has_next_ = segments_.size() > 1;
}

int64_t QueueCore::StoredLocked() const {
  switch (spec_.kind) {
    case QueueKind::kRandomShuffle:
      return static_cast<int64_t>(bag_.size());
    case QueueKind::kPriority:
      return static_cast<int64_t>(heap_.size());
    default: {
      if (!fast_) return static_cast<int64_t>(ring_.size());
      size_t size = front_.size() + ring_.size() +
                    segments_.front()->SizeExclusive() +
                    static_cast<size_t>(middle_size_);
      if (segments_.size() > 1) size += segments_.back()->SizeExclusive();
      return static_cast<int64_t>(size);
    }
  }
}

int64_t QueueCore::TakeableLocked() const {
  const int64_t size = StoredLocked();
  if (spec_.kind == QueueKind::kRandomShuffle && !closed_) {
    return size - spec_.min_after_dequeue;
  }
  return size;
}

void QueueCore::UpdateHintLocked() const {
  // Pollers only compare the hint with keep_ and the capacity, so it is
  // rewritten only when one of those comparisons changes: a queue that
  // stays non-empty and not full never writes it, and its cache line stays
  // shared instead of moving between producer and consumer on every
  // element. Writes happen under mu_, so the load sees the last one.
  const int64_t stored = StoredLocked();
  const int64_t old = stored_hint_.load(std::memory_order_relaxed);
  if ((old > keep_) != (stored > keep_) ||
      (old < spec_.capacity) != (stored < spec_.capacity)) {
    stored_hint_.store(stored, std::memory_order_relaxed);
  }
}

void QueueCore::PushLocked(Tuple&& element) {
  ++locked_enqueued_;
  PushStorageLocked(std::move(element));
  UpdateHintLocked();
}

Tuple QueueCore::TakeLocked() {
  Tuple t = TakeStorageLocked();
  UpdateHintLocked();
  return t;
}

void QueueCore::TakeManyLocked(int64_t n, std::vector<Tuple>* taken) {
  if (fast_ && front_.empty()) {
    // Straight from the first segment, one size-hint update at the end.
    while (n > 0) {
      SlotRing* first = segments_.front().get();
      int64_t here =
          std::min<int64_t>(n, static_cast<int64_t>(first->SizeExclusive()));
      if (here == 0) {
        if (segments_.size() == 1) break;  // the rest is in ring_
        DropFirstSegmentLocked();
        continue;
      }
      n -= here;
      for (; here > 0; --here) taken->push_back(first->PopFrontExclusive());
      if (first->SizeExclusive() == 0 && segments_.size() > 1) {
        DropFirstSegmentLocked();
      }
    }
  }
  for (; n > 0; --n) taken->push_back(TakeStorageLocked());
  UpdateHintLocked();
}

void QueueCore::PushStorageLocked(Tuple&& element) {
  switch (spec_.kind) {
    case QueueKind::kRandomShuffle:
      bag_.Append(element);
      break;
    case QueueKind::kPriority: {
      const int64_t priority = element[0].data<int64_t>()[0];
      heap_.emplace_back(priority, std::move(element));
      std::push_heap(heap_.begin(), heap_.end(), LaterPriority);
      break;
    }
    default:
      if (fast_ && ring_.empty()) {
        if (!segments_.back()->FullExclusive()) {
          segments_.back()->PushBackExclusive(std::move(element));
          break;
        }
        const int64_t room = spec_.capacity - total_slots_;
        if (room >= 2) {
          AddSegmentLocked(
              static_cast<size_t>(std::min<int64_t>(room, kSegmentSlots)));
          segments_.back()->PushBackExclusive(std::move(element));
          break;
        }
      }
      ring_.PushBack(std::move(element));
  }
}

Tuple QueueCore::TakeStorageLocked() {
  switch (spec_.kind) {
    case QueueKind::kRandomShuffle: {
      // TF: a uniformly random slot, refilled from the last one.
      const size_t index = random_() % bag_.size();
      return bag_.Release(bag_.Take(index));
    }
    case QueueKind::kPriority: {
      std::pop_heap(heap_.begin(), heap_.end(), LaterPriority);
      Tuple t = std::move(heap_.back().second);
      heap_.pop_back();
      return t;
    }
    default:
      if (fast_) {
        if (!front_.empty()) return front_.PopFront();
        while (segments_.size() > 1 &&
               segments_.front()->SizeExclusive() == 0) {
          DropFirstSegmentLocked();
        }
        if (segments_.front()->SizeExclusive() > 0) {
          return segments_.front()->PopFrontExclusive();
        }
      }
      return ring_.PopFront();
  }
}

void QueueCore::RestoreLocked(std::vector<Tuple>* taken) {
  // Last taken first: FIFO pushes to the front, so the original order comes
  // back; RandomShuffle appends in the same order TF does.
  for (auto it = taken->rbegin(); it != taken->rend(); ++it) {
    switch (spec_.kind) {
      case QueueKind::kRandomShuffle:
        bag_.Append(*it);
        break;
      case QueueKind::kPriority:
        PushStorageLocked(std::move(*it));
        break;
      default:
        if (!fast_) {
          ring_.PushFront(std::move(*it));
        } else if (front_.empty() && !segments_.front()->FullExclusive()) {
          segments_.front()->PushFrontExclusive(std::move(*it));
        } else {
          front_.PushFront(std::move(*it));
        }
    }
  }
  taken->clear();
  UpdateHintLocked();
}

void QueueCore::PushRowsLocked(const Tuple& batch, int64_t first,
                               int64_t count) {
  locked_enqueued_ += count;
  bag_.AppendRows(batch, first, count);
  UpdateHintLocked();
}

void QueueCore::PushSlotsLocked(std::span<const uint32_t> slots) {
  locked_enqueued_ += static_cast<int64_t>(slots.size());
  bag_.AppendSlots(slots);
  UpdateHintLocked();
}

void QueueCore::TakeRowsLocked(int64_t n, std::vector<RowBag::Ref>* taken) {
  // TakeStorageLocked's draw, without making the element.
  for (; n > 0; --n) taken->push_back(bag_.Take(random_() % bag_.size()));
  UpdateHintLocked();
}

void QueueCore::RestoreRowsLocked(std::vector<RowBag::Ref>* taken) {
  // As RestoreLocked: last taken first.
  for (auto it = taken->rbegin(); it != taken->rend(); ++it) bag_.PutBack(*it);
  taken->clear();
  UpdateHintLocked();
}

void QueueCore::ReleaseRowsLocked(std::vector<RowBag::Ref>* taken,
                                  GatheredRows* gathered,
                                  std::vector<Tuple>* elements) {
  if (gather_) {
    bag_.ReleaseInto(*taken, gathered);
  } else {
    elements->reserve(taken->size());
    for (const RowBag::Ref ref : *taken) elements->push_back(bag_.Release(ref));
  }
  taken->clear();
}

}  // namespace inflow::internal
