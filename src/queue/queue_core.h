// Copyright 2026 The inflow Authors.
//
// QueueCore: the engine behind all four queue kinds, TF's QueueBase waiter
// model (docs/conformance.md, "Waiter model"):
//   - two FIFO lists of pending attempts, the enqueue side (Enqueue,
//     EnqueueMany, non-cancelling Close) and the dequeue side (Dequeue,
//     DequeueMany, DequeueUpTo);
//   - after every state change the head of each list runs, alternately,
//     until neither makes progress (Flush);
//   - a call whose side has no pending attempt runs directly under the lock
//     (no allocation, no wake-up unless the other side has waiters); only a
//     call that has to wait becomes an Attempt.
// Wake-ups happen after the lock is released. A timed-out or stopped
// attempt is removed from its list and gives back what it had taken.
//
// The lock-free path (FIFO and PaddingFIFO, capacity >= 2). Their elements
// live, in order, in
//   - front_: a TupleRing, non-empty only after an abandoned DequeueMany
//     gave back more than the first segment had room for;
//   - segments_: SlotRings (slot_ring.h) of up to kSegmentSlots slots; pops
//     take from the first, pushes fill the last, the ones between are
//     full; a new segment is added when the last is full and the slots of
//     all segments stay within the capacity, an empty first one is dropped;
//   - ring_: an overflow TupleRing, non-empty only once no segment can be
//     added (a bounded capacity that is not a multiple of the segment
//     size, or slots still held by a partly emptied first segment).
// A single-element Enqueue or Dequeue first tries SlotRing::TryPush on the
// last segment / TryPop on the first, which take no lock; the Gate admits
// them only while all of these hold:
//   (a) the queue is open,
//   (b) no Attempt waits on either side,
//   (c) front_ and ring_ are empty (every element is in a segment).
// A TryPop that finds the first segment empty while another follows goes
// to the lock, which drops that segment. Every locked section first closes
// the gate (FreezeLocked: Gate::Close returns once no admitted call is in
// flight and none can be admitted), and reopens it when it ends if (a)-(c)
// hold (ThawLocked). So the lock holder sees and changes the exact state
// (size, order, closed) as before, and lock-free calls run only in the
// stretches between locked sections where (a)-(c) hold. Lock-free pushes
// need a free slot, and all slots together are at most the capacity, so
// they never go beyond it.
//
// Linearization. A lock-free push takes effect at its successful CAS on
// the last segment's push position, a pop at its CAS on the first
// segment's pop position. A pop only claims a position whose element is
// published, and each side claims positions in order, so within a segment
// pops return elements in push order. A locked operation takes effect
// under the lock, after FreezeLocked: every lock-free call ordered before
// it has finished, every later one either finds the gate closed or runs
// after the gate reopens, which happens under the lock after the
// operation. Then:
//   - FIFO order and exactly-once: one position per element, claimed by
//     exactly one CAS per side. Lock-free pushes go only to the last
//     segment and pops only to the first; segments are added behind the
//     last (once it is full) and dropped at the front (once empty) only
//     under the lock, and the locked path adds and takes elements only at
//     the ends of front_ + segments_ + ring_, so the order is kept across
//     segments too.
//   - Strict first-come-first-served waiters: while an Attempt waits, (b)
//     keeps the gate closed, so every new call goes through the lock and
//     queues behind it as before; a call that fails on the lock-free path
//     (full, empty, gated) has not arrived yet as far as waiter order goes
//     (it polls for up to about half a millisecond before it joins the
//     waiters: PollUntil in poll.h).
//   - Close: it closes the gate before setting closed_, and (a) keeps it
//     closed, so a lock-free Enqueue either finished before the close or
//     meets closed_ under the lock (CANCELLED). Close() without cancel
//     behind pending enqueues is an Attempt, so the gate is closed by (b).
//   - DequeueMany/UpTo, EnqueueMany, Size, timeouts and stops run under the
//     lock with the gate closed, so a batch is contiguous, Size is exact,
//     and an abandoned call restores what it took at the front of the
//     queue (PushFrontExclusive) before any other call can see the queue.
//   - A lock-free call that fails (full or empty) changes nothing and falls
//     through to the locked path, which decides exactly.
//
// Thread-safe.

