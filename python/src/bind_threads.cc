// Copyright 2026 The inflow Authors.
//
// The native objects under inflow.train.Coordinator and the threads
// start_queue_runners returns, and the C++ queue ops those threads run
// (python/inflow/train/_coordination.py gives them TF's Python API). Their
// waits (join, wait_for_stop) go in slices with the GIL released, so that
// Ctrl-C ends them on the main thread.

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/thread.h"

#include "bindings.h"
#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_threads.h"

namespace inflow::py {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSlice = std::chrono::milliseconds(50);

std::optional<std::chrono::nanoseconds> SecondsFromPython(nb::handle t) {
  std::optional<std::chrono::milliseconds> ms = TimeoutFromPython(t);
  if (!ms) return std::nullopt;
  return std::chrono::nanoseconds(*ms);
}

// Raises a pending signal's exception (main thread; GIL held).
void CheckSignals() {
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

struct NativeCoordinator {
  std::shared_ptr<Coordinator> coord;

  NativeCoordinator() = default;
  NativeCoordinator(NativeCoordinator&&) = default;
  NativeCoordinator& operator=(NativeCoordinator&&) = default;
  // The Coordinator's destructor stops and joins its threads, whose
  // Python callables need the GIL: drop it without.
  ~NativeCoordinator() {
    if (coord == nullptr) return;
    if (PyGILState_Check() && !PythonIsExiting()) {
      nb::gil_scoped_release release;
      coord.reset();
    } else {
      coord.reset();
    }
  }
};

struct NativeThread {
  std::shared_ptr<Thread> thread;
  bool daemon = true;
};

std::vector<std::shared_ptr<Thread>> ThreadsFromPython(nb::handle threads) {
  std::vector<std::shared_ptr<Thread>> out;
  if (threads.is_none()) return out;
  for (nb::handle t : threads) {
    out.push_back(nb::cast<const NativeThread&>(t).thread);
  }
  return out;
}

// Waits for `done` in slices with the GIL released, checking for signals
// between slices on the main thread. Returns done()'s last answer.
template <typename Wait>
bool SlicedWait(std::optional<std::chrono::nanoseconds> timeout, Wait wait) {
  const bool main = OnMainThread();
  const Clock::time_point deadline =
      timeout ? Clock::now() + *timeout : Clock::time_point::max();
  for (;;) {
    Clock::time_point slice_end =
        main ? std::min(deadline, Clock::now() + kSlice) : deadline;
    bool done;
    {
      nb::gil_scoped_release release;
      done = wait(slice_end);
    }
    if (done) return true;
    if (Clock::now() >= deadline) return false;
    CheckSignals();
  }
}

}  // namespace

Coordinator* CoordinatorFromPython(nb::handle value) {
  if (value.is_none()) return nullptr;
  nb::handle native = value;
  if (!nb::isinstance<NativeCoordinator>(native) &&
      nb::hasattr(value, "_native")) {
    native = value.attr("_native");
  }
  if (!nb::isinstance<NativeCoordinator>(native)) {
    throw nb::type_error(("expected an inflow.train.Coordinator, got " +
                          nb::cast<std::string>(nb::repr(value.type())))
                             .c_str());
  }
  return nb::cast<NativeCoordinator&>(native).coord.get();
}

nb::list ThreadsToPython(const std::vector<std::shared_ptr<Thread>>& threads,
                         bool daemon) {
  nb::list out;
  for (const auto& t : threads) out.append(nb::cast(NativeThread{t, daemon}));
  return out;
}

void BindThreads(nb::module_& m) {
  nb::class_<CppQueueOp>(m, "_CppQueueOp",
                         "An enqueue op written in C++ (read+parse, ...) "
                         "for a QueueRunner; runs without the GIL.")
      .def_ro("description", &CppQueueOp::description)
      .def("__repr__", [](const CppQueueOp& op) {
        return "<inflow C++ queue op " + op.description + ">";
      });

  nb::class_<NativeThread>(m, "_Thread",
                           "An inflow thread (a queue runner's): name, "
                           "is_alive(), join(timeout=None).")
      .def_prop_ro("name",
                   [](const NativeThread& t) { return t.thread->name(); })
      .def_rw("daemon", &NativeThread::daemon)
      .def(
          "is_alive", [](const NativeThread& t) { return t.thread->IsAlive(); },
          nb::call_guard<nb::gil_scoped_release>(),
          "True while the thread runs.")
      .def_prop_ro("started",
                   [](const NativeThread& t) { return t.thread->started(); })
      .def(
          "start",
          [](const NativeThread& t) {
            Status s;
            {
              nb::gil_scoped_release release;
              s = t.thread->Start();
            }
            if (!s.ok()) {
              throw std::runtime_error("threads can only be started once");
            }
          },
          "Starts the thread (RuntimeError when started already).")
      .def(
          "join",
          [](const NativeThread& t, nb::handle timeout) {
            std::shared_ptr<Thread> thread = t.thread;
            SlicedWait(SecondsFromPython(timeout),
                       [&](Clock::time_point until) {
                         return thread->WaitUntil(until);
                       });
            if (!thread->IsAlive() && thread->started()) {
              nb::gil_scoped_release release;
              thread->Join();
            }
          },
          nb::arg("timeout").none() = nb::none(),
          "Waits until the thread ends, or `timeout` seconds.")
      .def_prop_ro("exit_status",
                   [](const NativeThread& t) {
                     return StatusToPython(t.thread->exit_status());
                   })
      .def("_same", [](const NativeThread& a,
                       const NativeThread& b) { return a.thread == b.thread; })
      .def("__hash__",
           [](const NativeThread& t) {
             return reinterpret_cast<uintptr_t>(t.thread.get());
           })
      .def("__eq__",
           [](const NativeThread& a, nb::handle b) {
             return nb::isinstance<NativeThread>(b) &&
                    nb::cast<const NativeThread&>(b).thread == a.thread;
           })
      .def("__repr__", [](const NativeThread& t) {
        return "<inflow thread " + t.thread->name() +
               (t.thread->IsAlive() ? " alive>" : ">");
      });
}

void BindCoordinator(nb::module_& m) {
  nb::class_<NativeCoordinator>(m, "_Coordinator")
      .def(
          "__init__",
          [](NativeCoordinator* self, std::vector<int> codes) {
            std::vector<StatusCode> clean;
            for (int c : codes) clean.push_back(static_cast<StatusCode>(c));
            new (self) NativeCoordinator();
            self->coord = std::make_shared<Coordinator>(std::move(clean));
          },
          nb::arg("clean_stop_codes"))
      .def(
          "request_stop", [](NativeCoordinator& c) { c.coord->RequestStop(); },
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "request_stop_status",
          [](NativeCoordinator& c, int code, const std::string& message) {
            Status s;
            {
              nb::gil_scoped_release release;
              s = c.coord->RequestStop(
                  Status(static_cast<StatusCode>(code), message));
            }
            return StatusToPython(s);
          },
          "RequestStop(Status(code, message)); the status back when the "
          "coordinator was joined (the caller raises it), else None.")
      .def("should_stop",
           [](NativeCoordinator& c) { return c.coord->ShouldStop(); })
      .def(
          "wait_for_stop",
          [](NativeCoordinator& c, nb::handle timeout) {
            std::shared_ptr<Coordinator> coord = c.coord;
            return SlicedWait(
                SecondsFromPython(timeout), [&](Clock::time_point until) {
                  auto left = until - Clock::now();
                  if (left < std::chrono::nanoseconds(0)) {
                    left = std::chrono::nanoseconds(0);
                  }
                  return coord->WaitForStop(
                      std::chrono::duration_cast<std::chrono::nanoseconds>(
                          left));
                });
          },
          nb::arg("timeout").none() = nb::none())
      .def(
          "clear_stop", [](NativeCoordinator& c) { c.coord->ClearStop(); },
          nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("joined",
                   [](NativeCoordinator& c) { return c.coord->joined(); })
      .def("recorded_error",
           [](NativeCoordinator& c) {
             Status s;
             {
               nb::gil_scoped_release release;
               s = c.coord->RecordedError();
             }
             return StatusToPython(s);
           })
      .def("register_thread",
           [](NativeCoordinator& c, const NativeThread& t) {
             nb::gil_scoped_release release;
             c.coord->RegisterThread(t.thread);
           })
      .def(
          "join",
          [](NativeCoordinator& c, nb::handle threads, double grace_secs,
             bool ignore_live_threads) {
            // The join runs on a helper thread so that Ctrl-C can end the
            // wait on the main thread; the helper owns what it uses.
            struct JoinState {
              std::shared_ptr<Coordinator> coord;
              std::vector<std::shared_ptr<Thread>> threads;
              std::chrono::nanoseconds grace;
              bool ignore;
              Mutex mu;
              CondVar cv;
              bool done INFLOW_GUARDED_BY(mu) = false;
              Status status;
            };
            auto state = std::make_shared<JoinState>();
            state->coord = c.coord;
            state->threads = ThreadsFromPython(threads);
            state->grace = std::chrono::nanoseconds(
                static_cast<int64_t>(std::max(0.0, grace_secs) * 1e9));
            state->ignore = ignore_live_threads;
            {
              nb::gil_scoped_release release;
              std::thread([state] {
                Status s = state->coord->Join(state->threads, state->grace,
                                              state->ignore);
                MutexLock lock(&state->mu);
                state->status = std::move(s);
                state->done = true;
                state->cv.SignalAll();
              }).detach();
            }
            SlicedWait(std::nullopt, [&](Clock::time_point until) {
              MutexLock lock(&state->mu);
              while (!state->done) {
                if (!state->cv.WaitUntil(&state->mu, until)) break;
              }
              return state->done;
            });
            MutexLock lock(&state->mu);
            return StatusToPython(state->status);
          },
          nb::arg("threads").none(), nb::arg("stop_grace_period_secs"),
          nb::arg("ignore_live_threads"),
          "Coordinator::Join: (code, message) of the recorded error or of "
          "live threads, None when clean.");
}

}  // namespace inflow::py
