// Copyright 2026 The inflow Authors.

#include "inflow/input/generator_enqueuer.h"

#include <string>
#include <utility>

#include "input/enqueuer_runner.h"
#include "input/enqueuer_slots.h"
#include "threads/run_catching.h"

namespace inflow {

using internal::EnqueuerSlots;

GeneratorEnqueuer::GeneratorEnqueuer(Generator next,
                                     GeneratorEnqueuerOptions options)
    : next_(std::move(next)),
      options_(std::move(options)),
      runner_(std::make_unique<internal::EnqueuerRunner>("GeneratorEnqueuer")) {
}

GeneratorEnqueuer::~GeneratorEnqueuer() = default;

Status GeneratorEnqueuer::Start(int workers, int64_t max_queue_size) {
  auto prepare = [this]() -> Status {
    if (!next_) {
      return InvalidArgumentError("GeneratorEnqueuer: the generator is empty");
    }
    return OkStatus();
  };
  // No producer thread: each worker reserves its call's slot itself, which
  // bounds the calls ahead of the consumer just as Keras's producer does.
  return runner_->Start(
      workers, max_queue_size, prepare, options_.name,
      [this](EnqueuerSlots* slots, const CallOptions& options) {
        if (options_.serialize_calls) {
          while (SerialCallOnce(slots, options)) {
          }
        } else {
          while (CallOnce(slots, options)) {
          }
        }
      },
      nullptr);
}

bool GeneratorEnqueuer::SerialCallOnce(EnqueuerSlots* slots,
                                       const CallOptions& options) {
  // The slot is reserved under the lock too, so the items leave in the
  // order the generator made them.
  MutexLock lock(&call_mu_);
  return CallOnce(slots, options);
}

bool GeneratorEnqueuer::CallOnce(EnqueuerSlots* slots,
                                 const CallOptions& options) {
  const std::optional<EnqueuerSlots::Ticket> ticket = slots->Reserve();
  if (!ticket) return false;  // stopped, ended, or failed
  std::optional<Tuple> item;
  Status s = internal::RunCatching([&] {
    Result<std::optional<Tuple>> got = next_(options);
    if (!got.ok()) return std::move(got).status();
    item = std::move(got).value();
    return OkStatus();
  });
  if (IsOutOfRange(s)) {
    // The end: the calls already made are still handed out.
    slots->Close(*ticket, OutOfRangeError("the generator is exhausted"));
    return false;
  }
  if (!s.ok()) {
    slots->Fill(*ticket,
                s.WithContext("generator call " + std::to_string(*ticket)));
    return false;
  }
  slots->Fill(*ticket, std::move(item));
  return true;
}

Result<Tuple> GeneratorEnqueuer::Get(const CallOptions& options) {
  return runner_->Get(options);
}

bool GeneratorEnqueuer::IsRunning() const { return runner_->IsRunning(); }

Status GeneratorEnqueuer::Stop(
    std::optional<std::chrono::milliseconds> timeout) {
  return runner_->Stop(timeout);
}

}  // namespace inflow
