// Copyright 2026 The inflow Authors.

#include "inflow/threads/coordinator.h"

#include <cxxabi.h>

#include <algorithm>
#include <exception>
#include <string>

namespace inflow {
namespace {

using Clock = std::chrono::steady_clock;

// How often Join checks whether its threads have all returned while no stop
// is requested (a stop wakes it at once).
constexpr std::chrono::milliseconds kJoinPollInterval{5};

}  // namespace

Coordinator::Coordinator(std::vector<StatusCode> clean_stop_codes)
    : clean_stop_codes_(std::move(clean_stop_codes)) {}

Coordinator::~Coordinator() {
  RequestStop();
  std::vector<std::shared_ptr<Thread>> threads;
  {
    MutexLock lock(&mu_);
    threads.swap(registered_);
    threads.insert(threads.end(), stragglers_.begin(), stragglers_.end());
    stragglers_.clear();
  }
  // The threads use this object, so they must be gone before it is.
  for (const auto& t : threads) t->Join();
}

bool Coordinator::ShouldStop() const { return stop_.load(); }

bool Coordinator::IsCleanStop(const Status& s) const {
  return s.ok() || std::find(clean_stop_codes_.begin(), clean_stop_codes_.end(),
                             s.code()) != clean_stop_codes_.end();
}

void Coordinator::RequestStop() { RequestStop(OkStatus()).IgnoreError(); }

Status Coordinator::RequestStop(const Status& error) {
  const bool clean = IsCleanStop(error);
  std::stop_source source;
  {
    MutexLock lock(&mu_);
    if (joined_) return clean ? OkStatus() : error;
    if (stop_.load()) return OkStatus();  // the first request won
    if (!clean && error_.ok()) error_ = error;
    stop_.store(true);
    source = stop_source_;
  }
  // Outside the lock: stop callbacks (queue waiters, runner threads) run
  // synchronously here and must be free to take their own locks. Each
  // answers its blocked queue call CANCELLED before it returns.
  source.request_stop();
  {
    // Only now are WaitForStop's waiters released: a closer thread woken
    // there closes its queue after every call made with this stop's token
    // has been answered, so none of them gets the close's OUT_OF_RANGE.
    MutexLock lock(&mu_);
    if (stop_source_ == source) stop_fired_ = true;
    stop_cv_.SignalAll();
  }
  return OkStatus();
}

void Coordinator::ClearStop() {
  MutexLock lock(&mu_);
  stop_.store(false);
  stop_fired_ = false;
  error_ = OkStatus();
  joined_ = false;
  stop_source_ = std::stop_source();
}

bool Coordinator::WaitForStop(std::optional<std::chrono::nanoseconds> timeout,
                              std::stop_token also) {
  // Registered before taking mu_: if `also` already fired, the callback runs
  // right here and takes mu_ itself.
  std::stop_callback wake(also, [this] {
    MutexLock lock(&mu_);
    stop_cv_.SignalAll();
  });
  const auto deadline = timeout ? Clock::now() + *timeout : Clock::time_point();
  MutexLock lock(&mu_);
  while (!stop_fired_ && !also.stop_requested()) {
    if (!timeout) {
      stop_cv_.Wait(&mu_);
    } else if (!stop_cv_.WaitUntil(&mu_, deadline) &&
               Clock::now() >= deadline) {
      break;
    }
  }
  // Not ShouldStop(): a wait that times out while RequestStop is still
  // running the token's callbacks must not report a stop whose calls are
  // not all answered yet.
  return stop_fired_;
}

std::stop_token Coordinator::stop_token() const {
  MutexLock lock(&mu_);
  return stop_source_.get_token();
}

CallOptions Coordinator::MakeCallOptions(
    std::optional<std::chrono::milliseconds> timeout) const {
  CallOptions options;
  options.timeout = timeout;
  options.stop = stop_token();
  return options;
}

void Coordinator::RegisterThread(std::shared_ptr<Thread> thread) {
  if (thread == nullptr) return;
  MutexLock lock(&mu_);
  if (std::find(registered_.begin(), registered_.end(), thread) ==
      registered_.end()) {
    registered_.push_back(std::move(thread));
  }
}

Status Coordinator::RunAndReport(const std::function<Status()>& fn) {
  Status s;
  try {
    s = fn();
  } catch (abi::__forced_unwind&) {
    // pthread_exit's unwinding (Python ends daemon threads so at exit):
    // it must go on, or the process aborts.
    throw;
  } catch (const std::exception& e) {
    s = UnknownError(std::string("exception: ") + e.what());
  } catch (...) {
    s = UnknownError("non-standard exception");
  }
  if (s.ok()) return s;
  return RequestStop(s);
}

bool Coordinator::AllDone(
    const std::vector<std::shared_ptr<Thread>>& threads) const {
  return std::none_of(threads.begin(), threads.end(),
                      [](const auto& t) { return t->IsAlive(); });
}

Status Coordinator::Join(std::vector<std::shared_ptr<Thread>> threads,
                         std::chrono::nanoseconds stop_grace_period,
                         bool ignore_live_threads) {
  {
    MutexLock lock(&mu_);
    for (const auto& t : registered_) {
      if (std::find(threads.begin(), threads.end(), t) == threads.end()) {
        threads.push_back(t);
      }
    }
  }
  std::erase(threads, nullptr);

  // Until every thread returned or a stop is requested; a stop wakes the
  // wait at once, returning threads are noticed within the poll interval.
  while (!AllDone(threads) && !WaitForStop(kJoinPollInterval)) {
  }

  // The grace period runs from when the stop was noticed.
  const auto deadline =
      Clock::now() + std::max(stop_grace_period, std::chrono::nanoseconds(0));
  std::vector<std::string> stragglers;
  std::vector<std::shared_ptr<Thread>> alive;
  for (const auto& t : threads) {
    if (t->WaitUntil(deadline)) {
      t->Join();  // returned: reaping is immediate
    } else {
      stragglers.push_back(t->name());
      alive.push_back(t);
    }
  }

  Status error;
  // Dropped after the lock is released: destroying a Thread runs its stop
  // callbacks, which may take mu_.
  std::vector<std::shared_ptr<Thread>> dropped;
  {
    MutexLock lock(&mu_);
    joined_ = true;
    dropped.swap(registered_);
    // Kept so that the destructor still waits for them: they may use this
    // object until they return.
    for (auto& t : stragglers_) {
      (t->IsAlive() ? alive : dropped).push_back(std::move(t));
    }
    stragglers_ = std::move(alive);
    error = error_;
  }
  if (!error.ok()) return error;
  if (!stragglers.empty() && !ignore_live_threads) {
    std::string names;
    for (const auto& n : stragglers) {
      if (!names.empty()) names += ", ";
      names += n;
    }
    return UnknownError("Coordinator stopped with threads still running: " +
                        names);
  }
  return OkStatus();
}

Status Coordinator::RecordedError() const {
  MutexLock lock(&mu_);
  return error_;
}

bool Coordinator::joined() const {
  MutexLock lock(&mu_);
  return joined_;
}

}  // namespace inflow
