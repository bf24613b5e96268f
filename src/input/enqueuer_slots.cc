// Copyright 2026 The inflow Authors.

#include "input/enqueuer_slots.h"

#include <chrono>
#include <exception>
#include <stop_token>
#include <string>
#include <utility>

#include "inflow/threads/thread_registry.h"

namespace inflow::internal {

EnqueuerSlots::EnqueuerSlots(int64_t capacity)
    : capacity_(static_cast<size_t>(capacity)) {}

std::optional<EnqueuerSlots::Ticket> EnqueuerSlots::ReserveLocked() {
  if (slots_.size() >= capacity_ && !stopped_ && !closed_) {
    ScopedBlockedTimer blocked;
    while (slots_.size() >= capacity_ && !stopped_ && !closed_) {
      space_cv_.Wait(&mu_);
    }
  }
  if (stopped_ || closed_) return std::nullopt;
  slots_.emplace_back();
  return head_ + slots_.size() - 1;
}

std::optional<EnqueuerSlots::Ticket> EnqueuerSlots::Reserve() {
  MutexLock lock(&mu_);
  return ReserveLocked();
}

bool EnqueuerSlots::Submit(int64_t index) {
  MutexLock lock(&mu_);
  const std::optional<Ticket> ticket = ReserveLocked();
  if (!ticket) return false;
  tasks_.push_back({*ticket, index});
  task_cv_.Signal();
  return true;
}

void EnqueuerSlots::Fail(Status error) {
  MutexLock lock(&mu_);
  const std::optional<Ticket> ticket = ReserveLocked();
  if (ticket) FillLocked(*ticket, std::move(error));
}

bool EnqueuerSlots::WaitUntilAllTaken() {
  MutexLock lock(&mu_);
  while (!slots_.empty() && !stopped_) space_cv_.Wait(&mu_);
  return !stopped_;
}

std::optional<EnqueuerSlots::Task> EnqueuerSlots::NextTask() {
  MutexLock lock(&mu_);
  if (tasks_.empty() && !stopped_) {
    ScopedBlockedTimer blocked;
    while (tasks_.empty() && !stopped_) task_cv_.Wait(&mu_);
  }
  if (stopped_) return std::nullopt;
  const Task task = tasks_.front();
  tasks_.pop_front();
  return task;
}

void EnqueuerSlots::FillLocked(Ticket ticket, SlotResult result) {
  if (stopped_) return;
  if (!result.ok()) {
    // No slot after this one can be handed out: the consumer stops at the
    // error. Reserve no more, and let no worker start on a later task.
    if (!closed_) {
      closed_ = true;
      end_ = result.status();
    }
    std::erase_if(tasks_,
                  [ticket](const Task& t) { return t.ticket > ticket; });
    space_cv_.SignalAll();
  }
  slots_[ticket - head_].result = std::move(result);
  if (ticket == head_) ready_cv_.SignalAll();
}

void EnqueuerSlots::Fill(Ticket ticket, SlotResult result) {
  MutexLock lock(&mu_);
  FillLocked(ticket, std::move(result));
}

void EnqueuerSlots::Close(Ticket ticket, Status end) {
  MutexLock lock(&mu_);
  if (stopped_) return;
  if (!closed_) {
    closed_ = true;
    end_ = std::move(end);
  }
  FillLocked(ticket, std::optional<Tuple>());
  // Reservers give up; a consumer waiting on drained slots ends.
  space_cv_.SignalAll();
  ready_cv_.SignalAll();
}

Result<Tuple> EnqueuerSlots::Take(const CallOptions& options) {
  if (options.stop.stop_requested()) {
    return CancelledError("Get was cancelled");
  }
  // Registered before mu_ is taken: the callback takes it.
  auto wake = [this] {
    MutexLock lock(&mu_);
    ready_cv_.SignalAll();
  };
  std::optional<std::stop_callback<decltype(wake)>> on_stop;
  if (options.stop.stop_possible()) on_stop.emplace(options.stop, wake);
  using Clock = CondVar::Clock;
  const Clock::time_point deadline =
      options.timeout ? Clock::now() + *options.timeout : Clock::time_point();

  MutexLock lock(&mu_);
  for (;;) {
    if (stopped_) return stop_status_;
    if (HeadReady()) {
      SlotResult result = std::move(*slots_.front().result);
      slots_.pop_front();
      ++head_;
      space_cv_.SignalAll();
      // Another consumer may be waiting for the new head.
      if (HeadReady()) ready_cv_.Signal();
      if (!result.ok()) {
        Status error = std::move(result).status();
        StopLocked(error);
        return error;
      }
      if (!result->has_value()) continue;  // nothing to hand out
      return std::move(**result);
    }
    if (slots_.empty() && closed_) {
      const Status end = end_;
      StopLocked(end);
      return end;
    }
    if (options.stop.stop_requested()) {
      return CancelledError("Get was cancelled");
    }
    if (!options.timeout) {
      ready_cv_.Wait(&mu_);
    } else if (Clock::now() >= deadline) {
      return DeadlineExceededError("Get timed out after " +
                                   std::to_string(options.timeout->count()) +
                                   " ms");
    } else {
      ready_cv_.WaitUntil(&mu_, deadline);
    }
  }
}

void EnqueuerSlots::StopLocked(Status why) {
  if (stopped_) return;
  stopped_ = true;
  stop_status_ = std::move(why);
  slots_.clear();
  tasks_.clear();
  space_cv_.SignalAll();
  task_cv_.SignalAll();
  ready_cv_.SignalAll();
}

void EnqueuerSlots::Stop(Status why) {
  MutexLock lock(&mu_);
  StopLocked(std::move(why));
}

bool EnqueuerSlots::stopped() const {
  MutexLock lock(&mu_);
  return stopped_;
}

}  // namespace inflow::internal
