// Copyright 2026 The inflow Authors.

#include "py_blocking.h"

#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <thread>

#include "inflow/core/mutex.h"

#include "py_interpreter.h"

namespace inflow::py {

namespace {

// A helper thread pool for blocking calls made from the main thread: the
// calls run there while the main thread watches for signals. Threads are
// started on demand and never end (idle ones wait for the next call); the
// pool is leaked so that no destructor runs under them at exit. They never
// touch Python.
class BlockingPool {
 public:
  static BlockingPool& Get() {
    static BlockingPool* pool = new BlockingPool();
    return *pool;
  }

  void Submit(std::function<void()> job) INFLOW_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    jobs_.push_back(std::move(job));
    if (static_cast<int>(jobs_.size()) > idle_) {
      std::thread([this] { Run(); }).detach();
    } else {
      cv_.Signal();
    }
  }

 private:
  void Run() INFLOW_EXCLUDES(mu_) {
    mu_.lock();
    for (;;) {
      while (jobs_.empty()) {
        ++idle_;
        cv_.Wait(&mu_);
        --idle_;
      }
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      mu_.unlock();
      job();
      job = nullptr;
      mu_.lock();
    }
  }

  Mutex mu_;
  CondVar cv_;
  std::deque<std::function<void()>> jobs_ INFLOW_GUARDED_BY(mu_);
  int idle_ INFLOW_GUARDED_BY(mu_) = 0;
};

// One blocking call handed to the pool.
struct PendingCall {
  Mutex mu;
  CondVar done_cv;
  bool done INFLOW_GUARDED_BY(mu) = false;
  Status status;  // written before done is set
};

constexpr auto kSignalCheckInterval = std::chrono::milliseconds(50);

}  // namespace

std::optional<std::chrono::milliseconds> TimeoutFromPython(nb::handle timeout) {
  if (timeout.is_none()) return std::nullopt;
  if (!PyFloat_Check(timeout.ptr()) && !PyLong_Check(timeout.ptr()) &&
      !nb::hasattr(timeout, "__float__")) {
    throw nb::type_error("timeout must be a number of seconds or None");
  }
  const double seconds = nb::cast<double>(nb::float_(timeout));
  if (std::isnan(seconds)) throw nb::value_error("timeout is NaN");
  if (seconds <= 0) return std::chrono::milliseconds(0);
  // Beyond a century is forever.
  if (seconds > 3.15e9) return std::nullopt;
  const int64_t ms = static_cast<int64_t>(std::ceil(seconds * 1000.0));
  return std::chrono::milliseconds(ms);
}

CallOptions MakeCallOptions(nb::handle timeout) {
  CallOptions options;
  options.timeout = TimeoutFromPython(timeout);
  return options;
}

namespace internal {

void RunBlocking(std::optional<std::chrono::milliseconds> timeout,
                 std::stop_token stop,
                 const std::function<Status(const CallOptions&)>& attempt) {
  const bool never_blocks = timeout.has_value() && timeout->count() <= 0;
  if (never_blocks || !OnMainThread()) {
    nb::gil_scoped_release release;
    attempt(CallOptions{timeout, stop}).IgnoreError();
    return;
  }
  {
    nb::gil_scoped_release release;
    Status first = attempt(CallOptions{std::chrono::milliseconds(0), stop});
    if (!IsDeadlineExceeded(first)) return;
  }
  // The call would block: run it on a helper thread, watching for signals.
  std::stop_source interrupt;
  auto pending = std::make_shared<PendingCall>();
  bool raise = false;
  {
    nb::gil_scoped_release release;
    std::optional<std::stop_callback<std::function<void()>>> forward;
    if (stop.stop_possible()) {
      forward.emplace(stop, [&interrupt] { interrupt.request_stop(); });
    }
    auto wait_done =
        [&pending](std::optional<CondVar::Clock::time_point> deadline) {
          MutexLock lock(&pending->mu);
          while (!pending->done) {
            if (!deadline) {
              pending->done_cv.Wait(&pending->mu);
            } else if (!pending->done_cv.WaitUntil(&pending->mu, *deadline)) {
              break;
            }
          }
          return pending->done;
        };
    // `attempt` is borrowed by the helper: every path below waits for the
    // call's end before this function returns.
    CallOptions options{timeout, interrupt.get_token()};
    BlockingPool::Get().Submit([pending, &attempt, options] {
      Status s = attempt(options);
      MutexLock lock(&pending->mu);
      pending->status = std::move(s);
      pending->done = true;
      pending->done_cv.SignalAll();
    });
    while (!wait_done(CondVar::Clock::now() + kSignalCheckInterval)) {
      PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
      {
        nb::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() == 0) continue;
        PyErr_Fetch(&type, &value, &tb);
      }
      // A handler raised (KeyboardInterrupt): stop the call and wait for
      // its answer, which is prompt.
      interrupt.request_stop();
      wait_done(std::nullopt);
      nb::gil_scoped_acquire acquire;
      Status status;
      {
        MutexLock lock(&pending->mu);
        status = pending->status;
      }
      if (IsCancelled(status) && !stop.stop_requested()) {
        PyErr_Restore(type, value, tb);
        raise = true;
      } else {
        // The call completed (or `stop` ended it): keep its outcome and
        // let Python raise the interrupt at its next check.
        const bool keyboard =
            type != nullptr &&
            PyErr_GivenExceptionMatches(type, PyExc_KeyboardInterrupt);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        if (keyboard) PyErr_SetInterrupt();
      }
      break;
    }
  }
  if (raise) throw nb::python_error();
}

}  // namespace internal

}  // namespace inflow::py
