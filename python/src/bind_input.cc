// Copyright 2026 The inflow Authors.
//
// BindInput: the deferred steps' Python face (Node and the functions that
// make steps, deferred_steps.h), the producers, the readers, the Batcher
// and the Pipeline (python/inflow/train/_input.py and
// python/inflow/_pipeline.py give them TF's signatures).

#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "inflow/example/decode_raw.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/batching.h"
#include "inflow/input/pipeline.h"
#include "inflow/input/producers.h"
#include "inflow/input/readers.h"
#include "inflow/io/env.h"
#include "inflow/queue/queue.h"

#include "bindings.h"
#include "deferred_steps.h"
#include "example_specs.h"
#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"
#include "py_threads.h"
#include "tensor_ops.h"

namespace inflow::py {

namespace {

// one_hot's checks of what is known before it runs: the index dtype, the
// depth and the axis against a known rank (OneHotTensor checks them all
// again on the value).
void CheckOneHot(DType indices, const PartialShape& shape, int64_t depth,
                 int axis) {
  if (indices != DType::kUInt8 && indices != DType::kInt8 &&
      indices != DType::kInt32 && indices != DType::kInt64) {
    throw nb::type_error(("one_hot: indices must be uint8, int8, int32 or "
                          "int64, got " +
                          std::string(DTypeName(indices)))
                             .c_str());
  }
  if (depth < 0) {
    throw nb::value_error(
        ("one_hot: depth must be >= 0, got " + std::to_string(depth)).c_str());
  }
  if (axis < -1 || (shape.rank_known() && axis > shape.rank())) {
    throw nb::value_error(
        ("one_hot: axis must be -1 or in [0, " +
         (shape.rank_known() ? std::to_string(shape.rank()) : "rank") +
         "] for indices of shape " + shape.DebugString() + ", got " +
         std::to_string(axis))
            .c_str());
  }
}

std::vector<int64_t> DimsFromPython(nb::handle shape) {
  std::vector<int64_t> dims;
  for (nb::handle d : shape) {
    dims.push_back(d.is_none() ? -1 : nb::cast<int64_t>(d));
  }
  return dims;
}

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

// The Pipeline, owning its threads; Next() releases the GIL.
struct PyPipeline {
  // Stopping the threads may wait for a map_fn that needs the GIL.
  ~PyPipeline() {
    nb::gil_scoped_release release;
    pipeline.reset();
  }

  std::shared_ptr<Pipeline> pipeline;

  // The wait goes in slices of kSlice on the calling thread (a timed-out
  // Next loses nothing), with the signals checked between them: no hand-off
  // to CallBlocking's helper thread for each batch that has to wait.
  nb::list Next(nb::handle timeout) {
    constexpr std::chrono::milliseconds kSlice(50);
    const std::optional<std::chrono::milliseconds> total =
        TimeoutFromPython(timeout);
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      CallOptions options;
      options.timeout = kSlice;
      if (total) {
        const auto left =
            *total - std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - start);
        options.timeout =
            std::clamp(left, std::chrono::milliseconds(0), kSlice);
      }
      Result<Tuple> batch = [&] {
        nb::gil_scoped_release release;
        return pipeline->Next(options);
      }();
      if (batch.ok() ||
          batch.status().code() != StatusCode::kDeadlineExceeded) {
        return TupleToPython(ValueOrThrow(std::move(batch)));
      }
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      if (total && std::chrono::steady_clock::now() - start >= *total) {
        ThrowStatus(batch.status());
      }
    }
  }

