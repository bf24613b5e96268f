// Copyright 2026 The inflow Authors.

#include "queue/queue_core.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <random>
#include <stop_token>
#include <thread>
#include <utility>

#include "queue/batch.h"

namespace inflow::internal {
namespace {

// TF's PriorityQueue comparator: a min-heap on the priority. Equal
// priorities leave in the order std::push_heap / std::pop_heap give, as in
// TF's std::priority_queue.
bool LaterPriority(const std::pair<int64_t, Tuple>& a,
                   const std::pair<int64_t, Tuple>& b) {
  return a.first > b.first;
}

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

// Holds the queue's Mutex for its scope. Critical sections are a few dozen
// nanoseconds, so under contention a short spin usually gets the lock
// without the futex sleep and wake-up that Mutex::lock() costs.
class INFLOW_SCOPED_CAPABILITY SpinMutexLock {
 public:
  explicit SpinMutexLock(Mutex* mu) INFLOW_ACQUIRE(mu) : mu_(mu) {
    Acquire(mu);
  }
  ~SpinMutexLock() INFLOW_RELEASE() { mu_->unlock(); }
  SpinMutexLock(const SpinMutexLock&) = delete;
  SpinMutexLock& operator=(const SpinMutexLock&) = delete;

 private:
  static void Acquire(Mutex* mu) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
    // Backoff between attempts: each failed try_lock steals the lock's
    // cache line from the holder. It grows to kMaxBackoff pauses and no
    // further, so that a waiter does not sleep through the release of a
    // short critical section (a pause is 15 to 140 cycles depending on
    // the CPU); about 500 pauses in all before the futex.
    constexpr int kMaxBackoff = 32;
    int backoff = 1;
    for (int attempt = 0; attempt < 20; ++attempt) {
      if (mu->try_lock()) return;
      for (int i = 0; i < backoff; ++i) CpuPause();
      backoff = std::min(backoff * 2, kMaxBackoff);
    }
    mu->lock();
  }
  Mutex* const mu_;
};

// Polls `ready` before the call joins the waiters. A call that would block
// polls here, outside the lock, because a wake-up through the attempt
// lists (an allocation, a futex wake for the other side, a context switch
// for this one) costs far more when the other side is about to act; the
// call has not yet arrived as far as waiter order goes. It first
// busy-waits 32 pauses (a few microseconds), then sleeps 20 us between
// polls (plus the kernel's timer slack, 50 us by default), at most 8
// times, before it joins the waiters. Sleeping rather than yielding
// matters when threads outnumber cores: a yielding thread stays runnable,
// so with two producers sharing one core and two consumers the other, the
// consumers' core never idles and the scheduler never moves a producer
// there; a sleeping one lets it. On two cores (bench_queue, one process
// per measurement, alternating with the yielding version): 2p2c +15 %
// (its slow runs, 2.6-3.1 M/s with 10-20 thousand context switches, no
// longer happen), 1p1c +24 to +28 % (the consumer takes a backlog rather
// than one element per wake-up), 4p4c between -6 % and +2 %. Longer
// busy-waits measured slower (256 or 1024 pauses: -15 %), and so did four
// yields before the sleeps (-2 %).
//
// A sleep ends the polling early when the stop token fires, and never
// goes past the call's timeout; `waiting_since` records when a timed call
// began to sleep, so that Wait counts that time against the timeout.
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

// Whether a queue of `spec` has the lock-free path (see queue_core.h).
bool HasFastPath(const QueueSpec& spec) {
  // One slot could not tell a full slot from a free one a lap later.
  return (spec.kind == QueueKind::kFIFO ||
          spec.kind == QueueKind::kPaddingFIFO) &&
         spec.capacity >= 2;
}

bool NoWait(const CallOptions& options) {
  return options.timeout.has_value() && options.timeout->count() <= 0;
}

}  // namespace

bool Timed(const CallOptions& options) {
  return options.timeout.has_value() &&
         *options.timeout < std::chrono::hours(24 * 365 * 100);
}

// A call that has to wait: lives in one of the attempt lists until it
// completes, or until its caller abandons it. Every field is guarded by the
// queue's mu_ (the analysis cannot name it from here).
struct QueueCore::Attempt {
  explicit Attempt(Op o) : op(o) {}

