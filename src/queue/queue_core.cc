// Copyright 2026 The inflow Authors.
//
// QueueCore's operations (queue_core.h), their lock-free attempts, and the
// gate's closing and reopening around every locked section.

#include "queue/queue_core.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
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

// The bytes of a pooled queue's storage: its capacity times an element's
// bytes (saturating; an unbounded queue's is as good as unbounded).
size_t StorageBytes(const QueueSpec& spec) {
  const size_t element = RowBytes(spec.dtypes, spec.shapes);
  const size_t capacity = static_cast<size_t>(spec.capacity);
  if (element != 0 && capacity > std::numeric_limits<size_t>::max() / element) {
    return std::numeric_limits<size_t>::max();
  }
  return capacity * element;
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
      batch_pool_(pooled_ ? std::make_unique<BatchPool>(StorageBytes(spec_))
                          : nullptr),
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
  Tuple batch = StackGathered(gathered, spec_.dtypes, batch_pool_.get());
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

// The way of Enqueue and Dequeue (after their lock-free try), EnqueueMany
// and DequeueMany/UpTo through the lock and, if they have to, the waiters.
// (Close, which counts no time blocked and flushes whatever it changes,
// goes its own way.) The callables are the call's own steps.
//
// Under the lock, with the gate closed, and only if no attempt waits on the
// call's side (first come, first served), `try_locked` tries the call: it
// returns the call's final status (it took effect, or failed: the queue is
// closed) or nullopt (not now: too little room or too few elements). A
// call that took effect may have made room or elements for the other
// side's waiters, so it flushes them (they wake after the lock is
// released). A call that cannot go now fails with DEADLINE_EXCEEDED under
// NoWait, after `give_up` has handed back (under the same lock) what it had
// set aside. Otherwise it tries again if `poll_again()` says so (it polled
// outside the lock and the queue looked ready), or joins the waiters as an
// Attempt of kOp, which `fill` completes: its time blocked counts from
// there at the latest (`blocked` may have started when it polled), its
// timeout from `polled_since` if set. `collect` takes the results of an
// attempt that succeeded. Returns the call's status.
template <QueueCore::Op kOp, typename TryLocked, typename Fill,
          typename Collect, typename GiveUp, typename PollAgain>
Status QueueCore::LockedOrWait(const CallOptions& options,
                               BlockedClock* blocked, TryLocked try_locked,
                               Fill fill, Collect collect, GiveUp give_up,
                               PollAgain poll_again,
                               const PollStart& polled_since) {
  static_assert(kOp != Op::kClose, "Close goes its own way");
  constexpr bool kEnqueue = kOp == Op::kEnqueue || kOp == Op::kEnqueueMany;
  constexpr const char* kWouldBlock =
      kOp == Op::kEnqueue       ? ": enqueue would block"
      : kOp == Op::kEnqueueMany ? ": enqueue_many would block"
      : kOp == Op::kDequeue     ? ": dequeue would block"
                                : ": dequeue_many would block";
  for (;;) {
    bool others_wait;
    {
      WakeList wake;
      SpinMutexLock lock(&mu_);
      FreezeScope freeze(this);
      others_wait = !(kEnqueue ? enqueue_attempts_ : dequeue_attempts_).empty();
      if (!others_wait) {
        std::optional<Status> done = try_locked();
        if (done.has_value()) {
          if (done->ok() &&
              !(kEnqueue ? dequeue_attempts_ : enqueue_attempts_).empty()) {
            FlushLocked(&wake);
          }
          return *std::move(done);
        }
      }
      if (NoWait(options)) {
        give_up();
        return DeadlineExceededError(Prefix() + kWouldBlock);
      }
    }
    if (others_wait || !poll_again()) break;
  }
  blocked->Start();
  auto a = std::make_shared<Attempt>(kOp);
  fill(a.get());
  Wait(a, options, polled_since);
  if (a->status.ok()) collect(a.get());
  return a->status;
}

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
  const auto try_locked = [&]() INFLOW_REQUIRES(mu_) -> std::optional<Status> {
    if constexpr (kPush) {
      if (closed_) return ClosedError();
      if (StoredLocked() < spec_.capacity) {
        PushLocked(std::move(*element));
        return OkStatus();
      }
    } else {
      if (TakeableLocked() > 0) {
        *element = TakeLocked();
        return OkStatus();
      }
      if (closed_) return ClosedDequeueError(1, options);
    }
    return std::nullopt;
  };
  // A call that went to the lock without polling (the hints looked ready)
  // and found no waiters on its side polls once, and tries the lock again,
  // before it joins the waiters.
  const auto poll_again = [&] {
    if (spun) return false;
    spun = true;
    blocked.Start();
    return PollUntil(looks_ready, options, &waiting_since);
  };
  if constexpr (kPush) {
    const auto fill = [element](Attempt* a) {
      a->rows.push_back(std::move(*element));
    };
    return LockedOrWait<Op::kEnqueue>(options, &blocked, try_locked, fill,
                                      NoStep(), NoStep(), poll_again,
                                      waiting_since);
  } else {
    const auto fill = [](Attempt* a) { a->requested = 1; };
    const auto collect = [element](Attempt* a) {
      *element = std::move(a->taken[0]);
    };
    INFLOW_RETURN_IF_ERROR(
        LockedOrWait<Op::kDequeue>(options, &blocked, try_locked, fill, collect,
                                   NoStep(), poll_again, waiting_since));
    return std::move(*element);
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
  const auto try_locked = [&]() INFLOW_REQUIRES(mu_) -> std::optional<Status> {
    if (closed_) return ClosedError();
    if (spec_.capacity - StoredLocked() >= rows) {
      for (Tuple& e : elements) PushLocked(std::move(e));
      return OkStatus();
    }
    return std::nullopt;
  };
  const auto fill = [&](Attempt* a) { a->rows = std::move(elements); };
  BlockedClock blocked(&blocked_ns_[0]);
  return LockedOrWait<Op::kEnqueueMany>(options, &blocked, try_locked, fill);
}

Result<int64_t> QueueCore::BatchTakeLocked(int64_t n, bool allow_small_batch,
                                           const CallOptions& options) const {
  // Every stored element is takeable but in an open RandomShuffleQueue,
  // which keeps min_after_dequeue back.
  if (TakeableLocked() >= n) return n;
  if (!closed_) return int64_t{0};
  const int64_t size = StoredLocked();
  if (!allow_small_batch || size == 0) return ClosedDequeueError(n, options);
  return size;
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
  const auto try_locked = [&]() INFLOW_REQUIRES(mu_) -> std::optional<Status> {
    const Result<int64_t> take = BatchTakeLocked(n, allow_small_batch, options);
    if (!take.ok()) return take.status();
    if (*take == 0) return std::nullopt;
    taken.reserve(static_cast<size_t>(*take));
    TakeManyLocked(*take, &taken);
    return OkStatus();
  };
  const auto fill = [&](Attempt* a) {
    a->requested = n;
    a->allow_small_batch = allow_small_batch;
  };
  const auto collect = [&](Attempt* a) { taken = std::move(a->taken); };
  BlockedClock blocked(&blocked_ns_[1]);
  INFLOW_RETURN_IF_ERROR(LockedOrWait<Op::kDequeueMany>(
      options, &blocked, try_locked, fill, collect));
  // The batch copy happens outside the lock.
  return BatchOf(taken);
}

Status QueueCore::EnqueueSlots(int64_t rows, const RowWriter& write,
                               const CallOptions& options) {
  std::vector<uint32_t> slots;
  std::vector<char*> dst;
  {
    // Reserving slots changes nothing a call can see.
    SpinMutexLock lock(&mu_);
    bag_.ReserveSlots(static_cast<size_t>(rows), &slots, &dst);
  }
  if (Status written = write(dst); !written.ok()) {
    SpinMutexLock lock(&mu_);
    bag_.FreeSlots(slots);
    return written;
  }
  const auto try_locked = [&]() INFLOW_REQUIRES(mu_) -> std::optional<Status> {
    if (closed_) {
      bag_.FreeSlots(slots);
      return ClosedError();
    }
    if (spec_.capacity - StoredLocked() >= rows) {
      PushSlotsLocked(slots);
      return OkStatus();
    }
    return std::nullopt;
  };
  const auto fill = [&](Attempt* a) {
    a->slots = std::move(slots);
    a->batch_rows = rows;
  };
  // A call that will not wait frees its slots before the lock is released.
  const auto give_up = [&]() INFLOW_REQUIRES(mu_) { bag_.FreeSlots(slots); };
  BlockedClock blocked(&blocked_ns_[0]);
  return LockedOrWait<Op::kEnqueueMany>(options, &blocked, try_locked, fill,
                                        NoStep(), give_up);
}

Status QueueCore::EnqueueManyInPlace(int64_t rows, const RowWriter& write,
                                     const CallOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(
      const bool write_rows,
      StartInPlace(spec_.dtypes, spec_.shapes, rows, options, Prefix()));
  if (!write_rows) return OkStatus();
  if (pooled_) return EnqueueSlots(rows, write, options);
  INFLOW_ASSIGN_OR_RETURN(
      Tuple batch, WriteNewBatch(spec_.dtypes, spec_.shapes, rows, write));
  return EnqueueMany(std::move(batch), options);
}

Status QueueCore::EnqueueRows(Tuple batch, int64_t rows,
                              const CallOptions& options) {
  // Each row copied into its slot.
  if (pooled_) return EnqueueSlots(rows, CopyRowsOf(batch, rows), options);
  const auto try_locked = [&]() INFLOW_REQUIRES(mu_) -> std::optional<Status> {
    if (closed_) return ClosedError();
    if (spec_.capacity - StoredLocked() >= rows) {
      PushRowsLocked(batch, 0, rows);
      return OkStatus();
    }
    return std::nullopt;
  };
  const auto fill = [&](Attempt* a) {
    a->batch = std::move(batch);
    a->batch_rows = rows;
  };
  BlockedClock blocked(&blocked_ns_[0]);
  return LockedOrWait<Op::kEnqueueMany>(options, &blocked, try_locked, fill);
}

Result<Tuple> QueueCore::DequeueRows(int64_t n, bool allow_small_batch,
                                     const CallOptions& options) {
  std::vector<RowBag::Ref> taken;
  GatheredRows gathered;
  std::vector<Tuple> elements;
  const auto try_locked = [&]() INFLOW_REQUIRES(mu_) -> std::optional<Status> {
    const Result<int64_t> take = BatchTakeLocked(n, allow_small_batch, options);
    if (!take.ok()) return take.status();
    if (*take == 0) return std::nullopt;
    taken.reserve(static_cast<size_t>(*take));
    TakeRowsLocked(*take, &taken);
    // The copy happens outside the lock (`gathered` keeps the rows'
    // buffers alive).
    ReleaseRowsLocked(&taken, &gathered, &elements);
    return OkStatus();
  };
  const auto fill = [&](Attempt* a) {
    a->requested = n;
    a->allow_small_batch = allow_small_batch;
  };
  const auto collect = [&](Attempt* a) INFLOW_EXCLUDES(mu_) {
    // Done: no other call touches the attempt now.
    MutexLock lock(&mu_);
    ReleaseRowsLocked(&a->taken_rows, &gathered, &elements);
  };
  BlockedClock blocked(&blocked_ns_[1]);
  INFLOW_RETURN_IF_ERROR(LockedOrWait<Op::kDequeueMany>(
      options, &blocked, try_locked, fill, collect));
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