  void Close() {
    Status s = [&] {
      nb::gil_scoped_release release;
      return pipeline->Close();
    }();
    // OUT_OF_RANGE is the clean end, not an error of Close.
    if (s.code() != StatusCode::kOutOfRange) ThrowIfError(s);
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

// Python map functions for the Pipeline: fn(dict of row arrays) -> dict
// (or list) of arrays with the declared signature.
MapFunction MakeMapFunction(nb::handle fn, std::vector<std::string> in_names,
                            std::vector<DType> dtypes,
                            std::vector<PartialShape> shapes,
                            std::vector<std::string> names) {
  MapFunction map;
  map.dtypes = dtypes;
  map.row_shapes = shapes;
  map.names = names;
  map.fn = [func = ShareObject(fn), in_names = std::move(in_names),
            dtypes = std::move(dtypes),
            names = std::move(names)](Tuple rows) -> Result<Tuple> {
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("map_fn: the Python interpreter is exiting");
    }
    Result<Tuple> out = [&]() -> Result<Tuple> {
      try {
        nb::dict arg;
        for (size_t i = 0; i < rows.size() && i < in_names.size(); ++i) {
          arg[in_names[i].c_str()] = TensorToNumpy(rows[i]);
        }
        nb::object result = (*func)(arg);
        Tuple out;
        for (size_t i = 0; i < dtypes.size(); ++i) {
          nb::object v = nb::isinstance<nb::dict>(result)
                             ? nb::object(result[names[i].c_str()])
                             : nb::object(result[i]);
          out.push_back(TensorFromPython(v, dtypes[i]));
        }
        return out;
      } catch (nb::python_error& e) {
        return StatusFromPythonError(e, "map_fn");
      } catch (const std::exception& e) {
        return UnknownError(std::string("map_fn: ") + e.what());
      }
    }();
    ReleaseGil(state);
    return out;
  };
  return map;
}

}  // namespace

