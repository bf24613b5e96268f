// Copyright 2026 The inflow Authors.
//
// QueueCore's waiter model (queue_core.h): running the heads of the two
// attempt lists, abandoning an attempt, and waiting for one.

#include <algorithm>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "queue/attempt.h"
#include "queue/freeze_scope.h"
#include "queue/queue_core.h"

namespace inflow::internal {

QueueCore::RunResult QueueCore::RunLocked(Attempt* a) {
  switch (a->op) {
    case Op::kEnqueue:
    case Op::kEnqueueMany: {
      if (closed_) {
        a->status = ClosedError();
        FreeUnpushedSlotsLocked(a);
        return RunResult::kComplete;
      }
      if (a->batch_rows > 0) {
        // RandomShuffle's EnqueueMany: as many rows as there is room for.
        const int64_t count =
            std::min(spec_.capacity - StoredLocked(),
                     a->batch_rows - static_cast<int64_t>(a->next_row));
        if (count > 0 && !a->slots.empty()) {
          PushSlotsLocked(std::span<const uint32_t>(a->slots).subspan(
              a->next_row, static_cast<size_t>(count)));
          a->next_row += static_cast<size_t>(count);
        } else if (count > 0) {
          PushRowsLocked(a->batch, static_cast<int64_t>(a->next_row), count);
          a->next_row += static_cast<size_t>(count);
        }
        if (static_cast<int64_t>(a->next_row) == a->batch_rows) {
          return RunResult::kComplete;
        }
        return count > 0 ? RunResult::kProgress : RunResult::kNoProgress;
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
    RestoreRowsLocked(&a->taken_rows);
    const int64_t stored = StoredLocked();
    if (!a->allow_small_batch || stored == 0) {
      a->status = InsufficientError(a->requested, size);
      return RunResult::kComplete;
    }
    a->requested = stored;
  }
  bool progress = false;
  if (shuffle_) {
    const int64_t count = std::min(a->requested, TakeableLocked());
    if (count > 0) {
      TakeRowsLocked(count, &a->taken_rows);
      a->requested -= count;
      progress = true;
    }
  }
  while (a->requested > 0 && TakeableLocked() > 0) {
    a->taken.push_back(TakeLocked());
    --a->requested;
    progress = true;
  }
  if (a->requested == 0) return RunResult::kComplete;
  return progress ? RunResult::kProgress : RunResult::kNoProgress;
}

void QueueCore::FreeUnpushedSlotsLocked(Attempt* a) {
  if (a->next_row >= a->slots.size()) return;
  bag_.FreeSlots(std::span<const uint32_t>(a->slots).subspan(a->next_row));
  a->slots.resize(a->next_row);
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
  // Where inflow differs from TF (docs/conformance.md, "Timeouts and
  // cancellation (1.6)"): TF drops what a cancelled DequeueMany had taken;
  // we put it back at the front, in order.
  RestoreLocked(&a->taken);
  RestoreRowsLocked(&a->taken_rows);
  FreeUnpushedSlotsLocked(a);
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

}  // namespace inflow::internal