  const Op op;
  bool done = false;  // completed; `status` is final
  bool allow_small_batch = false;
  int64_t requested = 0;     // dequeues: elements still wanted
  std::vector<Tuple> rows;   // enqueues: elements to insert, in order
  size_t next_row = 0;       // enqueues: rows[0, next_row) are in
  std::vector<Tuple> taken;  // dequeues: elements taken, in order
  Status status;
  CondVar cv;  // signalled when done
};

// Attempts completed during a flush. Their waiters are signalled when the
// list is destroyed, which callers arrange to happen after the lock is
// released (declare the WakeList before the MutexLock). Holding a
// reference keeps each Attempt, and so its CondVar, alive until then.
// Keeps the lock-free path's gate closed for a locked section: declare it
// right after the lock, so that it reopens the gate (if (a)-(c) of
// queue_core.h hold) before the lock is released.
class QueueCore::FreezeScope {
 public:
  explicit FreezeScope(const QueueCore* core) INFLOW_NO_THREAD_SAFETY_ANALYSIS
      : core_(core) {
    core_->FreezeLocked();
  }
  ~FreezeScope() INFLOW_NO_THREAD_SAFETY_ANALYSIS { core_->ThawLocked(); }
  FreezeScope(const FreezeScope&) = delete;
  FreezeScope& operator=(const FreezeScope&) = delete;

 private:
  const QueueCore* const core_;
};

class QueueCore::WakeList {
 public:
  WakeList() = default;
  WakeList(const WakeList&) = delete;
  WakeList& operator=(const WakeList&) = delete;
  ~WakeList() { SignalNow(); }
  bool empty() const { return inline_count_ == 0; }
  // Signals everything added so far and forgets it.
  void SignalNow() {
    for (size_t i = 0; i < inline_count_; ++i) {
      inline_[i]->cv.Signal();
      inline_[i].reset();
    }
    inline_count_ = 0;
    for (const auto& a : overflow_) a->cv.Signal();
    overflow_.clear();
  }
  void Add(std::shared_ptr<Attempt> a) {
    if (inline_count_ < inline_.size()) {
      inline_[inline_count_++] = std::move(a);
    } else {
      overflow_.push_back(std::move(a));
    }
  }

 private:
  std::array<std::shared_ptr<Attempt>, 4> inline_;
  size_t inline_count_ = 0;
  std::vector<std::shared_ptr<Attempt>> overflow_;
};

QueueCore::QueueCore(QueueSpec spec)
    : spec_(std::move(spec)),
      pad_(spec_.kind == QueueKind::kPaddingFIFO),
      specified_shapes_(!spec_.shapes.empty()),
      keep_(spec_.kind == QueueKind::kRandomShuffle ? spec_.min_after_dequeue
                                                    : 0),
      fast_(HasFastPath(spec_)),
      random_(MakeSampler(spec_)) {
  if (fast_) {
    MutexLock lock(&mu_);
    AddSegmentLocked(
        static_cast<size_t>(std::min(spec_.capacity, kSegmentSlots)));
    ThawLocked();
  }
}

QueueCore::~QueueCore() = default;

// ---------------------------------------------------------------- storage

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
      bag_.push_back(std::move(element));
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
      Tuple t = std::move(bag_[index]);
      if (index + 1 != bag_.size()) bag_[index] = std::move(bag_.back());
      bag_.pop_back();
      return t;
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
        bag_.push_back(std::move(*it));
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

// ------------------------------------------------------------------ errors

std::string QueueCore::Prefix() const {
  return std::string(QueueKindName(spec_.kind)) + " '" + spec_.name + "'";
}

Status QueueCore::ClosedError() const {
  return CancelledError(Prefix() + " is closed.");
}

Status QueueCore::InsufficientError(int64_t requested, int64_t size) const {
  return OutOfRangeError(Prefix() +
                         " is closed and has insufficient elements "
                         "(requested " +
                         std::to_string(requested) + ", current size " +
                         std::to_string(size) + ")");
}

