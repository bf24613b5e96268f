// Copyright 2026 The inflow Authors.
//
// BindQueues: _inflow._Queue, the native queue under inflow.FIFOQueue,
// PaddingFIFOQueue, RandomShuffleQueue and PriorityQueue (python/inflow/
// _queues.py gives them TF's constructors and element forms). Values are
// positional component lists here; names and dicts live in _queues.py.

#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/padding_fifo_queue.h"
#include "inflow/queue/priority_queue.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"
#include "inflow/queue/random_shuffle_queue.h"

#include "bindings.h"
#include "py_blocking.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

struct NativeQueue {
  std::shared_ptr<QueueInterface> queue;
  QueueKind kind;
};

std::optional<QueueKind> KindFromName(const std::string& name) {
  for (QueueKind k : {QueueKind::kFIFO, QueueKind::kPaddingFIFO,
                      QueueKind::kRandomShuffle, QueueKind::kPriority}) {
    if (QueueKindName(k) == name) return k;
  }
  return std::nullopt;
}

// Queue shapes go to Python as tuples (TF's TensorShape-like form).
nb::object ShapeToPython(const PartialShape& shape) {
  nb::object dims = PartialShapeToPython(shape);
  if (dims.is_none()) return dims;
  return nb::steal(PySequence_Tuple(dims.ptr()));
}

NativeQueue Create(const std::string& kind_name, int64_t capacity,
                   nb::handle dtypes, nb::handle shapes, nb::handle names,
                   const std::string& name, const std::string& shared_name,
                   int64_t min_after_dequeue, int64_t seed, int64_t seed2) {
  std::optional<QueueKind> kind = KindFromName(kind_name);
  if (!kind) throw nb::value_error(("unknown queue kind " + kind_name).c_str());
  QueueOptions options;
  options.capacity = capacity;
  for (nb::handle d : dtypes) options.dtypes.push_back(DTypeFromPython(d));
  if (!shapes.is_none()) {
    for (nb::handle s : shapes)
      options.shapes.push_back(PartialShapeFromPython(s));
  }
  if (!names.is_none()) {
    for (nb::handle n : names) {
      options.names.push_back(nb::cast<std::string>(n));
    }
  }
  options.name = name;
  options.shared_name = shared_name;
  options.min_after_dequeue = min_after_dequeue;
  options.seed = seed;
  options.seed2 = seed2;
  Result<std::shared_ptr<QueueInterface>> queue = [&] {
    nb::gil_scoped_release release;
    return CreateQueue(*kind, options);
  }();
  return NativeQueue{ValueOrThrow(std::move(queue)), *kind};
}

const QueueInterface& Q(const NativeQueue& q) { return *q.queue; }

}  // namespace

std::shared_ptr<QueueInterface> QueueFromPython(nb::handle value) {
  nb::handle native = value;
  if (!nb::isinstance<NativeQueue>(native) && nb::hasattr(value, "_queue")) {
    native = value.attr("_queue");
  }
  if (!nb::isinstance<NativeQueue>(native)) {
    throw nb::type_error(("expected an inflow queue, got " +
                          nb::cast<std::string>(nb::repr(value.type())))
                             .c_str());
  }
  return nb::cast<const NativeQueue&>(native).queue;
}

nb::object QueueToPython(std::shared_ptr<QueueInterface> queue,
                         QueueKind kind) {
  nb::object native = nb::cast(NativeQueue{std::move(queue), kind});
  return nb::module_::import_("inflow._queues").attr("_from_native")(native);
}

nb::object QueueToPython(std::shared_ptr<QueueInterface> queue) {
  QueueKind kind = QueueKind::kFIFO;
  if (dynamic_cast<PaddingFIFOQueue*>(queue.get()) != nullptr) {
    kind = QueueKind::kPaddingFIFO;
  } else if (dynamic_cast<RandomShuffleQueue*>(queue.get()) != nullptr) {
    kind = QueueKind::kRandomShuffle;
  } else if (dynamic_cast<PriorityQueue*>(queue.get()) != nullptr) {
    kind = QueueKind::kPriority;
  }
  return QueueToPython(std::move(queue), kind);
}

