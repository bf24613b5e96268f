// Copyright 2026 The inflow Authors.
//
// BindThreads: the native objects under inflow.train.Coordinator,
// QueueRunner and the threads start_queue_runners returns, the enqueue ops
// that run Python callables on inflow threads, and the queue runner
// collections of inflow.Graph objects (the first default graph's is
// QueueRunnerCollection::Default(), shared with C++).
// python/inflow/train/_coordination.py gives them TF's Python API.
//
// Python exceptions cross C++ as Status values: an exception a callable
// raises becomes a Status (its OpError code, else UNKNOWN) whose message
// _coordination._register_exception returns and remembers, so that
// Coordinator.join() can re-raise the original object, traceback and all.

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"
#include "inflow/threads/thread.h"

#include "bindings.h"
#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"
#include "py_threads.h"

namespace inflow::py {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSlice = std::chrono::milliseconds(50);

// A strong reference to a Python object that any thread may drop: with the
// GIL held it is released at once, otherwise it is queued and released by
// a pending call on the main thread (an inflow thread never waits for the
// GIL just to drop a reference, so it cannot deadlock with a Python thread
// waiting for an inflow lock). At exit the reference is leaked.
class PyRef {
 public:
  explicit PyRef(nb::handle h) : obj_(h.inc_ref().ptr()) {}
  ~PyRef() { Drop(obj_); }
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  nb::handle get() const { return nb::handle(obj_); }

 private:
  static void Drop(PyObject* obj) {
    if (PythonIsExiting()) return;
    if (PyGILState_Check()) {
      Py_DECREF(obj);
      return;
    }
    bool schedule;
    {
      std::lock_guard<std::mutex> lock(DropMutex());
      DropList().push_back(obj);
      schedule = !Scheduled();
      Scheduled() = true;
    }
    if (schedule && Py_AddPendingCall(&DrainDrops, nullptr) != 0) {
      // The pending-call queue is full: the next Drop schedules again.
      std::lock_guard<std::mutex> lock(DropMutex());
      Scheduled() = false;
    }
  }
  static int DrainDrops(void*) {
    std::vector<PyObject*> drops;
    {
      std::lock_guard<std::mutex> lock(DropMutex());
      drops.swap(DropList());
      Scheduled() = false;
    }
    for (PyObject* o : drops) Py_DECREF(o);
    return 0;
  }
  static std::mutex& DropMutex() {
    static std::mutex* mu = new std::mutex();
    return *mu;
  }
  static bool& Scheduled() {
    static bool scheduled = false;
    return scheduled;
  }
  static std::vector<PyObject*>& DropList() {
    static auto* list = new std::vector<PyObject*>();
    return *list;
  }