#ifndef INFLOW_QUEUE_QUEUE_CORE_H_
#define INFLOW_QUEUE_QUEUE_CORE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

#include "core/philox.h"
#include "queue/batch_pool.h"
#include "queue/gate.h"
#include "queue/poll.h"
#include "queue/row_bag.h"
#include "queue/slot_ring.h"
#include "queue/tuple_ring.h"

namespace inflow::internal {

// A queue's validated, immutable parameters.
struct QueueSpec {
  QueueKind kind = QueueKind::kFIFO;
  std::string name;
  int32_t capacity = 0;
  // All components (PriorityQueue: the int64 priority first).
  std::vector<DType> dtypes;
  // Empty or one per component (PriorityQueue: [] first).
  std::vector<PartialShape> shapes;
  std::vector<std::string> names;
  int64_t min_after_dequeue = 0;
  // As requested (0, 0 = random), for shared-queue matching.
  int64_t seed = 0;
  int64_t seed2 = 0;
};

// Checks `options` for `kind` and builds the spec (INVALID_ARGUMENT).
Result<QueueSpec> MakeQueueSpec(QueueKind kind, const QueueOptions& options);

class QueueCore {
 public:
  explicit QueueCore(QueueSpec spec);
  ~QueueCore();
  QueueCore(const QueueCore&) = delete;
  QueueCore& operator=(const QueueCore&) = delete;

  Status Enqueue(Tuple element, const CallOptions& options);
  Status EnqueueMany(Tuple batch, const CallOptions& options);
  Status EnqueueManyInPlace(int64_t rows, const RowWriter& write,
                            const CallOptions& options);
  Result<Tuple> Dequeue(const CallOptions& options);
  Result<Tuple> DequeueMany(int64_t n, bool allow_small_batch,
                            const CallOptions& options);
  Status Close(bool cancel_pending_enqueues, const CallOptions& options);

  int64_t Size() const;
  bool IsClosed() const;
  // Counts from the storage's positions and a counter of locked pushes;
  // blocked times from clocks read only by calls that wait
  // (queue_stats.cc).
  QueueStats stats() const;
  // Attempts waiting on each side (for tests and diagnostics).
  size_t PendingEnqueues() const;
  size_t PendingDequeues() const;
  const QueueSpec& spec() const { return spec_; }
  // The pool of DequeueMany's batch buffers, for tests and diagnostics:
  // null unless the queue is a RandomShuffleQueue whose components are all
  // numeric with fully defined shapes.
  const BatchPool* batch_pool() const { return batch_pool_.get(); }

 private:
  enum class Op { kEnqueue, kEnqueueMany, kClose, kDequeue, kDequeueMany };
  enum class RunResult { kNoProgress, kProgress, kComplete };
  struct Attempt;
  class WakeList;
  class FreezeScope;

  // The size of a segment (smaller if the capacity is).
  static constexpr int32_t kSegmentSlots = 1024;
  static constexpr size_t kMaxSpareSegments = 16;
  using AttemptList = std::deque<std::shared_ptr<Attempt>>;

  // Validation (before any locking or blocking).
  Status ValidateElement(const Tuple& element) const;
  Status ValidateBatch(const Tuple& batch, int64_t* rows) const;
  Status ValidateDequeueMany(int64_t n) const;
  std::string Label(size_t component) const;
  std::string Prefix() const;

