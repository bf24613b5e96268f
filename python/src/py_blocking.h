// Copyright 2026 The inflow Authors.
//
// Blocking inflow calls from Python: the timeout argument, and
// CallBlocking, which runs a call with the GIL released and turns Ctrl-C
// into a stop of that call. Called with the GIL held (py_interpreter.h's
// rules).

#ifndef INFLOW_PYTHON_SRC_PY_BLOCKING_H_
#define INFLOW_PYTHON_SRC_PY_BLOCKING_H_

#include <nanobind/nanobind.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

#include "inflow/core/call_options.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"

namespace inflow::py {

namespace nb = nanobind;

// The timeout of a blocking call from Python: `timeout` in seconds (None:
// none; <= 0: never block). ValueError for NaN, TypeError for a
// non-number.
std::optional<std::chrono::milliseconds> TimeoutFromPython(nb::handle timeout);

// CallOptions with TimeoutFromPython(timeout) and no stop token. It does
// not make a call interruptible by itself: use CallBlocking for that.
CallOptions MakeCallOptions(nb::handle timeout);

namespace internal {
// CallBlocking's engine; `attempt` returns the status of one call made
// with the options it is given.
void RunBlocking(std::optional<std::chrono::milliseconds> timeout,
                 std::stop_token stop,
                 const std::function<Status(const CallOptions&)>& attempt);
inline Status StatusOf(const Status& s) { return s; }
template <typename T>
Status StatusOf(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

// Runs the blocking inflow call `call(options)` (returning Status or
// Result<T>) with the GIL released, and returns what it returned. Called
// and returning with the GIL held; `call` runs without it and must not
// touch Python objects.
//
// Ctrl-C: on the main thread, SIGINT while the call blocks raises
// KeyboardInterrupt within 0.5 s: the call first runs with a zero timeout
// on the calling thread (no blocking, leaves the queue untouched when it
// cannot complete); when it would block, it runs once more on a helper
// thread with the full timeout and a stop token, while the calling thread
// checks for signals every 50 ms and fires the token on KeyboardInterrupt
// (the call then ends CANCELLED, as any stopped call, and the exception is
// raised). A call that completes anyway keeps its result and the interrupt
// is raised at Python's next check. So `call` may run twice: it must not
// consume its inputs on a failed attempt (pass copies of Tuples).
// Elsewhere (other threads, timeout <= 0) `call` runs once, here.
//
// `stop`, when it can fire, also releases the call (CANCELLED).
template <typename F>
auto CallBlocking(nb::handle timeout, F&& call, std::stop_token stop = {})
    -> std::invoke_result_t<F&, const CallOptions&> {
  using R = std::invoke_result_t<F&, const CallOptions&>;
  std::optional<R> result;
  internal::RunBlocking(TimeoutFromPython(timeout), std::move(stop),
                        [&](const CallOptions& options) {
                          result.reset();
                          result.emplace(call(options));
                          return internal::StatusOf(*result);
                        });
  return *std::move(result);
}

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_PY_BLOCKING_H_