Status QueueCore::ClosedDequeueError(int64_t requested,
                                     const CallOptions& options) const {
  // The stop came first: it, not the close, answers the call (as a stop
  // answers a waiting attempt before a later close can).
  if (options.stop.stop_requested()) {
    return CancelledError("Dequeue operation was cancelled");
  }
  return InsufficientError(requested, StoredLocked());
}

// ------------------------------------------------------------ waiter model

QueueCore::RunResult QueueCore::RunLocked(Attempt* a) {
  switch (a->op) {
    case Op::kEnqueue:
    case Op::kEnqueueMany: {
      if (closed_) {
        a->status = ClosedError();
        return RunResult::kComplete;
      }
      bool progress = false;
      while (a->next_row < a->rows.size() && StoredLocked() < spec_.capacity) {
        PushLocked(std::move(a->rows[a->next_row++]));
        progress = true;
      }
      if (a->next_row == a->rows.size()) return RunResult::kComplete;
      return progress ? RunResult::kProgress : RunResult::kNoProgress;
    }
    case Op::kClose:
      if (closed_) {
        a->status =
            CancelledError("Queue '" + spec_.name + "' is already closed.");
      } else {
        closed_ = true;
        closed_hint_.store(true, std::memory_order_relaxed);
      }
      return RunResult::kComplete;
    case Op::kDequeue:
      if (closed_ && StoredLocked() == 0) {
        a->status = InsufficientError(1, 0);
        return RunResult::kComplete;
      }
      if (TakeableLocked() > 0) {
        a->taken.push_back(TakeLocked());
        return RunResult::kComplete;
      }
      return RunResult::kNoProgress;
    case Op::kDequeueMany:
      break;
  }

  const int64_t size = StoredLocked();
  if (spec_.kind == QueueKind::kPriority) {
    // Not incremental: all n at once, so each batch is sorted.
    if (closed_ && size < a->requested) {
      if (!a->allow_small_batch || size == 0) {
        a->status = InsufficientError(a->requested, size);
        return RunResult::kComplete;
      }
      a->requested = size;
    }
    if (size < a->requested) return RunResult::kNoProgress;
    for (; a->requested > 0; --a->requested) a->taken.push_back(TakeLocked());
    return RunResult::kComplete;
  }
  if (closed_ && size < a->requested) {
    // Not enough will ever come: give back what was taken, then either
    // take everything (DequeueUpTo) or fail.
    RestoreLocked(&a->taken);
    const int64_t stored = StoredLocked();
    if (!a->allow_small_batch || stored == 0) {
      a->status = InsufficientError(a->requested, size);
      return RunResult::kComplete;
    }
    a->requested = stored;
  }
  bool progress = false;
  while (a->requested > 0 && TakeableLocked() > 0) {
    a->taken.push_back(TakeLocked());
    --a->requested;
    progress = true;
  }
  if (a->requested == 0) return RunResult::kComplete;
  return progress ? RunResult::kProgress : RunResult::kNoProgress;
}

bool QueueCore::RunSideLocked(AttemptList* side, WakeList* wake) {
  bool progress = false;
  while (!side->empty()) {
    Attempt* head = side->front().get();
    switch (RunLocked(head)) {
      case RunResult::kNoProgress:
        return progress;
      case RunResult::kProgress:
        return true;
      case RunResult::kComplete:
        head->done = true;
        wake->Add(std::move(side->front()));
        side->pop_front();
        progress = true;
        break;
    }
  }
  return progress;
}

void QueueCore::FlushLocked(WakeList* wake) {
  bool changed;
  do {
    changed = RunSideLocked(&enqueue_attempts_, wake);
    changed = RunSideLocked(&dequeue_attempts_, wake) || changed;
  } while (changed);
}

void QueueCore::AbandonLocked(Attempt* a, Status why) {
  AttemptList& side =
      a->op == Op::kEnqueue || a->op == Op::kEnqueueMany || a->op == Op::kClose
          ? enqueue_attempts_
          : dequeue_attempts_;
  const auto it = std::find_if(side.begin(), side.end(),
                               [a](const auto& p) { return p.get() == a; });
  if (it != side.end()) side.erase(it);
  // Spec divergence (section 1.6): TF drops what a cancelled DequeueMany had
  // taken; we put it back at the front, in order.
  RestoreLocked(&a->taken);
  a->status = std::move(why);
  a->done = true;
}

