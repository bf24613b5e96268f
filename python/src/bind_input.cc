// Copyright 2026 The inflow Authors.
//
// What python/inflow/train/_input.py gives TF's signatures: the readers
// (reader.read makes read steps) and the enqueue op of a queue runner over
// nodes, the input producers, and the batch family.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/input/batching.h"
#include "inflow/input/producers.h"
#include "inflow/input/readers.h"
#include "inflow/io/env.h"
#include "inflow/queue/queue.h"

#include "bindings.h"
#include "deferred_steps.h"
#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"
#include "py_threads.h"

namespace inflow::py {

namespace {

// A reader as Python holds it; its steps copy `reader`.
struct PyReader {
  template <typename R>
  explicit PyReader(R r) : reader(std::move(r)) {}
  std::shared_ptr<ReaderBase> reader;
};

nb::object ProducerQueue(Producer p) {
  return QueueToPython(std::move(p.queue), QueueKind::kFIFO);
}

ProducerOptions ProducerOptionsFrom(std::optional<int64_t> num_epochs,
                                    bool shuffle, std::optional<int64_t> seed,
                                    int64_t capacity,
                                    std::optional<std::string> shared_name,
                                    std::optional<std::string> name,
                                    std::optional<int64_t> graph_seed,
                                    nb::handle collection) {
  ProducerOptions o;
  o.num_epochs = num_epochs;
  o.shuffle = shuffle;
  o.seed = seed;
  o.graph_seed = graph_seed;
  o.collection = QueueRunnerCollectionFromPython(collection);
  o.capacity = capacity;
  o.shared_name = shared_name.value_or("");
  o.name = name.value_or("");
  return o;
}

// The consumer's side of a batching call, with the GIL released while
// it waits.
struct PyBatcher {
  std::shared_ptr<Batcher> batcher;
  QueueKind kind = QueueKind::kFIFO;

  nb::list Next(nb::handle timeout) {
    Result<Tuple> batch = CallBlocking(
        timeout, [&](const CallOptions& o) { return batcher->Next(o); });
    return TupleToPython(ValueOrThrow(std::move(batch)));
  }
};

// One batching call: kind "batch" or "shuffle_batch", join when several
// inputs; keep: none, or one bool node per input.
std::shared_ptr<PyBatcher> MakeBatcherFromPython(
    const std::string& kind, std::vector<std::vector<Node>> inputs,
    std::vector<std::string> names, std::optional<std::vector<Node>> keep,
    bool join, int64_t batch_size, int num_threads, int64_t capacity,
    bool enqueue_many, nb::handle shapes, bool dynamic_pad,
    bool allow_smaller_final_batch, std::optional<std::string> shared_name,
    std::optional<std::string> name, int64_t min_after_dequeue,
    std::optional<int64_t> seed, std::optional<int64_t> graph_seed,
    nb::handle collection, std::vector<bool> sparse) {
  if (keep && keep->size() != inputs.size()) {
    ThrowStatus(InvalidArgumentError("keep_input: one per input"));
  }
  std::vector<BatchInput> ins;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ins.push_back(MakeBatchInput(
        std::move(inputs[i]),
        keep ? std::optional<Node>((*keep)[i]) : std::nullopt, names, sparse));
  }
  ShuffleBatchOptions o;
  o.batch_size = batch_size;
  o.num_threads = num_threads;
  o.capacity = capacity;
  o.enqueue_many = enqueue_many;
  if (!shapes.is_none()) {
    for (nb::handle s : shapes) o.shapes.push_back(PartialShapeFromPython(s));
  }
  o.dynamic_pad = dynamic_pad;
  o.allow_smaller_final_batch = allow_smaller_final_batch;
  o.shared_name = shared_name.value_or("");
  o.name = name.value_or("");
  o.min_after_dequeue = min_after_dequeue;
  o.seed = seed;
  o.graph_seed = graph_seed;
  o.collection = QueueRunnerCollectionFromPython(collection);
  const bool shuffle = kind == "shuffle_batch";
  Result<std::shared_ptr<Batcher>> b =
      [&]() -> Result<std::shared_ptr<Batcher>> {
    if (batch_size <= 0) {
      return InvalidArgumentError("batch_size must be > 0, got " +
                                  std::to_string(batch_size));
    }
    nb::gil_scoped_release release;
    if (keep) {
      if (shuffle) {
        return join ? MaybeShuffleBatchJoin(std::move(ins), KeepFromThread, o)
                    : MaybeShuffleBatch(std::move(ins[0]), KeepFromThread, o);
      }
      return join ? MaybeBatchJoin(std::move(ins), KeepFromThread, o)
                  : MaybeBatch(std::move(ins[0]), KeepFromThread, o);
    }
    if (shuffle) {
      return join ? ShuffleBatchJoin(std::move(ins), o)
                  : ShuffleBatch(std::move(ins[0]), o);
    }
    return join ? BatchJoin(std::move(ins), o) : Batch(std::move(ins[0]), o);
  }();
  return std::make_shared<PyBatcher>(PyBatcher{
      ValueOrThrow(std::move(b)), shuffle       ? QueueKind::kRandomShuffle
                                  : dynamic_pad ? QueueKind::kPaddingFIFO
                                                : QueueKind::kFIFO});
}

}  // namespace