  // Storage, by kind.
  int64_t StoredLocked() const INFLOW_REQUIRES(mu_);
  // Elements a dequeue may take now (RandomShuffle keeps
  // min_after_dequeue while open).
  int64_t TakeableLocked() const INFLOW_REQUIRES(mu_);
  // Refreshes stored_hint_ after StoredLocked() changed.
  void UpdateHintLocked() const INFLOW_REQUIRES(mu_);
  void PushLocked(Tuple&& element) INFLOW_REQUIRES(mu_);
  Tuple TakeLocked() INFLOW_REQUIRES(mu_);
  // Appends the next `n` elements (n <= StoredLocked()) to `taken`.
  void TakeManyLocked(int64_t n, std::vector<Tuple>* taken)
      INFLOW_REQUIRES(mu_);
  void PushStorageLocked(Tuple&& element) INFLOW_REQUIRES(mu_);
  Tuple TakeStorageLocked() INFLOW_REQUIRES(mu_);
  // Puts back elements a dequeue had taken, `taken` in the order taken.
  void RestoreLocked(std::vector<Tuple>* taken) INFLOW_REQUIRES(mu_);
  // RandomShuffle: EnqueueMany's rows [first, first + count) of `batch`
  // (count <= the room left); the next `n` (<= StoredLocked()) rows a
  // DequeueMany takes, appended to `taken` (held until released); rows
  // taken so and not released, put back (RestoreLocked's order).
  void PushRowsLocked(const Tuple& batch, int64_t first, int64_t count)
      INFLOW_REQUIRES(mu_);
  // The same for a pooled bag: rows already copied into `slots`.
  void PushSlotsLocked(std::span<const uint32_t> slots) INFLOW_REQUIRES(mu_);
  void TakeRowsLocked(int64_t n, std::vector<RowBag::Ref>* taken)
      INFLOW_REQUIRES(mu_);
  void RestoreRowsLocked(std::vector<RowBag::Ref>* taken) INFLOW_REQUIRES(mu_);
  // A DequeueMany's taken rows, released: into `gathered` when the shapes
  // are fully defined (copied out by StackGathered), else into `elements`.
  void ReleaseRowsLocked(std::vector<RowBag::Ref>* taken,
                         GatheredRows* gathered, std::vector<Tuple>* elements)
      INFLOW_REQUIRES(mu_);

  // The lock-free path's gate (see the top of this file). FreezeLocked
  // closes it and waits for lock-free calls in flight; ThawLocked reopens
  // it if the queue is open, nobody waits and the overflow is empty.
  void FreezeLocked() const INFLOW_REQUIRES(mu_);
  void ThawLocked() const INFLOW_REQUIRES(mu_);
  // Lock-free attempts (kGated: take the lock).
  SlotRing::Outcome TryPushFast(Tuple& element);
  SlotRing::Outcome TryPopFast(Tuple* element);
  // Segments (need the gate closed).
  void AddSegmentLocked(size_t slots) INFLOW_REQUIRES(mu_);
  void DropFirstSegmentLocked() INFLOW_REQUIRES(mu_);
  void PointFastPathLocked() INFLOW_REQUIRES(mu_);
  // Elements enqueued (QueueStats::enqueued); needs the gate closed.
  int64_t EnqueuedLocked() const INFLOW_REQUIRES(mu_);

  // Enqueue (kPush) and Dequeue after their checks (queue_core.cc).
  // Inlined into each, so that sharing the code costs no call.
  template <bool kPush>
  [[gnu::always_inline]] inline std::conditional_t<kPush, Status, Result<Tuple>>
  OneElement(Tuple* element, const CallOptions& options) INFLOW_EXCLUDES(mu_);

  // LockedOrWait's default for a step a call does not have: does nothing
  // (and, as `poll_again`, says not to try again).
  struct NoStep {
    template <typename... Args>
    bool operator()(Args&&...) const {
      return false;
    }
  };
  // The way of an Enqueue, Dequeue, EnqueueMany or DequeueMany/UpTo (all
  // but Close) through the lock and, if it has to, the waiters; the
  // callables are what the call does at each step (queue_core.cc).
  // Inlined into each caller, as OneElement.
  template <Op kOp, typename TryLocked, typename Fill,
            typename Collect = NoStep, typename GiveUp = NoStep,
            typename PollAgain = NoStep>
  [[gnu::always_inline]] inline Status LockedOrWait(
      const CallOptions& options, BlockedClock* blocked, TryLocked try_locked,
      Fill fill, Collect collect = {}, GiveUp give_up = {},
      PollAgain poll_again = {}, const PollStart& polled_since = std::nullopt)
      INFLOW_EXCLUDES(mu_);