void QueueCore::Wait(const std::shared_ptr<Attempt>& a,
                     const CallOptions& options,
                     const PollStart& polled_since) {
  using Clock = CondVar::Clock;
  const bool timed = Timed(options);
  const Clock::time_point deadline =
      timed ? polled_since.value_or(Clock::now()) + *options.timeout
            : Clock::time_point::max();
  Attempt* const raw = a.get();
  const bool is_enqueue =
      a->op == Op::kEnqueue || a->op == Op::kEnqueueMany || a->op == Op::kClose;
  const char* const cancelled = is_enqueue ? "Enqueue operation was cancelled"
                                           : "Dequeue operation was cancelled";
  // A stop answers the attempt itself, under the lock, unless it is done
  // already: when request_stop() returns, the attempt is CANCELLED, so a
  // Close that the same stop triggers afterwards (a QueueRunner's closer)
  // finds it gone instead of answering it OUT_OF_RANGE. The callback runs
  // in the constructor if the token has already fired (the attempt is in
  // no list yet), else in the thread that requests the stop. It is
  // destroyed (and so deregistered) after the lock is released below.
  auto on_stop = [this, raw, cancelled] {
    WakeList wake;
    MutexLock lock(&mu_);
    if (!raw->done) {
      FreezeScope freeze(this);
      AbandonLocked(raw, CancelledError(cancelled));
      FlushLocked(&wake);
    }
    raw->cv.Signal();
  };
  std::optional<std::stop_callback<decltype(on_stop)>> stop_callback;
  if (options.stop.stop_possible())
    stop_callback.emplace(options.stop, on_stop);

  WakeList wake;
  MutexLock lock(&mu_);
  FreezeScope freeze(this);
  if (raw->done) return;  // stopped before it joined the waiters
  (is_enqueue ? enqueue_attempts_ : dequeue_attempts_).push_back(a);
  FlushLocked(&wake);
  while (!raw->done) {
    if (!wake.empty()) {
      // Others' attempts this call completed: wake them before sleeping,
      // outside the lock, then look again.
      mu_.unlock();
      wake.SignalNow();
      mu_.lock();
      // Closed still (this attempt was waiting), unless it completed.
      FreezeLocked();
      continue;
    }
    if (timed) {
      if (Clock::now() >= deadline) {
        AbandonLocked(raw,
                      DeadlineExceededError(
                          Prefix() + ": timed out after " +
                          std::to_string(options.timeout->count()) + " ms"));
        FlushLocked(&wake);
        break;
      }
      raw->cv.WaitUntil(&mu_, deadline);
    } else {
      raw->cv.Wait(&mu_);
    }
    FreezeLocked();
  }
}

Tuple QueueCore::BatchOf(std::vector<Tuple>& elements) const {
  return MakeBatch(elements, spec_.dtypes, spec_.shapes, pad_);
}

// ------------------------------------------------------------- operations

Status QueueCore::Enqueue(Tuple element, const CallOptions& options) {
  INFLOW_RETURN_IF_ERROR(ValidateElement(element));
  if (options.stop.stop_requested()) {
    return CancelledError("Enqueue operation was cancelled");
  }
  bool spun = false;
  PollStart waiting_since;
  if (fast_) {
    SlotRing::Outcome outcome = TryPushFast(element);
    // A full segment is a full queue if it is the only one there can be;
    // else the lock adds a segment.
    if (outcome == SlotRing::Outcome::kFullOrEmpty && !NoWait(options) &&
        spec_.capacity <= kSegmentSlots) {
      PollUntil(
          [&] {
            outcome = TryPushFast(element);
            return outcome != SlotRing::Outcome::kFullOrEmpty;
          },
          options, &waiting_since);
      spun = true;
    }
    if (outcome == SlotRing::Outcome::kDone) return OkStatus();
    // Full, or gated (someone waits, the queue is closed, or a segment is
    // to be added): straight to the lock, which decides exactly.
    spun = true;
  }
  const auto has_room = [this] {
    return stored_hint_.load(std::memory_order_relaxed) < spec_.capacity ||
           closed_hint_.load(std::memory_order_relaxed);
  };
  // Looks full: poll before taking the lock (see PollUntil).
  if (!spun && !has_room() && !NoWait(options)) {
    PollUntil(has_room, options, &waiting_since);
    spun = true;
  }
  for (;; spun = true) {
    bool others_wait;
    {
      WakeList wake;
      SpinMutexLock lock(&mu_);
      FreezeScope freeze(this);
      others_wait = !enqueue_attempts_.empty();
      if (!others_wait) {
        if (closed_) return ClosedError();
        if (StoredLocked() < spec_.capacity) {
          PushLocked(std::move(element));
          if (!dequeue_attempts_.empty()) FlushLocked(&wake);
          return OkStatus();
        }
      }
      if (NoWait(options)) {
        return DeadlineExceededError(Prefix() + ": enqueue would block");
      }
    }
    if (spun || others_wait) break;
    if (!PollUntil(has_room, options, &waiting_since)) break;
  }
  auto a = std::make_shared<Attempt>(Op::kEnqueue);
  a->rows.push_back(std::move(element));
  Wait(a, options, waiting_since);
  return a->status;
}