void BindInput(nb::module_& m) {
  nb::class_<Node>(m, "Node",
                   "A deferred value: one output of a step (TF's tensor). "
                   "Batching calls and inflow.run evaluate it.")
      .def_prop_ro("dtype", [](const Node& n) { return DTypeToNumpy(n.dtype); })
      .def_prop_ro("shape",
                   [](const Node& n) { return PartialShapeToPython(n.shape); })
      .def_prop_ro("op_name", [](const Node& n) { return n.step->name(); })
      .def_prop_ro("value_index", [](const Node& n) { return n.index; })
      .def("_same_step",
           [](const Node& a, const Node& b) { return a.step == b.step; })
      .def(
          "set_shape",
          [](Node& n, nb::handle shape) {
            PartialShape s = PartialShapeFromPython(shape);
            if (!n.shape.IsCompatibleWith(s)) {
              ThrowStatus(InvalidArgumentError(
                  "set_shape: shape " + s.DebugString() +
                  " is not compatible with " + n.shape.DebugString()));
            }
            if (!n.shape.rank_known()) {
              n.shape = s;
            } else if (s.rank_known()) {
              std::vector<int64_t> dims = n.shape.dims();
              for (size_t i = 0; i < dims.size(); ++i) {
                if (dims[i] < 0) dims[i] = s.dim(static_cast<int>(i));
              }
              n.shape = PartialShape(dims);
            }
          },
          nb::arg("shape"))
      .def("__repr__", [](const Node& n) {
        return "<inflow.Node '" + n.step->name() + ":" +
               std::to_string(n.index) + "' shape=" + n.shape.DebugString() +
               " dtype=" + std::string(DTypeName(n.dtype)) + ">";
      });

  m.def(
      "_run",
      [](const std::vector<Node>& nodes, nb::handle timeout) {
        return TupleToPython(ValueOrThrow(RunInterruptibly(nodes, timeout)));
      },
      nb::arg("nodes"), nb::arg("timeout").none() = nb::none());

  m.def(
      "_py_func_step",
      [](nb::handle func, std::vector<Node> inputs, nb::handle dtypes,
         nb::handle shapes, bool unpack) {
        std::vector<DType> ds;
        for (nb::handle d : dtypes) ds.push_back(DTypeFromPython(d));
        std::vector<PartialShape> ss;
        if (shapes.is_none()) {
          ss.assign(ds.size(), PartialShape());
        } else {
          for (nb::handle s : shapes) ss.push_back(PartialShapeFromPython(s));
        }
        if (ss.size() != ds.size()) {
          ThrowStatus(InvalidArgumentError("py_func: one shape per dtype"));
        }
        return PyFuncNodes(ShareObject(func), std::move(inputs), std::move(ds),
                           std::move(ss), unpack);
      },
      nb::arg("func"), nb::arg("inputs"), nb::arg("dtypes"),
      nb::arg("shapes").none(), nb::arg("unpack"));

  m.def(
      "_constant_step",
      [](nb::handle values) {
        Tuple tuple = TupleFromPython(values);
        std::vector<DType> ds;
        std::vector<PartialShape> ss;
        for (const Tensor& t : tuple) {
          ds.push_back(t.dtype());
          ss.push_back(t.shape());
        }
        return FunctionNodes(
            "constant",
            [tuple](const CallOptions&) -> Result<Tuple> { return tuple; },
            std::move(ds), std::move(ss));
      },
      nb::arg("values"));

  m.def(
      "_dequeue_step",
      [](nb::handle q) {
        std::shared_ptr<QueueInterface> queue = QueueFromPython(q);
        std::vector<PartialShape> ss = queue->component_shapes();
        if (ss.empty()) ss.assign(queue->component_dtypes().size(), {});
        return FunctionNodes(
            "dequeue",
            [queue](const CallOptions& o) { return queue->Dequeue(o); },
            queue->component_dtypes(), std::move(ss));
      },
      nb::arg("queue"));

  m.def(
      "_parse_step",
      [](const ExampleParser& parser, const Node& input, bool single,
         nb::handle dtypes, nb::handle shapes) {
        std::vector<DType> ds;
        for (nb::handle d : dtypes) ds.push_back(DTypeFromPython(d));
        std::vector<PartialShape> ss;
        for (nb::handle s : shapes) ss.push_back(PartialShapeFromPython(s));
        return ParseNodes(parser, input, single, std::move(ds), std::move(ss));
      },
      nb::arg("parser"), nb::arg("input"), nb::arg("single"), nb::arg("dtypes"),
      nb::arg("shapes"));

  m.def(
      "_decode_raw_step",
      [](const Node& input, nb::handle out_type, bool little_endian) {
        if (input.dtype != DType::kString) {
          ThrowStatus(InvalidArgumentError("decode_raw: input must be bytes"));
        }
        return DecodeRawNode(input, DTypeFromPython(out_type), little_endian);
      },
      nb::arg("input"), nb::arg("out_type"), nb::arg("little_endian"));

  m.def(
      "_decode_raw_to_float_step",
      [](const Node& input, float scale) {
        if (input.dtype != DType::kString) {
          ThrowStatus(
              InvalidArgumentError("decode_raw_to_float: input must be bytes"));
        }
        return DecodeRawToFloatNode(input, scale);
      },
      nb::arg("input"), nb::arg("scale"));

  m.def(
      "_reshape_step",
      [](const Node& input, nb::handle shape) {
        std::vector<int64_t> dims = DimsFromPython(shape);
        int unknown = 0;
        for (int64_t d : dims) unknown += d < 0 ? 1 : 0;
        if (unknown > 1) {
          ThrowStatus(
              InvalidArgumentError("reshape: at most one dimension may be -1"));
        }
        PartialShape out(dims);
        if (unknown == 1 && input.shape.IsFullyDefined()) {
          int64_t known = 1;
          for (int64_t d : dims) known *= d < 0 ? 1 : d;
          const int64_t n = input.shape.AsTensorShape().num_elements();
          for (int64_t& d : dims) {
            if (d < 0 && known > 0) d = n / known;
          }
          out = PartialShape(dims);
        }
        return ReshapeNode(input, DimsFromPython(shape), std::move(out));
      },
      nb::arg("input"), nb::arg("shape"));

  m.def(
      "_cast_step",
      [](const Node& input, nb::handle dtype) {
        const DType to = DTypeFromPython(dtype);
        ThrowIfError(CheckCastable(input.dtype, to));
        return TransformNode(
            "cast", input, to, input.shape,
            [to](const Tensor& t) { return CastTensor(t, to); });
      },
      nb::arg("input"), nb::arg("dtype"));
  m.def(
      "_cast",
      [](nb::handle value, nb::handle dtype) {
        const DType to = DTypeFromPython(dtype);
        Tensor in = TensorFromPython(value);
        Result<Tensor> out = [&] {
          nb::gil_scoped_release release;
          return CastTensor(in, to);
        }();
        return TensorToNumpy(ValueOrThrow(std::move(out)));
      },
      nb::arg("value"), nb::arg("dtype"));
  m.def(
      "_one_hot_step",
      [](const Node& indices, int64_t depth, nb::handle on_value,
         nb::handle off_value, nb::handle dtype, int axis) {
        CheckOneHot(indices.dtype, indices.shape, depth, axis);
        const DType d = DTypeFromPython(dtype);
        Tensor on = TensorFromPython(on_value, d);
        Tensor off = TensorFromPython(off_value, d);
        return TransformNode("one_hot", indices, d,
                             OneHotShape(indices.shape, depth, axis),
                             [=](const Tensor& t) {
                               return OneHotTensor(t, depth, on, off, axis);
                             });
      },
      nb::arg("indices"), nb::arg("depth"), nb::arg("on_value"),
      nb::arg("off_value"), nb::arg("dtype"), nb::arg("axis"));
  m.def(
      "_one_hot",
      [](nb::handle indices, int64_t depth, nb::handle on_value,
         nb::handle off_value, nb::handle dtype, int axis) {
        Tensor in = TensorFromPython(indices);
        CheckOneHot(in.dtype(), in.shape(), depth, axis);
        const DType d = DTypeFromPython(dtype);
        Tensor on = TensorFromPython(on_value, d);
        Tensor off = TensorFromPython(off_value, d);
        Result<Tensor> out = [&] {
          nb::gil_scoped_release release;
          return OneHotTensor(in, depth, on, off, axis);
        }();
        return TensorToNumpy(ValueOrThrow(std::move(out)));
      },
      nb::arg("indices"), nb::arg("depth"), nb::arg("on_value"),
      nb::arg("off_value"), nb::arg("dtype"), nb::arg("axis"));

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

  // Producers: each returns its queue (the runner is in `collection`, the
  // graph's, started by start_queue_runners). `graph_seed` and `seed` are
  // the pair Python's get_seed gave.
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

  // Batching.
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

  // Pipeline.
  nb::class_<PyPipeline>(m, "_Pipeline")
      .def("next", &PyPipeline::Next, nb::arg("timeout").none() = nb::none())
      .def("close", &PyPipeline::Close)
      .def_prop_ro("names",
                   [](const PyPipeline& p) { return p.pipeline->names(); })
      .def_prop_ro("sparse",
                   [](const PyPipeline& p) {
                     std::vector<bool> sparse = p.pipeline->sparse();
                     sparse.resize(p.pipeline->names().size(), false);
                     return sparse;
                   })
      .def_prop_ro("files",
                   [](const PyPipeline& p) { return p.pipeline->files(); })
      .def_prop_ro("fill_metric_tag", [](const PyPipeline& p) {
        return p.pipeline->fill_metric_tag();
      });
  m.def(
      "_pipeline",
      [](std::vector<std::string> files, nb::handle features,
         std::optional<int64_t> num_epochs, bool shuffle,
         std::optional<int64_t> seed, const std::string& reader,
         const std::string& compression_type, int64_t skip_header_lines,
         int64_t record_bytes, int64_t header_bytes, int64_t footer_bytes,
         int64_t hop_bytes, int num_readers, int64_t read_batch,
         int64_t batch_size, bool shuffle_batch, int64_t min_after_dequeue,
         int64_t capacity, bool allow_smaller_final_batch,
         std::vector<std::pair<std::string, std::pair<int64_t, float>>>
             raw_to_float,
         bool include_key, nb::handle map_fn, nb::handle map_spec,
         const std::string& name, int nice) {
        PipelineOptions o;
        o.files = std::move(files);
        o.num_epochs = num_epochs;
        o.shuffle_files = shuffle;
        if (reader == "tfrecord") {
          o.format = RecordFormat::kTFRecord;
        } else if (reader == "text") {
          o.format = RecordFormat::kTextLine;
        } else if (reader == "fixed") {
          o.format = RecordFormat::kFixedLength;
        } else {
          ThrowStatus(InvalidArgumentError(
              "reader must be \"tfrecord\", \"text\" or \"fixed\", got \"" +
              reader + "\""));
        }
        o.compression_type = compression_type;
        o.skip_header_lines = skip_header_lines;
        o.fixed_length.record_bytes = record_bytes;
        o.fixed_length.header_bytes = header_bytes;
        o.fixed_length.footer_bytes = footer_bytes;
        o.fixed_length.hop_bytes = hop_bytes;
        o.fixed_length.encoding = compression_type;
        if (!features.is_none()) o.features = SpecsFromPython(features);
        for (auto& [feature, spec] : raw_to_float) {
          o.raw_to_float.push_back({feature, spec.first, spec.second});
        }
        o.include_key = include_key;
        if (!map_fn.is_none()) {
          // map_spec: (input names, dtypes, row shapes, output names).
          nb::tuple spec = nb::cast<nb::tuple>(map_spec);
          std::vector<DType> ds;
          for (nb::handle d : spec[1]) ds.push_back(DTypeFromPython(d));
          std::vector<PartialShape> ss;
          for (nb::handle s : spec[2]) ss.push_back(PartialShapeFromPython(s));
          o.map = MakeMapFunction(map_fn,
                                  nb::cast<std::vector<std::string>>(spec[0]),
                                  std::move(ds), std::move(ss),
                                  nb::cast<std::vector<std::string>>(spec[3]));
        }
        o.num_readers = num_readers;
        o.read_batch = read_batch;
        o.batching.batch_size = batch_size;
        o.batching.shuffle = shuffle_batch;
        o.batching.min_after_dequeue = min_after_dequeue;
        o.batching.capacity = capacity;
        o.batching.seed = seed;
        o.batching.allow_smaller_final_batch = allow_smaller_final_batch;
        o.batching.nice = nice;
        o.name = name;
        Result<std::shared_ptr<Pipeline>> p = [&] {
          nb::gil_scoped_release release;
          return Pipeline::Create(std::move(o));
        }();
        auto out = std::make_shared<PyPipeline>();
        out->pipeline = ValueOrThrow(std::move(p));
        return out;
      },
      nb::arg("files"), nb::arg("features").none(),
      nb::arg("num_epochs").none(), nb::arg("shuffle"), nb::arg("seed").none(),
      nb::arg("reader"), nb::arg("compression_type"),
      nb::arg("skip_header_lines"), nb::arg("record_bytes"),
      nb::arg("header_bytes"), nb::arg("footer_bytes"), nb::arg("hop_bytes"),
      nb::arg("num_readers"), nb::arg("read_batch"), nb::arg("batch_size"),
      nb::arg("shuffle_batch"), nb::arg("min_after_dequeue"),
      nb::arg("capacity"), nb::arg("allow_smaller_final_batch"),
      nb::arg("raw_to_float"), nb::arg("include_key"), nb::arg("map_fn").none(),
      nb::arg("map_spec").none(), nb::arg("name"), nb::arg("nice"));
}

}  // namespace inflow::py
