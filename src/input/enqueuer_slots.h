// Copyright 2026 The inflow Authors.
//
// EnqueuerSlots: the bounded, ordered hand-off that OrderedEnqueuer and
// GeneratorEnqueuer share (Keras's queue of pending futures). Slots are
// reserved in order, filled by workers in any order and taken by the
// consumer in reservation order, so the consumer sees results in
// submission order whatever the workers' timing.

#ifndef INFLOW_SRC_INPUT_ENQUEUER_SLOTS_H_
#define INFLOW_SRC_INPUT_ENQUEUER_SLOTS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>

#include "inflow/core/call_options.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

namespace inflow::internal {

// What one slot holds once filled: a value, nothing to hand out (a
// generator's None, skipped by Take), or an error.
using SlotResult = Result<std::optional<Tuple>>;

// Thread-safe. Every wait ends when the slots are stopped (Stop()); none of
// them polls.
//
// At most `capacity` slots are reserved and not yet taken. A slot filled
// with an error closes the slots (no further reservation; queued tasks
// after it are dropped): the consumer takes the slots before it, then the
// error, which stops the slots. Close(end) ends them cleanly: the consumer
// takes what was reserved, then gets `end`.
class EnqueuerSlots {
 public:
  using Ticket = uint64_t;
  // A reserved slot and the index its worker computes (OrderedEnqueuer's
  // batch index).
  struct Task {
    Ticket ticket;
    int64_t index;
  };

  // Precondition: capacity >= 1.
  explicit EnqueuerSlots(int64_t capacity);
  EnqueuerSlots(const EnqueuerSlots&) = delete;
  EnqueuerSlots& operator=(const EnqueuerSlots&) = delete;

  // Blocks while `capacity` slots are outstanding, then reserves the next
  // one. Tickets count from 0 in reservation order. nullopt once stopped or
  // closed.
  std::optional<Ticket> Reserve() INFLOW_EXCLUDES(mu_);
  // Reserve() and queue a task for it that NextTask() hands to one worker.
  // False once stopped or closed.
  bool Submit(int64_t index) INFLOW_EXCLUDES(mu_);
  // Reserves a slot and fills it with `error` (an error of the producer's
  // own, delivered in order). Precondition: !error.ok().
  void Fail(Status error) INFLOW_EXCLUDES(mu_);
  // Blocks until every reserved slot has been taken by the consumer. False
  // when the slots were stopped first.
  bool WaitUntilAllTaken() INFLOW_EXCLUDES(mu_);

  // Blocks until a task is queued; nullopt once stopped.
  std::optional<Task> NextTask() INFLOW_EXCLUDES(mu_);
  // Fills a reserved slot. Ignored once stopped (the slots were dropped).
  void Fill(Ticket ticket, SlotResult result) INFLOW_EXCLUDES(mu_);
  // Fills `ticket` with nothing to hand out and closes the slots with
  // `end`: no further reservation; Take hands out the slots still
  // reserved, then returns `end` (and stops the slots). A second Close
  // keeps the first `end`.
  void Close(Ticket ticket, Status end) INFLOW_EXCLUDES(mu_);

  // The next filled slot's value, in reservation order, skipping slots
  // with nothing to hand out. A slot's error, or the end of closed slots,
  // is returned and stops the slots. Once stopped, the stopping status
  // from every call. `options.timeout` bounds the wait (DEADLINE_EXCEEDED)
  // and `options.stop` releases it (CANCELLED); neither takes anything nor
  // stops the slots.
  Result<Tuple> Take(const CallOptions& options) INFLOW_EXCLUDES(mu_);

  // Drops every slot and queued task and wakes every wait; Take returns
  // `why` from then on. The first stop wins.
  void Stop(Status why) INFLOW_EXCLUDES(mu_);
  bool stopped() const INFLOW_EXCLUDES(mu_);

 private:
  struct Slot {
    std::optional<SlotResult> result;  // set by Fill
  };

  std::optional<Ticket> ReserveLocked() INFLOW_REQUIRES(mu_);
  void FillLocked(Ticket ticket, SlotResult result) INFLOW_REQUIRES(mu_);
  void StopLocked(Status why) INFLOW_REQUIRES(mu_);
  bool HeadReady() const INFLOW_REQUIRES(mu_) {
    return !slots_.empty() && slots_.front().result.has_value();
  }

  const size_t capacity_;
  mutable Mutex mu_;
  // Signalled when a slot is taken or on stop/close (Reserve,
  // WaitUntilAllTaken).
  CondVar space_cv_;
  CondVar task_cv_;   // a task was queued, or stop
  CondVar ready_cv_;  // the head slot was filled, or stop/close
  std::deque<Slot> slots_ INFLOW_GUARDED_BY(mu_);
  Ticket head_ INFLOW_GUARDED_BY(mu_) = 0;  // ticket of slots_.front()
  std::deque<Task> tasks_ INFLOW_GUARDED_BY(mu_);
  bool closed_ INFLOW_GUARDED_BY(mu_) = false;
  Status end_ INFLOW_GUARDED_BY(mu_);  // Take's answer once closed, drained
  bool stopped_ INFLOW_GUARDED_BY(mu_) = false;
  Status stop_status_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_INPUT_ENQUEUER_SLOTS_H_
