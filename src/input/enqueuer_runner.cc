// Copyright 2026 The inflow Authors.

#include "input/enqueuer_runner.h"

#include <stop_token>
#include <utility>

#include "threads/run_catching.h"

namespace inflow::internal {
namespace {

// Stop(nullopt)'s grace period: without limit in practice, and far enough
// from nanoseconds::max() that the coordinator's deadline cannot overflow.
constexpr std::chrono::nanoseconds kNoLimit =
    std::chrono::hours(24 * 365 * 100);

}  // namespace

EnqueuerRunner::EnqueuerRunner(std::string kind) : kind_(std::move(kind)) {}

EnqueuerRunner::~EnqueuerRunner() { Stop(std::nullopt).IgnoreError(); }

Status EnqueuerRunner::Start(int workers, int64_t max_queue_size,
                             const std::function<Status()>& prepare,
                             const std::string& name, Body worker,
                             Body producer) {
  MutexLock lock(&mu_);
  if (started_) {
    return FailedPreconditionError(kind_ +
                                   "::Start: already started (an enqueuer "
                                   "runs once)");
  }
  if (workers < 1 || max_queue_size < 1) {
    return InvalidArgumentError(
        kind_ + "::Start: workers and max_queue_size must be >= 1, got " +
        std::to_string(workers) + " and " + std::to_string(max_queue_size));
  }
  INFLOW_RETURN_IF_ERROR(prepare());
  started_ = true;
  slots_ = std::make_shared<EnqueuerSlots>(max_queue_size);
  for (int k = 0; k < workers; ++k) {
    threads_.push_back(MakeThread(name + "/worker:" + std::to_string(k), worker,
                                  slots_.get()));
  }
  if (producer) {
    threads_.push_back(
        MakeThread(name + "/producer", std::move(producer), slots_.get()));
  }
  // A fresh Thread starts once.
  for (const auto& thread : threads_) thread->Start().IgnoreError();
  return OkStatus();
}

std::shared_ptr<Thread> EnqueuerRunner::MakeThread(std::string name, Body body,
                                                   EnqueuerSlots* slots) {
  CallOptions options = coord_.MakeCallOptions();
  return std::make_shared<Thread>(
      std::move(name),
      [body = std::move(body), slots, options](std::stop_token) {
        Status s = RunCatching([&] {
          body(slots, options);
          return OkStatus();
        });
        // Our own failure (an allocation's), not the user's code (whose
        // exceptions the bodies catch): end the stream at once rather than
        // leave the consumer waiting for a slot this thread will not fill.
        if (!s.ok()) slots->Stop(s.WithContext("enqueuer thread"));
      });
}

std::shared_ptr<EnqueuerSlots> EnqueuerRunner::slots() const {
  MutexLock lock(&mu_);
  return slots_;
}

Result<Tuple> EnqueuerRunner::Get(const CallOptions& options) {
  const std::shared_ptr<EnqueuerSlots> slots = this->slots();
  if (slots == nullptr) {
    return FailedPreconditionError(kind_ + "::Get before Start");
  }
  Result<Tuple> item = slots->Take(options);
  // An error or the end handed out stopped the slots: release the user's
  // code running in the threads too.
  if (!item.ok() && slots->stopped()) coord_.RequestStop();
  return item;
}

bool EnqueuerRunner::IsRunning() const {
  const std::shared_ptr<EnqueuerSlots> slots = this->slots();
  return slots != nullptr && !slots->stopped();
}

Status EnqueuerRunner::Stop(std::optional<std::chrono::milliseconds> timeout) {
  std::shared_ptr<EnqueuerSlots> slots;
  std::vector<std::shared_ptr<Thread>> threads;
  {
    MutexLock lock(&mu_);
    slots = slots_;
    threads = threads_;
  }
  if (slots == nullptr) return OkStatus();  // never started
  slots->Stop(CancelledError(kind_ + " was stopped"));
  coord_.RequestStop();
  return coord_.Join(std::move(threads),
                     timeout ? std::chrono::nanoseconds(*timeout) : kNoLimit);
}

}  // namespace inflow::internal
