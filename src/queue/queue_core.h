// Copyright 2026 The inflow Authors.
//
// QueueCore: the engine behind all four queue kinds, TF's QueueBase waiter
// model (spec queues-and-threads.md section 1.4):
//   - two FIFO lists of pending attempts, the enqueue side (Enqueue,
//     EnqueueMany, non-cancelling Close) and the dequeue side (Dequeue,
//     DequeueMany, DequeueUpTo);
//   - after every state change the head of each list runs, alternately,
//     until neither makes progress (Flush);
//   - a call whose side has no pending attempt runs directly under the lock
//     (the fast path: no allocation, no wake-up unless the other side has
//     waiters); only a call that has to wait becomes an Attempt.
// Wake-ups happen after the lock is released. A timed-out or stopped
// attempt is removed from its list and gives back what it had taken.
//
// Thread-safe.

#ifndef INFLOW_QUEUE_QUEUE_CORE_H_
#define INFLOW_QUEUE_QUEUE_CORE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

#include "queue/philox.h"
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
  Result<Tuple> Dequeue(const CallOptions& options);
  Result<Tuple> DequeueMany(int64_t n, bool allow_small_batch,
                            const CallOptions& options);
  Status Close(bool cancel_pending_enqueues, const CallOptions& options);

  int64_t Size() const;
  bool IsClosed() const;
  // Attempts waiting on each side (for tests and diagnostics).
  size_t PendingEnqueues() const;
  size_t PendingDequeues() const;
  const QueueSpec& spec() const { return spec_; }

 private:
  enum class Op { kEnqueue, kEnqueueMany, kClose, kDequeue, kDequeueMany };
  enum class RunResult { kNoProgress, kProgress, kComplete };
  struct Attempt;
  class WakeList;
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
  void UpdateHintLocked() INFLOW_REQUIRES(mu_);
  void PushLocked(Tuple&& element) INFLOW_REQUIRES(mu_);
  Tuple TakeLocked() INFLOW_REQUIRES(mu_);
  void PushStorageLocked(Tuple&& element) INFLOW_REQUIRES(mu_);
  Tuple TakeStorageLocked() INFLOW_REQUIRES(mu_);
  // Puts back elements a dequeue had taken, `taken` in the order taken.
  void RestoreLocked(std::vector<Tuple>* taken) INFLOW_REQUIRES(mu_);

  Status ClosedError() const;
  Status InsufficientError(int64_t requested, int64_t size) const;

  // Waiter model.
  RunResult RunLocked(Attempt* a) INFLOW_REQUIRES(mu_);
  bool RunSideLocked(AttemptList* side, WakeList* wake) INFLOW_REQUIRES(mu_);
  void FlushLocked(WakeList* wake) INFLOW_REQUIRES(mu_);
  // Appends `a` to its side, flushes and waits until it completes, its
  // deadline passes (DEADLINE_EXCEEDED) or its stop token fires
  // (CANCELLED); a->status holds the outcome.
  void Wait(const std::shared_ptr<Attempt>& a, const CallOptions& options)
      INFLOW_EXCLUDES(mu_);
  void AbandonLocked(Attempt* a, Status why) INFLOW_REQUIRES(mu_);
  Tuple BatchOf(std::vector<Tuple>& elements) const;

  const QueueSpec spec_;
  const bool pad_;
  const bool specified_shapes_;
  // Elements a dequeue must leave while open (RandomShuffle's
  // min_after_dequeue, else 0).
  const int64_t keep_;

  // The lock and the ring's head and size, which every operation on a
  // FIFO queue writes, share one cache line (the ring puts its indices
  // first), so that handing an element to another core moves that line
  // and the slot's, and not a third one. The line starts after spec_,
  // whose fields every operation reads.
  alignas(64) mutable Mutex mu_;
  TupleRing ring_ INFLOW_GUARDED_BY(mu_);  // FIFO, PaddingFIFO
  bool closed_ INFLOW_GUARDED_BY(mu_) = false;
  AttemptList enqueue_attempts_ INFLOW_GUARDED_BY(mu_);
  AttemptList dequeue_attempts_ INFLOW_GUARDED_BY(mu_);
  std::vector<Tuple> bag_ INFLOW_GUARDED_BY(mu_);  // RandomShuffle
  std::vector<std::pair<int64_t, Tuple>> heap_
      INFLOW_GUARDED_BY(mu_);  // Priority
  PhiloxSampler random_ INFLOW_GUARDED_BY(mu_);

  // Hints readable without the lock: closed_ as of its last change, and a
  // value on the same side of keep_ and of the capacity as StoredLocked()
  // (not necessarily equal to it; see UpdateHintLocked). A call that looks
  // likely to block polls them before taking the lock (relaxed: only
  // hints, every decision is made under mu_). On their own cache line,
  // away from the lock's.
  alignas(64) std::atomic<int64_t> stored_hint_{0};
  std::atomic<bool> closed_hint_{false};
};

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_QUEUE_CORE_H_