void BindReaders(nb::module_& m) {
  m.def(
      "_enqueue_op",
      [](nb::handle q, std::vector<Node> nodes, bool many) {
        std::shared_ptr<QueueInterface> queue = QueueFromPython(q);
        if (nodes.size() != static_cast<size_t>(queue->num_components())) {
          ThrowStatus(InvalidArgumentError(
              "enqueue_op: " + std::to_string(nodes.size()) +
              " values for a queue of " +
              std::to_string(queue->num_components()) + " components"));
        }
        std::string description = "enqueue";
        for (const Node& n : nodes) description += " " + n.step->name();
        return CppQueueOp{
            MakeEnqueueOp(
                queue,
                [nodes = std::move(nodes)](const CallOptions& options) {
                  return EvalNodes(nodes, options);
                },
                many),
            std::move(description)};
      },
      nb::arg("queue"), nb::arg("nodes"), nb::arg("many"));

  // Readers: the Python object holds the reader; the steps share it
  // without referencing the Python object.
  nb::class_<PyReader>(m, "_Reader")
      .def(
          "read",
          [](const PyReader& self, nb::handle queue) {
            return ReadNodes(self.reader, QueueFromPython(queue), 0);
          },
          nb::arg("queue"))
      .def(
          "read_up_to",
          [](const PyReader& self, nb::handle queue, int64_t n) {
            if (n < 1) {
              ThrowStatus(InvalidArgumentError(
                  "read_up_to: num_records must be >= 1, got " +
                  std::to_string(n)));
            }
            return ReadNodes(self.reader, QueueFromPython(queue), n);
          },
          nb::arg("queue"), nb::arg("num_records"))
      .def("num_records_produced",
           [](PyReader& r) {
             nb::gil_scoped_release release;
             return r.reader->NumRecordsProduced();
           })
      .def("num_work_units_completed",
           [](PyReader& r) {
             nb::gil_scoped_release release;
             return r.reader->NumWorkUnitsCompleted();
           })
      .def("reset", [](PyReader& r) {
        Status s = [&] {
          nb::gil_scoped_release release;
          return r.reader->Reset();
        }();
        ThrowIfError(s);
      });

  m.def(
      "_tfrecord_reader",
      [](const std::string& compression) {
        return PyReader(
            ValueOrThrow(NewTFRecordReader(Env::Default(), compression)));
      },
      nb::arg("compression_type"));
  m.def(
      "_text_line_reader",
      [](int64_t skip) {
        return PyReader(ValueOrThrow(NewTextLineReader(Env::Default(), skip)));
      },
      nb::arg("skip_header_lines"));
  m.def(
      "_fixed_length_record_reader",
      [](int64_t record_bytes, int64_t header_bytes, int64_t footer_bytes,
         int64_t hop_bytes, const std::string& encoding) {
        FixedLengthRecordOptions o;
        o.record_bytes = record_bytes;
        o.header_bytes = header_bytes;
        o.footer_bytes = footer_bytes;
        o.hop_bytes = hop_bytes;
        o.encoding = encoding;
        return PyReader(
            ValueOrThrow(NewFixedLengthRecordReader(Env::Default(), o)));
      },
      nb::arg("record_bytes"), nb::arg("header_bytes"), nb::arg("footer_bytes"),
      nb::arg("hop_bytes"), nb::arg("encoding"));
  m.def("_whole_file_reader",
        [] { return PyReader(NewWholeFileReader(Env::Default())); });
}

