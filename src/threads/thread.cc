// Copyright 2026 The inflow Authors.

#include "inflow/threads/thread.h"

#include <cxxabi.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <string>

namespace inflow {
namespace {

// Linux keeps at most 15 bytes of a thread name.
void SetOsThreadName(const std::string& name) {
  const std::string os_name = name.substr(0, 15);
  pthread_setname_np(pthread_self(), os_name.c_str());
}

}  // namespace

Thread::Thread(std::string name, Body body)
    : stats_(ThreadRegistry::Global().Register(std::move(name))),
      shared_(std::make_shared<Shared>()),
      body_(std::move(body)) {}

Thread::~Thread() {
  RequestStop();
  Join();
}

Status Thread::Start() {
  MutexLock join_lock(&join_mu_);
  {
    MutexLock lock(&mu_);
    if (started_) {
      return FailedPreconditionError("thread '" + name() +
                                     "' was already started");
    }
    started_ = true;
  }
  stats_->set_state(ThreadState::kRunning);
  // The body holds shared_ptrs, never `this`: the Thread object may be
  // destroyed by another thread while the body finishes.
  thread_ =
      std::jthread([stats = stats_, shared = shared_, token = stop_.get_token(),
                    body = std::move(body_)]() {
        SetOsThreadName(stats->name());
        internal::SetCurrentThreadStats(stats.get());
        auto finish = [&stats, &shared](Status exit_status) {
          if (!exit_status.ok()) stats->AddError();
          internal::SetCurrentThreadStats(nullptr);
          stats->set_state(ThreadState::kFinished);
          MutexLock lock(&shared->mu);
          shared->done = true;
          shared->exit_status = std::move(exit_status);
          shared->done_cv.SignalAll();
        };
        Status exit_status;
        try {
          body(token);
        } catch (abi::__forced_unwind&) {
          // pthread_exit (Python ends daemon threads so at exit): the
          // thread is done, and the unwinding must go on, or the process
          // aborts.
          finish(UnknownError("thread '" + stats->name() +
                              "' ended by pthread_exit"));
          throw;
        } catch (const std::exception& e) {
          exit_status = UnknownError("thread '" + stats->name() +
                                     "' ended with an exception: " + e.what());
        } catch (...) {
          exit_status = UnknownError("thread '" + stats->name() +
                                     "' ended with a non-standard exception");
        }
        finish(std::move(exit_status));
      });
  return OkStatus();
}

void Thread::RequestStop() { stop_.request_stop(); }

void Thread::Join() {
  MutexLock join_lock(&join_mu_);
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    // The last owner dropped the Thread from inside its own body: the body
    // is returning, and joining itself would throw.
    thread_.detach();
    return;
  }
  thread_.join();
}

bool Thread::WaitUntil(std::chrono::steady_clock::time_point deadline) {
  {
    MutexLock lock(&mu_);
    if (!started_) return true;
  }
  MutexLock lock(&shared_->mu);
  while (!shared_->done) {
    if (!shared_->done_cv.WaitUntil(&shared_->mu, deadline)) {
      return shared_->done;
    }
  }
  return true;
}

bool Thread::IsAlive() const {
  {
    MutexLock lock(&mu_);
    if (!started_) return false;
  }
  MutexLock lock(&shared_->mu);
  return !shared_->done;
}

bool Thread::started() const {
  MutexLock lock(&mu_);
  return started_;
}

Status Thread::exit_status() const {
  MutexLock lock(&shared_->mu);
  return shared_->exit_status;
}

int CurrentThreadNiceness() {
  // For the caller's own thread id getpriority does not fail, so -1 is a
  // niceness here, not an error.
  return getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
}

Status CheckNicenessIncrement(int increment) {
  if (increment < 0 || increment > kMaxNiceness) {
    return InvalidArgumentError("niceness increment must be in [0, " +
                                std::to_string(kMaxNiceness) + "], got " +
                                std::to_string(increment));
  }
  return OkStatus();
}

Status AddCurrentThreadNiceness(int increment) {
  INFLOW_RETURN_IF_ERROR(CheckNicenessIncrement(increment));
  if (increment == 0) return OkStatus();
  const int target =
      std::min(CurrentThreadNiceness() + increment, kMaxNiceness);
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), target) != 0) {
    return InternalError("setpriority(" + std::to_string(target) +
                         ") of thread " + std::to_string(gettid()) +
                         " failed: " + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace inflow