void BindQueues(nb::module_& m) {
  nb::class_<NativeQueue>(
      m, "_Queue",
      "A native inflow queue; inflow.FIFOQueue and the other kinds wrap "
      "one (their ._queue).")
      .def_static("create", &Create, nb::arg("kind"), nb::arg("capacity"),
                  nb::arg("dtypes"), nb::arg("shapes").none(),
                  nb::arg("names").none(), nb::arg("name"),
                  nb::arg("shared_name"), nb::arg("min_after_dequeue") = 0,
                  nb::arg("seed") = 0, nb::arg("seed2") = 0,
                  "Creates a queue; InvalidArgumentError for bad options.")
      .def(
          "enqueue",
          [](const NativeQueue& q, nb::handle components, nb::handle timeout) {
            Tuple element =
                TupleFromPython(components, q.queue->component_dtypes());
            QueueInterface* queue = q.queue.get();
            ThrowIfError(CallBlocking(timeout, [&](const CallOptions& o) {
              return queue->Enqueue(element, o);
            }));
          },
          nb::arg("components"), nb::arg("timeout").none() = nb::none())
      .def(
          "enqueue_many",
          [](const NativeQueue& q, nb::handle components, nb::handle timeout) {
            Tuple batch =
                TupleFromPython(components, q.queue->component_dtypes());
            QueueInterface* queue = q.queue.get();
            ThrowIfError(CallBlocking(timeout, [&](const CallOptions& o) {
              return queue->EnqueueMany(batch, o);
            }));
          },
          nb::arg("components"), nb::arg("timeout").none() = nb::none())
      .def(
          "dequeue",
          [](const NativeQueue& q, nb::handle timeout) {
            QueueInterface* queue = q.queue.get();
            return TupleToPython(
                ValueOrThrow(CallBlocking(timeout, [&](const CallOptions& o) {
                  return queue->Dequeue(o);
                })));
          },
          nb::arg("timeout").none() = nb::none())
      .def(
          "dequeue_many",
          [](const NativeQueue& q, int64_t n, nb::handle timeout) {
            QueueInterface* queue = q.queue.get();
            return TupleToPython(
                ValueOrThrow(CallBlocking(timeout, [&](const CallOptions& o) {
                  return queue->DequeueMany(n, o);
                })));
          },
          nb::arg("n"), nb::arg("timeout").none() = nb::none())
      .def(
          "dequeue_up_to",
          [](const NativeQueue& q, int64_t n, nb::handle timeout) {
            QueueInterface* queue = q.queue.get();
            return TupleToPython(
                ValueOrThrow(CallBlocking(timeout, [&](const CallOptions& o) {
                  return queue->DequeueUpTo(n, o);
                })));
          },
          nb::arg("n"), nb::arg("timeout").none() = nb::none())
      .def(
          "close",
          [](const NativeQueue& q, bool cancel, nb::handle timeout) {
            QueueInterface* queue = q.queue.get();
            ThrowIfError(CallBlocking(timeout, [&](const CallOptions& o) {
              return queue->Close(cancel, o);
            }));
          },
          nb::arg("cancel_pending_enqueues") = false,
          nb::arg("timeout").none() = nb::none())
      .def(
          "size", [](const NativeQueue& q) { return Q(q).Size(); },
          nb::call_guard<nb::gil_scoped_release>())
      .def(
          "is_closed", [](const NativeQueue& q) { return Q(q).IsClosed(); },
          nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("capacity",
                   [](const NativeQueue& q) { return Q(q).Capacity(); })
      .def_prop_ro("kind",
                   [](const NativeQueue& q) {
                     return std::string(QueueKindName(q.kind));
                   })
      .def_prop_ro("name", [](const NativeQueue& q) { return Q(q).name(); })
      .def_prop_ro("dtypes",
                   [](const NativeQueue& q) {
                     nb::list out;
                     for (DType d : Q(q).component_dtypes()) {
                       out.append(DTypeToNumpy(d));
                     }
                     return out;
                   })
      .def_prop_ro("shapes",
                   [](const NativeQueue& q) -> nb::object {
                     const auto& shapes = Q(q).component_shapes();
                     if (shapes.empty()) return nb::none();
                     nb::list out;
                     for (const PartialShape& s : shapes) {
                       out.append(ShapeToPython(s));
                     }
                     return out;
                   })
      .def_prop_ro("names",
                   [](const NativeQueue& q) -> nb::object {
                     const auto& names = Q(q).component_names();
                     if (names.empty()) return nb::none();
                     nb::list out;
                     for (const std::string& n : names) out.append(n);
                     return out;
                   })
      .def(
          "stats",
          [](const NativeQueue& q) {
            QueueStats s;
            {
              nb::gil_scoped_release release;
              s = Q(q).stats();
            }
            nb::dict d;
            d["enqueued"] = s.enqueued;
            d["dequeued"] = s.dequeued;
            d["enqueue_blocked_s"] = s.enqueue_blocked.count() / 1e9;
            d["dequeue_blocked_s"] = s.dequeue_blocked.count() / 1e9;
            return d;
          },
          "The queue's counters since creation: enqueued, dequeued, "
          "enqueue_blocked_s, dequeue_blocked_s.")
      .def("_same", [](const NativeQueue& a, const NativeQueue& b) {
        return a.queue == b.queue;
      });
}

}  // namespace inflow::py