// Producers: each returns its queue (the runner is in `collection`, the
// graph's, started by start_queue_runners). `graph_seed` and `seed` are
// the pair Python's get_seed gave.
void BindProducers(nb::module_& m) {
  m.def(
      "_string_input_producer",
      [](std::vector<std::string> strings, std::optional<int64_t> num_epochs,
         bool shuffle, std::optional<int64_t> seed, int64_t capacity,
         std::optional<std::string> shared_name,
         std::optional<std::string> name, std::optional<int64_t> graph_seed,
         nb::handle collection) {
        return ProducerQueue(ValueOrThrow(StringInputProducer(
            std::move(strings),
            ProducerOptionsFrom(num_epochs, shuffle, seed, capacity,
                                shared_name, name, graph_seed, collection))));
      },
      nb::arg("strings"), nb::arg("num_epochs").none(), nb::arg("shuffle"),
      nb::arg("seed").none(), nb::arg("capacity"),
      nb::arg("shared_name").none(), nb::arg("name").none(),
      nb::arg("graph_seed").none(), nb::arg("collection").none());
  m.def(
      "_range_input_producer",
      [](int32_t limit, std::optional<int64_t> num_epochs, bool shuffle,
         std::optional<int64_t> seed, int64_t capacity,
         std::optional<std::string> shared_name,
         std::optional<std::string> name, std::optional<int64_t> graph_seed,
         nb::handle collection) {
        return ProducerQueue(ValueOrThrow(RangeInputProducer(
            limit,
            ProducerOptionsFrom(num_epochs, shuffle, seed, capacity,
                                shared_name, name, graph_seed, collection))));
      },
      nb::arg("limit"), nb::arg("num_epochs").none(), nb::arg("shuffle"),
      nb::arg("seed").none(), nb::arg("capacity"),
      nb::arg("shared_name").none(), nb::arg("name").none(),
      nb::arg("graph_seed").none(), nb::arg("collection").none());
  m.def(
      "_input_producer",
      [](nb::handle input, nb::handle element_shape,
         std::optional<int64_t> num_epochs, bool shuffle,
         std::optional<int64_t> seed, int64_t capacity,
         std::optional<std::string> shared_name,
         std::optional<std::string> name, std::optional<int64_t> graph_seed,
         nb::handle collection) {
        Tensor t = TensorFromPython(input);
        return ProducerQueue(ValueOrThrow(InputProducer(
            std::move(t), PartialShapeFromPython(element_shape),
            ProducerOptionsFrom(num_epochs, shuffle, seed, capacity,
                                shared_name, name, graph_seed, collection))));
      },
      nb::arg("input"), nb::arg("element_shape").none(),
      nb::arg("num_epochs").none(), nb::arg("shuffle"), nb::arg("seed").none(),
      nb::arg("capacity"), nb::arg("shared_name").none(),
      nb::arg("name").none(), nb::arg("graph_seed").none(),
      nb::arg("collection").none());
  m.def(
      "_slice_input_producer",
      [](nb::handle tensors, std::optional<int64_t> num_epochs, bool shuffle,
         std::optional<int64_t> seed, int64_t capacity,
         std::optional<std::string> shared_name,
         std::optional<std::string> name, std::optional<int64_t> graph_seed,
         nb::handle collection) {
        SliceProducer p = ValueOrThrow(SliceInputProducer(
            TupleFromPython(tensors),
            ProducerOptionsFrom(num_epochs, shuffle, seed, capacity,
                                shared_name, name, graph_seed, collection)));
        return FunctionNodes("slice_input_producer", std::move(p.step),
                             std::move(p.dtypes), std::move(p.shapes));
      },
      nb::arg("tensors"), nb::arg("num_epochs").none(), nb::arg("shuffle"),
      nb::arg("seed").none(), nb::arg("capacity"),
      nb::arg("shared_name").none(), nb::arg("name").none(),
      nb::arg("graph_seed").none(), nb::arg("collection").none());
  m.def(
      "_limit_epochs",
      [](nb::handle tensor, std::optional<int64_t> num_epochs) {
        Tuple value{TensorFromPython(tensor)};
        const DType dtype = value[0].dtype();
        const PartialShape shape = value[0].shape();
        std::shared_ptr<EpochLimit> limit =
            ValueOrThrow(EpochLimit::Create(std::move(value), num_epochs));
        return FunctionNodes(
            "limit_epochs",
            [limit](const CallOptions&) { return limit->Next(); },
            std::vector<DType>{dtype}, std::vector<PartialShape>{shape})[0];
      },
      nb::arg("tensor"), nb::arg("num_epochs").none());
}

void BindBatching(nb::module_& m) {
  nb::class_<PyBatcher>(m, "_Batcher")
      .def("next", &PyBatcher::Next, nb::arg("timeout").none() = nb::none())
      .def_prop_ro("queue",
                   [](const PyBatcher& b) {
                     return QueueToPython(b.batcher->queue(), b.kind);
                   })
      .def_prop_ro("output_shapes",
                   [](const PyBatcher& b) {
                     nb::list out;
                     for (const PartialShape& s : b.batcher->output_shapes()) {
                       out.append(PartialShapeToPython(s));
                     }
                     return out;
                   })
      .def_prop_ro("sparse",
                   [](const PyBatcher& b) { return b.batcher->sparse(); })
      .def_prop_ro("fill_metric_tag", [](const PyBatcher& b) {
        return b.batcher->fill_metric_tag();
      });
  m.def("_batch", &MakeBatcherFromPython, nb::arg("kind"), nb::arg("inputs"),
        nb::arg("names"), nb::arg("keep").none(), nb::arg("join"),
        nb::arg("batch_size"), nb::arg("num_threads"), nb::arg("capacity"),
        nb::arg("enqueue_many"), nb::arg("shapes").none(),
        nb::arg("dynamic_pad"), nb::arg("allow_smaller_final_batch"),
        nb::arg("shared_name").none(), nb::arg("name").none(),
        nb::arg("min_after_dequeue"), nb::arg("seed").none(),
        nb::arg("graph_seed").none(), nb::arg("collection").none(),
        nb::arg("sparse") = std::vector<bool>());
}

}  // namespace inflow::py
