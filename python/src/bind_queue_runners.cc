// Copyright 2026 The inflow Authors.
//
// The native objects under inflow.train.QueueRunner (with the enqueue ops
// that run Python callables on inflow threads) and the queue runner
// collections of inflow.Graph objects (the first default graph's is
// QueueRunnerCollection::Default(), shared with C++).
// python/inflow/train/_coordination.py and python/inflow/_graph.py give
// them TF's Python API.
//
// Python exceptions cross C++ as Status values: an exception a callable
// raises becomes a Status (its OpError code, else UNKNOWN) whose message
// _coordination._register_exception returns and remembers, so that
// Coordinator.join() can re-raise the original object, traceback and all.

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "inflow/queue/queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"
#include "inflow/threads/thread.h"

#include "bindings.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"
#include "py_threads.h"

namespace inflow::py {

namespace {

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
Status RegisteredStatus(nb::python_error& e) {
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
        status = RegisteredStatus(e);
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
      status = RegisteredStatus(e);
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

// The thread objects of the threads `create(coordinator of coord)` makes,
// called with the GIL released.
template <typename Create>
nb::list StartedThreads(nb::handle coord, bool daemon, Create create) {
  Coordinator* c = CoordinatorFromPython(coord);
  std::vector<std::shared_ptr<Thread>> threads;
  {
    nb::gil_scoped_release release;
    threads = create(c);
  }
  return ThreadsToPython(threads, daemon);
}

struct NativeRunner {
  std::shared_ptr<QueueRunner> runner;
};

struct NativeCollection {
  std::shared_ptr<QueueRunnerCollection> collection;
};

}  // namespace

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

void BindQueueRunner(nb::module_& m) {
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
            return StartedThreads(coord, daemon, [&](Coordinator* c) {
              return r.runner->CreateThreads(c, start, session);
            });
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
}

void BindQueueRunnerCollection(nb::module_& m) {
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
            return StartedThreads(coord, daemon, [&](Coordinator* co) {
              return c.collection->Start(co, start, collection);
            });
          },
          nb::arg("coord").none(), nb::arg("start"), nb::arg("collection"),
          nb::arg("daemon"));
}

}  // namespace inflow::py