Status QueueCore::EnqueueMany(Tuple batch, const CallOptions& options) {
  int64_t rows = 0;
  INFLOW_RETURN_IF_ERROR(ValidateBatch(batch, &rows));
  if (rows == 0) return OkStatus();  // even on a closed queue, as TF
  if (options.stop.stop_requested()) {
    return CancelledError("Enqueue operation was cancelled");
  }
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
  auto a = std::make_shared<Attempt>(Op::kEnqueueMany);
  a->rows = std::move(elements);
  Wait(a, options);
  return a->status;
}

Result<Tuple> QueueCore::Dequeue(const CallOptions& options) {
  if (options.stop.stop_requested()) {
    return CancelledError("Dequeue operation was cancelled");
  }
  bool spun = false;
  PollStart waiting_since;
  if (fast_) {
    Tuple element;
    SlotRing::Outcome outcome = TryPopFast(&element);
    // Empty while the gate is open: the queue is empty (or its oldest
    // element is being written); poll before taking the lock.
    if (outcome == SlotRing::Outcome::kFullOrEmpty && !NoWait(options)) {
      PollUntil(
          [&] {
            outcome = TryPopFast(&element);
            return outcome != SlotRing::Outcome::kFullOrEmpty;
          },
          options, &waiting_since);
      spun = true;
    }
    if (outcome == SlotRing::Outcome::kDone) return element;
    // Empty, or gated (someone waits, the queue is closed, or the first
    // segment is to be dropped): straight to the lock, which decides
    // exactly.
    spun = true;
  }
  const auto has_element = [this] {
    return stored_hint_.load(std::memory_order_relaxed) > keep_ ||
           closed_hint_.load(std::memory_order_relaxed);
  };
  // Looks empty: poll before taking the lock (see PollUntil).
  if (!spun && !has_element() && !NoWait(options)) {
    PollUntil(has_element, options, &waiting_since);
    spun = true;
  }
  for (;; spun = true) {
    bool others_wait;
    {
      WakeList wake;
      SpinMutexLock lock(&mu_);
      FreezeScope freeze(this);
      others_wait = !dequeue_attempts_.empty();
      if (!others_wait) {
        if (TakeableLocked() > 0) {
          Tuple element = TakeLocked();
          if (!enqueue_attempts_.empty()) FlushLocked(&wake);
          return element;
        }
        if (closed_) return ClosedDequeueError(1, options);
      }
      if (NoWait(options)) {
        return DeadlineExceededError(Prefix() + ": dequeue would block");
      }
    }
    if (spun || others_wait) break;
    if (!PollUntil(has_element, options, &waiting_since)) break;
  }
  auto a = std::make_shared<Attempt>(Op::kDequeue);
  a->requested = 1;
  Wait(a, options, waiting_since);
  if (!a->status.ok()) return a->status;
  return std::move(a->taken[0]);
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
  auto a = std::make_shared<Attempt>(Op::kDequeueMany);
  a->requested = n;
  a->allow_small_batch = allow_small_batch;
  Wait(a, options);
  if (!a->status.ok()) return a->status;
  return BatchOf(a->taken);
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