  PyObject* const obj_;
};

// The exception object of `e` (GIL held), with its traceback on it. Before
// Python 3.12 an exception set from C (next()'s StopIteration, a dict's
// KeyError, int()'s ValueError) may still be a type and a bare value, or no
// value at all, as nanobind fetched it: it is normalized first.
nb::object ExceptionObject(nb::python_error& e) {
#if PY_VERSION_HEX < 0x030C0000
  PyObject* type = e.type().inc_ref().ptr();
  PyObject* value = e.value().ptr();
  Py_XINCREF(value);
  PyObject* tb = e.traceback().release().ptr();
  PyErr_NormalizeException(&type, &value, &tb);
  nb::object exc = nb::steal(value);
  if (tb != nullptr) PyException_SetTraceback(exc.ptr(), tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  return exc;
#else
  return nb::borrow(e.value());
#endif
}

// The Status for the Python exception `e` (GIL held): its OpError code or
// UNKNOWN, and the message _coordination._register_exception gives it.
Status StatusFromPythonError(nb::python_error& e) {
  // The object itself (traceback and all) is what join() re-raises.
  nb::object exc = ExceptionObject(e);
  nb::handle value = exc;
  StatusCode code = StatusCode::kUnknown;
  nb::handle op_error = ErrorClass(StatusCode::kUnknown).attr("__base__");
  if (PyObject_IsInstance(value.ptr(), op_error.ptr()) == 1) {
    try {
      int c = nb::cast<int>(value.attr("error_code"));
      if (c > 0 && c < kNumStatusCodes) code = static_cast<StatusCode>(c);
    } catch (const nb::python_error&) {
    } catch (const nb::cast_error&) {
    }
  }
  std::string message;
  try {
    message =
        nb::cast<std::string>(nb::module_::import_("inflow.train._coordination")
                                  .attr("_register_exception")(value));
  } catch (const nb::python_error& inner) {
    message = std::string("Python exception: ") + e.what();
  }
  return Status(code, message);
}

// An enqueue op that calls a Python callable (with the GIL taken for the
// call and the conversion only) and enqueues what it returns; None:
// nothing (the callable enqueued by itself, as a TF enqueue op does).
QueueOp MakePythonEnqueueOp(std::shared_ptr<PyRef> fn,
                            std::shared_ptr<QueueInterface> queue, bool many) {
  return [fn = std::move(fn), queue = std::move(queue),
          many](const CallOptions& options) -> Status {
    Tuple element;
    bool enqueue = false;
    {
      PyGILState_STATE state;
      if (!AcquireGil(&state)) return CancelledError("Python is exiting");
      Status status;
      try {
        nb::object result = fn->get()();
        if (!result.is_none()) {
          enqueue = true;
          const auto& names = queue->component_names();
          if (PyDict_Check(result.ptr()) && !names.empty()) {
            nb::list ordered;
            for (const std::string& n : names) {
              if (!nb::bool_(result.attr("__contains__")(n))) {
                throw nb::value_error(
                    ("the element has no component named '" + n + "'").c_str());
              }
              ordered.append(result[n.c_str()]);
            }
            result = ordered;
          }
          element = TupleFromPython(result, queue->component_dtypes());
        }
      } catch (nb::python_error& e) {
        status = StatusFromPythonError(e);
      } catch (const std::exception& e) {
        status = UnknownError(e.what());
      }
      ReleaseGil(state);
      if (!status.ok()) return status;
    }
    if (!enqueue) return OkStatus();
    ScopedBlockedTimer blocked;
    return many ? queue->EnqueueMany(std::move(element), options)
                : queue->Enqueue(std::move(element), options);
  };
}

// An op that calls a Python callable for its effect (close_op, cancel_op).
QueueOp MakePythonCallOp(std::shared_ptr<PyRef> fn) {
  return [fn = std::move(fn)](const CallOptions&) -> Status {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) return CancelledError("Python is exiting");
    Status status;
    try {
      fn->get()();
    } catch (nb::python_error& e) {
      status = StatusFromPythonError(e);
    } catch (const std::exception& e) {
      status = UnknownError(e.what());
    }
    ReleaseGil(state);
    return status;
  };
}

QueueOp OpFromPython(nb::handle op, const std::shared_ptr<QueueInterface>& q,
                     bool many, bool enqueue) {
  if (nb::isinstance<CppQueueOp>(op)) return nb::cast<CppQueueOp&>(op).op;
  if (!PyCallable_Check(op.ptr())) {
    throw nb::type_error(
        ("a queue runner op is a Python callable or a C++ op, not " +
         nb::cast<std::string>(nb::repr(op)))
            .c_str());
  }
  auto ref = std::make_shared<PyRef>(op);
  return enqueue ? MakePythonEnqueueOp(std::move(ref), q, many)
                 : MakePythonCallOp(std::move(ref));
}

nb::object StatusToPython(const Status& s) {
  if (s.ok()) return nb::none();
  return nb::make_tuple(static_cast<int>(s.code()), std::string(s.message()));
}

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

struct NativeRunner {
  std::shared_ptr<QueueRunner> runner;
};

struct NativeCollection {
  std::shared_ptr<QueueRunnerCollection> collection;
};

nb::list WrapThreads(const std::vector<std::shared_ptr<Thread>>& threads,
                     bool daemon) {
  nb::list out;
  for (const auto& t : threads) out.append(nb::cast(NativeThread{t, daemon}));
  return out;
}

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

std::shared_ptr<QueueRunner> QueueRunnerFromPython(nb::handle value) {
  nb::handle native = value;
  if (!nb::isinstance<NativeRunner>(native) && nb::hasattr(value, "_native")) {
    native = value.attr("_native");
  }
  if (!nb::isinstance<NativeRunner>(native)) {
    throw nb::type_error(("expected an inflow.train.QueueRunner, got " +
                          nb::cast<std::string>(nb::repr(value.type())))
                             .c_str());
  }
  return nb::cast<NativeRunner&>(native).runner;
}

nb::object QueueRunnerToPython(std::shared_ptr<QueueRunner> runner) {
  nb::object native = nb::cast(NativeRunner{std::move(runner)});
  return nb::module_::import_("inflow.train._coordination")
      .attr("QueueRunner")
      .attr("_from_native")(native);
}

QueueRunnerCollection* QueueRunnerCollectionFromPython(nb::handle value) {
  if (value.is_none()) return &QueueRunnerCollection::Default();
  if (!nb::isinstance<NativeCollection>(value)) {
    throw nb::type_error(("expected an inflow queue runner collection, got " +
                          nb::cast<std::string>(nb::repr(value.type())))
                             .c_str());
  }
  return nb::cast<NativeCollection&>(value).collection.get();
}

nb::list ThreadsToPython(const std::vector<std::shared_ptr<Thread>>& threads,
                         bool daemon) {
  return WrapThreads(threads, daemon);
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

  nb::class_<NativeRunner>(m, "_QueueRunner")
      .def_static(
          "create",
          [](nb::handle queue, nb::handle enqueue_ops, nb::handle close_op,
             nb::handle cancel_op, std::vector<int> closed_codes,
             const std::string& name, bool many) {
            std::shared_ptr<QueueInterface> q = QueueFromPython(queue);
            std::vector<QueueOp> ops;
            for (nb::handle op : enqueue_ops) {
              ops.push_back(OpFromPython(op, q, many, /*enqueue=*/true));
            }
            QueueRunnerOptions options;
            if (!close_op.is_none()) {
              options.close_op = OpFromPython(close_op, q, false, false);
            }
            if (!cancel_op.is_none()) {
              options.cancel_op = OpFromPython(cancel_op, q, false, false);
            }
            options.queue_closed_codes.clear();
            for (int c : closed_codes) {
              options.queue_closed_codes.push_back(static_cast<StatusCode>(c));
            }
            options.name = name;
            return NativeRunner{ValueOrThrow(QueueRunner::Create(
                std::move(q), std::move(ops), std::move(options)))};
          },
          nb::arg("queue"), nb::arg("enqueue_ops"), nb::arg("close_op").none(),
          nb::arg("cancel_op").none(), nb::arg("queue_closed_codes"),
          nb::arg("name"), nb::arg("many"))
      .def(
          "create_threads",
          [](NativeRunner& r, nb::handle coord, bool start,
             const std::string& session, bool daemon) {
            Coordinator* c = CoordinatorFromPython(coord);
            std::vector<std::shared_ptr<Thread>> threads;
            {
              nb::gil_scoped_release release;
              threads = r.runner->CreateThreads(c, start, session);
            }
            return WrapThreads(threads, daemon);
          },
          nb::arg("coord").none(), nb::arg("start"), nb::arg("session"),
          nb::arg("daemon"))
      .def("exceptions_raised",
           [](NativeRunner& r) {
             std::vector<Status> errors;
             {
               nb::gil_scoped_release release;
               errors = r.runner->exceptions_raised();
             }
             nb::list out;
             for (const Status& s : errors) out.append(StatusToPython(s));
             return out;
           })
      .def_prop_ro("name", [](NativeRunner& r) { return r.runner->name(); })
      .def_prop_ro("num_enqueue_ops",
                   [](NativeRunner& r) { return r.runner->num_enqueue_ops(); })
      .def_prop_ro(
          "queue",
          [](NativeRunner& r) { return QueueToPython(r.runner->queue()); })
      .def("_same", [](const NativeRunner& a,
                       const NativeRunner& b) { return a.runner == b.runner; })
      .def_prop_ro("_key", [](const NativeRunner& r) {
        return reinterpret_cast<uintptr_t>(r.runner.get());
      });

  nb::class_<NativeCollection>(
      m, "_QueueRunnerCollection",
      "The queue runners of one inflow.Graph, by collection name; default() "
      "is C++'s QueueRunnerCollection::Default().")
      .def("__init__",
           [](NativeCollection* self) {
             new (self)
                 NativeCollection{std::make_shared<QueueRunnerCollection>()};
           })
      .def_static(
          "default",
          [] {
            // Not owned: the process-wide collection lives forever.
            return NativeCollection{std::shared_ptr<QueueRunnerCollection>(
                &QueueRunnerCollection::Default(),
                [](QueueRunnerCollection*) {})};
          })
      .def_prop_ro("is_default",
                   [](const NativeCollection& c) {
                     return c.collection.get() ==
                            &QueueRunnerCollection::Default();
                   })
      .def(
          "add",
          [](NativeCollection& c, const NativeRunner& r,
             const std::string& collection) {
            nb::gil_scoped_release release;
            c.collection->Add(r.runner, collection);
          },
          nb::arg("runner"), nb::arg("collection"))
      .def(
          "get",
          [](NativeCollection& c, const std::string& collection) {
            std::vector<std::shared_ptr<QueueRunner>> runners;
            {
              nb::gil_scoped_release release;
              runners = c.collection->Get(collection);
            }
            nb::list out;
            for (auto& r : runners) out.append(nb::cast(NativeRunner{r}));
            return out;
          },
          nb::arg("collection"))
      .def(
          "clear",
          [](NativeCollection& c, const std::string& collection) {
            nb::gil_scoped_release release;
            c.collection->Clear(collection);
          },
          nb::arg("collection"))
      .def(
          "start",
          [](NativeCollection& c, nb::handle coord, bool start,
             const std::string& collection, bool daemon) {
            Coordinator* co = CoordinatorFromPython(coord);
            std::vector<std::shared_ptr<Thread>> threads;
            {
              nb::gil_scoped_release release;
              threads = c.collection->Start(co, start, collection);
            }
            return WrapThreads(threads, daemon);
          },
          nb::arg("coord").none(), nb::arg("start"), nb::arg("collection"),
          nb::arg("daemon"));
}

}  // namespace inflow::py