  // RandomShuffle's EnqueueMany and DequeueMany/UpTo after their checks:
  // rows go into bag_ by reference and come out of it by one copy each.
  Status EnqueueRows(Tuple batch, int64_t rows, const CallOptions& options)
      INFLOW_EXCLUDES(mu_);
  // EnqueueRows and EnqueueManyInPlace for a pooled bag: `write` writes
  // the rows into reserved slots before the lock.
  Status EnqueueSlots(int64_t rows, const RowWriter& write,
                      const CallOptions& options) INFLOW_EXCLUDES(mu_);
  Result<Tuple> DequeueRows(int64_t n, bool allow_small_batch,
                            const CallOptions& options) INFLOW_EXCLUDES(mu_);

  Status ClosedError() const;
  Status InsufficientError(int64_t requested, int64_t size) const;
  // A dequeue of `requested` that finds the queue closed with too few
  // elements: OUT_OF_RANGE, or CANCELLED if the call's stop token has
  // fired.
  Status ClosedDequeueError(int64_t requested, const CallOptions& options) const
      INFLOW_REQUIRES(mu_);
  // How many elements a DequeueMany (DequeueUpTo with `allow_small_batch`)
  // of `n` takes now, under the lock: n once n are takeable; when the queue
  // is closed with fewer, all that are left, or ClosedDequeueError when
  // small batches are not allowed or none is left; 0 when it has to wait.
  Result<int64_t> BatchTakeLocked(int64_t n, bool allow_small_batch,
                                  const CallOptions& options) const
      INFLOW_REQUIRES(mu_);

  // Waiter model.
  RunResult RunLocked(Attempt* a) INFLOW_REQUIRES(mu_);
  bool RunSideLocked(AttemptList* side, WakeList* wake) INFLOW_REQUIRES(mu_);
  void FlushLocked(WakeList* wake) INFLOW_REQUIRES(mu_);
  // Appends `a` to its side, flushes and waits until it completes, its
  // deadline passes (DEADLINE_EXCEEDED: the timeout counted from
  // `polled_since` if set, else from now) or its stop token fires
  // (CANCELLED, decided inside request_stop(): a later Close cannot answer
  // it); a->status holds the outcome.
  void Wait(const std::shared_ptr<Attempt>& a, const CallOptions& options,
            const PollStart& polled_since = std::nullopt) INFLOW_EXCLUDES(mu_);
  void AbandonLocked(Attempt* a, Status why) INFLOW_REQUIRES(mu_);
  // A pooled EnqueueMany that ends early: frees the slots of the rows it
  // did not insert.
  void FreeUnpushedSlotsLocked(Attempt* a) INFLOW_REQUIRES(mu_);
  Tuple BatchOf(std::vector<Tuple>& elements) const;
  // ReleaseRowsLocked's result as a batch (outside the lock; frees a
  // pooled bag's slots after the copy).
  Tuple BatchOfReleased(GatheredRows& gathered, std::vector<Tuple>& elements)
      INFLOW_EXCLUDES(mu_);

  const QueueSpec spec_;
  const bool pad_;
  const bool specified_shapes_;
  // Elements a dequeue must leave while open (RandomShuffle's
  // min_after_dequeue, else 0).
  const int64_t keep_;
  // FIFO and PaddingFIFO with capacity >= 2 (see the top of this file).
  const bool fast_;
  // RandomShuffle (its storage is bag_), and whether its shapes are fully
  // defined (DequeueMany copies rows straight from the bag's chunks).
  const bool shuffle_;
  const bool gather_;
  // RandomShuffle with numeric components only: bag_ keeps its elements
  // in slots (row_bag.h).
  const bool pooled_;

