// Copyright 2026 The inflow Authors.
//
// QueueCore's operations (queue_core.h), their lock-free attempts, and the
// gate's closing and reopening around every locked section.

#include "queue/queue_core.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <memory>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "queue/attempt.h"
#include "queue/batch.h"
#include "queue/freeze_scope.h"
#include "queue/poll.h"
#include "queue/spin_mutex_lock.h"

namespace inflow::internal {
namespace {

PhiloxSampler MakeSampler(const QueueSpec& spec) {
  uint64_t seed = static_cast<uint64_t>(spec.seed);
  uint64_t seed2 = static_cast<uint64_t>(spec.seed2);
  if (spec.kind == QueueKind::kRandomShuffle && seed == 0 && seed2 == 0) {
    // Both seeds unset: a random generator, as TF.
    std::random_device device;
    seed = (uint64_t{device()} << 32) | device();
    seed2 = (uint64_t{device()} << 32) | device();
  }
  return PhiloxSampler(seed, seed2);
}

// Whether a queue of `spec` has the lock-free path (see queue_core.h).
bool HasFastPath(const QueueSpec& spec) {
  // One slot could not tell a full slot from a free one a lap later.
  return (spec.kind == QueueKind::kFIFO ||
          spec.kind == QueueKind::kPaddingFIFO) &&
         spec.capacity >= 2;
}

std::vector<TensorShape> FullShapes(const std::vector<PartialShape>& shapes) {
  std::vector<TensorShape> full;
  for (const PartialShape& s : shapes) full.push_back(s.AsTensorShape());
  return full;
}

}  // namespace

QueueCore::QueueCore(QueueSpec spec)
    : spec_(std::move(spec)),
      pad_(spec_.kind == QueueKind::kPaddingFIFO),
      specified_shapes_(!spec_.shapes.empty()),
      keep_(spec_.kind == QueueKind::kRandomShuffle ? spec_.min_after_dequeue
                                                    : 0),
      fast_(HasFastPath(spec_)),
      shuffle_(spec_.kind == QueueKind::kRandomShuffle),
      gather_(shuffle_ && specified_shapes_ &&
              std::all_of(
                  spec_.shapes.begin(), spec_.shapes.end(),
                  [](const PartialShape& s) { return s.IsFullyDefined(); })),
      pooled_(gather_ &&
              std::none_of(spec_.dtypes.begin(), spec_.dtypes.end(),
                           [](DType d) { return d == DType::kString; })),
      bag_(spec_.dtypes,
           gather_ ? FullShapes(spec_.shapes) : std::vector<TensorShape>(),
           spec_.capacity),
      random_(MakeSampler(spec_)) {
  if (fast_) {
    MutexLock lock(&mu_);
    AddSegmentLocked(
        static_cast<size_t>(std::min(spec_.capacity, kSegmentSlots)));
    ThawLocked();
  }
  {
    MutexLock lock(&mu_);
    assert(bag_.pooled() == pooled_);
  }
}

QueueCore::~QueueCore() = default;

Tuple QueueCore::BatchOf(std::vector<Tuple>& elements) const {
  return MakeBatch(elements, spec_.dtypes, spec_.shapes, pad_);
}

Tuple QueueCore::BatchOfReleased(GatheredRows& gathered,
                                 std::vector<Tuple>& elements) {
  if (gathered.rows == 0) return BatchOf(elements);
  Tuple batch =
      StackGathered(gathered, spec_.dtypes, pooled_ ? &batch_pool_ : nullptr);
  if (!gathered.slots.empty()) {
    // Copied: the slots are free again.
    SpinMutexLock lock(&mu_);
    bag_.FreeSlots(gathered.slots);
  }
  return batch;
}

// ------------------------------------------------------ lock-free path

void QueueCore::FreezeLocked() const {
  if (!gate_.is_open()) return;
  gate_.Close();
  // Lock-free calls left the size hint behind.
  UpdateHintLocked();
}

void QueueCore::ThawLocked() const {
  if (!fast_ || gate_.is_open()) return;
  if (closed_ || !enqueue_attempts_.empty() || !dequeue_attempts_.empty() ||
      !front_.empty() || !ring_.empty()) {
    return;
  }
  gate_.Open();
}

SlotRing::Outcome QueueCore::TryPushFast(Tuple& element) {
  Gate::Ticket ticket(&gate_, Gate::kPush);
  if (!ticket.admitted()) return SlotRing::Outcome::kGated;
  return push_segment_->TryPush(element);
}

SlotRing::Outcome QueueCore::TryPopFast(Tuple* element) {
  Gate::Ticket ticket(&gate_, Gate::kPop);
  if (!ticket.admitted()) return SlotRing::Outcome::kGated;
  const SlotRing::Outcome outcome = pop_segment_->TryPop(element);
  // The first segment is used up and the next has elements: the lock
  // drops it.
  if (outcome == SlotRing::Outcome::kFullOrEmpty && pop_segment_has_next_) {
    return SlotRing::Outcome::kGated;
  }
  return outcome;
}

// ------------------------------------------------------------- operations

// Enqueue (kPush) and Dequeue of one element take the same way: the
// lock-free path, a poll while the queue looks full (empty), the lock,
// and only then the waiters. `element` is the one to push, or the place
// for the one popped.
template <bool kPush>
std::conditional_t<kPush, Status, Result<Tuple>> QueueCore::OneElement(
    Tuple* element, const CallOptions& options) {
  const auto try_fast = [this, element] {
    if constexpr (kPush) {
      return TryPushFast(*element);
    } else {
      return TryPopFast(element);
    }
  };
  bool spun = false;
  PollStart waiting_since;
  BlockedClock blocked(&blocked_ns_[kPush ? 0 : 1]);
  if (fast_) {
    SlotRing::Outcome outcome = try_fast();
    // Empty while the gate is open: the queue is empty (or its oldest
    // element is being written). A full segment is a full queue if it is
    // the only one there can be; else the lock adds a segment. Either
    // way, poll before taking the lock.
    if (outcome == SlotRing::Outcome::kFullOrEmpty && !NoWait(options) &&
        (!kPush || spec_.capacity <= kSegmentSlots)) {
      blocked.Start();
      PollUntil(
          [&] {
            outcome = try_fast();
            return outcome != SlotRing::Outcome::kFullOrEmpty;
          },
          options, &waiting_since);
    }
    if (outcome == SlotRing::Outcome::kDone) {
      if constexpr (kPush) {
        return OkStatus();
      } else {
        return std::move(*element);
      }
    }
    // Full or empty, or gated (someone waits, the queue is closed, or a
    // segment is to be added or dropped): straight to the lock, which
    // decides exactly.
    spun = true;
  }
  const auto looks_ready = [this] {
    if constexpr (kPush) {
      return stored_hint_.load(std::memory_order_relaxed) < spec_.capacity ||
             closed_hint_.load(std::memory_order_relaxed);
    } else {
      return stored_hint_.load(std::memory_order_relaxed) > keep_ ||
             closed_hint_.load(std::memory_order_relaxed);
    }
  };
  // Looks full (empty): poll before taking the lock (see PollUntil).
  if (!spun && !looks_ready() && !NoWait(options)) {
    blocked.Start();
    PollUntil(looks_ready, options, &waiting_since);
    spun = true;
  }
  for (;; spun = true) {
    bool others_wait;
    {
      WakeList wake;
      SpinMutexLock lock(&mu_);
      FreezeScope freeze(this);
      others_wait = !(kPush ? enqueue_attempts_ : dequeue_attempts_).empty();
      if (!others_wait) {
        if constexpr (kPush) {
          if (closed_) return ClosedError();
          if (StoredLocked() < spec_.capacity) {
            PushLocked(std::move(*element));
            if (!dequeue_attempts_.empty()) FlushLocked(&wake);
            return OkStatus();
          }
        } else {
          if (TakeableLocked() > 0) {
            Tuple taken = TakeLocked();
            if (!enqueue_attempts_.empty()) FlushLocked(&wake);
            return taken;
          }
          if (closed_) return ClosedDequeueError(1, options);
        }
      }
      if (NoWait(options)) {
        return DeadlineExceededError(
            Prefix() +
            (kPush ? ": enqueue would block" : ": dequeue would block"));
      }
    }
    if (spun || others_wait) break;
    blocked.Start();
    if (!PollUntil(looks_ready, options, &waiting_since)) break;
  }
  blocked.Start();
  auto a = std::make_shared<Attempt>(kPush ? Op::kEnqueue : Op::kDequeue);
  if constexpr (kPush) {
    a->rows.push_back(std::move(*element));
  } else {
    a->requested = 1;
  }
  Wait(a, options, waiting_since);
  if constexpr (kPush) {
    return a->status;
  } else {
    if (!a->status.ok()) return a->status;
    return std::move(a->taken[0]);
  }
}

Status QueueCore::Enqueue(Tuple element, const CallOptions& options) {
  INFLOW_RETURN_IF_ERROR(ValidateElement(element));
  if (options.stop.stop_requested()) {
    return CancelledError("Enqueue operation was cancelled");
  }
  return OneElement<true>(&element, options);
}

Result<Tuple> QueueCore::Dequeue(const CallOptions& options) {
  if (options.stop.stop_requested()) {
    return CancelledError("Dequeue operation was cancelled");
  }
  Tuple element;
  return OneElement<false>(&element, options);
}

Status QueueCore::EnqueueMany(Tuple batch, const CallOptions& options) {
  int64_t rows = 0;
  INFLOW_RETURN_IF_ERROR(ValidateBatch(batch, &rows));
  if (rows == 0) return OkStatus();  // even on a closed queue, as TF
  if (options.stop.stop_requested()) {
    return CancelledError("Enqueue operation was cancelled");
  }
  if (shuffle_) return EnqueueRows(std::move(batch), rows, options);
  // Rows are views of the batch's buffers: no payload copy.
  std::vector<Tuple> elements(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    elements[r].reserve(batch.size());
    for (const Tensor& component : batch) {
      elements[r].push_back(component.SubTensor(r));
    }
  }
  {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    if (enqueue_attempts_.empty()) {
      if (closed_) return ClosedError();
      if (spec_.capacity - StoredLocked() >= rows) {
        for (Tuple& e : elements) PushLocked(std::move(e));
        if (!dequeue_attempts_.empty()) FlushLocked(&wake);
        return OkStatus();
      }
    }
    if (NoWait(options)) {
      return DeadlineExceededError(Prefix() + ": enqueue_many would block");
    }
  }
  BlockedClock blocked(&blocked_ns_[0]);
  blocked.Start();
  auto a = std::make_shared<Attempt>(Op::kEnqueueMany);
  a->rows = std::move(elements);
  Wait(a, options);
  return a->status;
}

Result<Tuple> QueueCore::DequeueMany(int64_t n, bool allow_small_batch,
                                     const CallOptions& options) {
  INFLOW_RETURN_IF_ERROR(ValidateDequeueMany(n));
  if (n == 0) {
    // An empty batch, even on a closed queue, as TF.
    std::vector<Tuple> none;
    return BatchOf(none);
  }
  if (options.stop.stop_requested()) {
    return CancelledError("Dequeue operation was cancelled");
  }
  if (shuffle_) return DequeueRows(n, allow_small_batch, options);
  std::vector<Tuple> taken;
  {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    if (dequeue_attempts_.empty()) {
      const int64_t size = StoredLocked();
      int64_t take = 0;
      const int64_t ready =
          spec_.kind == QueueKind::kPriority ? size : TakeableLocked();
      if (ready >= n) {
        take = n;
      } else if (closed_) {
        if (!allow_small_batch || size == 0) {
          return ClosedDequeueError(n, options);
        }
        take = size;
      }
      if (take > 0) {
        taken.reserve(static_cast<size_t>(take));
        TakeManyLocked(take, &taken);
        if (!enqueue_attempts_.empty()) FlushLocked(&wake);
      }
    }
    if (taken.empty() && NoWait(options)) {
      return DeadlineExceededError(Prefix() + ": dequeue_many would block");
    }
  }
  // The batch copy happens outside the lock.
  if (!taken.empty()) return BatchOf(taken);
  BlockedClock blocked(&blocked_ns_[1]);
  blocked.Start();
  auto a = std::make_shared<Attempt>(Op::kDequeueMany);
  a->requested = n;
  a->allow_small_batch = allow_small_batch;
  Wait(a, options);
  if (!a->status.ok()) return a->status;
  return BatchOf(a->taken);
}

Status QueueCore::EnqueueSlots(const Tuple& batch, int64_t rows,
                               const CallOptions& options) {
  std::vector<uint32_t> slots;
  std::vector<char*> dst;
  {
    // Reserving slots changes nothing a call can see.
    SpinMutexLock lock(&mu_);
    bag_.ReserveSlots(static_cast<size_t>(rows), &slots, &dst);
  }
  for (size_t c = 0; c < batch.size(); ++c) {
    const char* src = static_cast<const char*>(batch[c].raw_data());
    const size_t row_bytes = batch[c].num_bytes() / static_cast<size_t>(rows);
    if (row_bytes == 0) continue;
    char* const* to = &dst[c * static_cast<size_t>(rows)];
    for (int64_t r = 0; r < rows; ++r, src += row_bytes) {
      std::memcpy(to[r], src, row_bytes);
    }
  }
  {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    if (enqueue_attempts_.empty()) {
      if (closed_) {
        bag_.FreeSlots(slots);
        return ClosedError();
      }
      if (spec_.capacity - StoredLocked() >= rows) {
        PushSlotsLocked(slots);
        if (!dequeue_attempts_.empty()) FlushLocked(&wake);
        return OkStatus();
      }
    }
    if (NoWait(options)) {
      bag_.FreeSlots(slots);
      return DeadlineExceededError(Prefix() + ": enqueue_many would block");
    }
  }
  BlockedClock blocked(&blocked_ns_[0]);
  blocked.Start();
  auto a = std::make_shared<Attempt>(Op::kEnqueueMany);
  a->slots = std::move(slots);
  a->batch_rows = rows;
  Wait(a, options);
  return a->status;
}

Status QueueCore::EnqueueRows(Tuple batch, int64_t rows,
                              const CallOptions& options) {
  if (pooled_) return EnqueueSlots(batch, rows, options);
  {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    if (enqueue_attempts_.empty()) {
      if (closed_) return ClosedError();
      if (spec_.capacity - StoredLocked() >= rows) {
        PushRowsLocked(batch, 0, rows);
        if (!dequeue_attempts_.empty()) FlushLocked(&wake);
        return OkStatus();
      }
    }
    if (NoWait(options)) {
      return DeadlineExceededError(Prefix() + ": enqueue_many would block");
    }
  }
  BlockedClock blocked(&blocked_ns_[0]);
  blocked.Start();
  auto a = std::make_shared<Attempt>(Op::kEnqueueMany);
  a->batch = std::move(batch);
  a->batch_rows = rows;
  Wait(a, options);
  return a->status;
}

Result<Tuple> QueueCore::DequeueRows(int64_t n, bool allow_small_batch,
                                     const CallOptions& options) {
  std::vector<RowBag::Ref> taken;
  GatheredRows gathered;
  std::vector<Tuple> elements;
  {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    if (dequeue_attempts_.empty()) {
      const int64_t size = StoredLocked();
      int64_t take = 0;
      if (TakeableLocked() >= n) {
        take = n;
      } else if (closed_) {
        if (!allow_small_batch || size == 0) {
          return ClosedDequeueError(n, options);
        }
        take = size;
      }
      if (take > 0) {
        taken.reserve(static_cast<size_t>(take));
        TakeRowsLocked(take, &taken);
        ReleaseRowsLocked(&taken, &gathered, &elements);
        if (!enqueue_attempts_.empty()) FlushLocked(&wake);
        // The copy happens outside the lock (`gathered` keeps the rows'
        // buffers alive).
      }
    }
    if (gathered.rows == 0 && elements.empty() && NoWait(options)) {
      return DeadlineExceededError(Prefix() + ": dequeue_many would block");
    }
  }
  if (gathered.rows > 0 || !elements.empty()) {
    return BatchOfReleased(gathered, elements);
  }
  BlockedClock blocked(&blocked_ns_[1]);
  blocked.Start();
  auto a = std::make_shared<Attempt>(Op::kDequeueMany);
  a->requested = n;
  a->allow_small_batch = allow_small_batch;
  Wait(a, options);
  if (!a->status.ok()) return a->status;
  {
    // Done: no other call touches the attempt now.
    MutexLock lock(&mu_);
    ReleaseRowsLocked(&a->taken_rows, &gathered, &elements);
  }
  return BatchOfReleased(gathered, elements);
}

Status QueueCore::Close(bool cancel_pending_enqueues,
                        const CallOptions& options) {
  if (cancel_pending_enqueues) {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    closed_ = true;
    closed_hint_.store(true, std::memory_order_relaxed);
    for (auto& a : enqueue_attempts_) {
      FreeUnpushedSlotsLocked(a.get());
      a->status = CancelledError("Enqueue operation was cancelled");
      a->done = true;
      wake.Add(std::move(a));
    }
    enqueue_attempts_.clear();
    FlushLocked(&wake);
    return OkStatus();
  }
  if (options.stop.stop_requested()) {
    return CancelledError("Enqueue operation was cancelled");
  }
  {
    WakeList wake;
    SpinMutexLock lock(&mu_);
    FreezeScope freeze(this);
    if (enqueue_attempts_.empty()) {
      if (closed_) {
        return CancelledError("Queue '" + spec_.name + "' is already closed.");
      }
      closed_ = true;
      closed_hint_.store(true, std::memory_order_relaxed);
      FlushLocked(&wake);
      return OkStatus();
    }
    if (NoWait(options)) {
      return DeadlineExceededError(Prefix() + ": close would block");
    }
  }
  auto a = std::make_shared<Attempt>(Op::kClose);
  Wait(a, options);
  return a->status;
}

int64_t QueueCore::Size() const {
  MutexLock lock(&mu_);
  // Exact: with the gate closed no lock-free call is in flight.
  FreezeScope freeze(this);
  return StoredLocked();
}

bool QueueCore::IsClosed() const {
  MutexLock lock(&mu_);
  return closed_;
}

size_t QueueCore::PendingEnqueues() const {
  MutexLock lock(&mu_);
  return enqueue_attempts_.size();
}

size_t QueueCore::PendingDequeues() const {
  MutexLock lock(&mu_);
  return dequeue_attempts_.size();
}

}  // namespace inflow::internal