  // The lock and the ring's head and size, which every operation on a
  // FIFO queue writes, share one cache line (the ring puts its indices
  // first), so that handing an element to another core moves that line
  // and the slot's, and not a third one. The line starts after spec_,
  // whose fields every operation reads.
  alignas(64) mutable Mutex mu_;
  // FIFO, PaddingFIFO: all elements if !fast_, else the overflow behind
  // segments_.
  TupleRing ring_ INFLOW_GUARDED_BY(mu_);
  // With fast_: elements before segments_, and the segments.
  TupleRing front_ INFLOW_GUARDED_BY(mu_);
  std::deque<std::unique_ptr<SlotRing>> segments_ INFLOW_GUARDED_BY(mu_);
  // Elements in the segments between the first and the last (all full).
  int64_t middle_size_ INFLOW_GUARDED_BY(mu_) = 0;
  // Slots of all segments; at most the capacity.
  int64_t total_slots_ INFLOW_GUARDED_BY(mu_) = 0;
  // Emptied segments kept for the next ones added (at most
  // kMaxSpareSegments), so that a backlog that comes and goes does not
  // allocate and free a segment every kSegmentSlots elements.
  std::vector<std::unique_ptr<SlotRing>> spares_ INFLOW_GUARDED_BY(mu_);
  bool closed_ INFLOW_GUARDED_BY(mu_) = false;
  // Counters (QueueStats): elements enqueued under the lock (PushLocked),
  // and the lock-free pushes of segments already dropped. Lock-free pushes
  // into live segments are their positions' advance (SlotRing::
  // TryPushesExclusive); dequeued elements are what left the storage.
  int64_t locked_enqueued_ INFLOW_GUARDED_BY(mu_) = 0;
  int64_t dropped_try_pushes_ INFLOW_GUARDED_BY(mu_) = 0;
  AttemptList enqueue_attempts_ INFLOW_GUARDED_BY(mu_);
  AttemptList dequeue_attempts_ INFLOW_GUARDED_BY(mu_);
  RowBag bag_ INFLOW_GUARDED_BY(mu_);  // RandomShuffle
  // Pooled: DequeueMany's batch buffers, recycled (null otherwise). The
  // idle buffers it keeps are bounded by the queue's own storage, its
  // capacity times an element's bytes (batch_pool.h).
  const std::unique_ptr<BatchPool> batch_pool_;
  std::vector<std::pair<int64_t, Tuple>> heap_
      INFLOW_GUARDED_BY(mu_);  // Priority
  PhiloxSampler random_ INFLOW_GUARDED_BY(mu_);

  // Hints readable without the lock: closed_ as of its last change, and a
  // value on the same side of keep_ and of the capacity as StoredLocked()
  // (not necessarily equal to it; see UpdateHintLocked). A call that looks
  // likely to block polls them before taking the lock (relaxed: only
  // hints, every decision is made under mu_). On their own cache line,
  // away from the lock's.
  alignas(64) mutable std::atomic<int64_t> stored_hint_{0};
  std::atomic<bool> closed_hint_{false};

  // The lock-free path's gate, and what admitted calls read: the last and
  // the first segment, and whether another segment follows the first.
  // Written under mu_ with the gate closed, read by admitted calls (the
  // Gate orders the two), so not annotated.
  mutable Gate gate_;
  SlotRing* push_segment_ = nullptr;
  SlotRing* pop_segment_ = nullptr;
  bool pop_segment_has_next_ = false;

  // Nanoseconds blocked by enqueue [0] and dequeue [1] calls that waited
  // (BlockedClock). Only waiting calls write them, on a line of their own.
  alignas(64) std::atomic<int64_t> blocked_ns_[2] = {0, 0};
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_QUEUE_CORE_H_
