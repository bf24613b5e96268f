// Copyright 2026 The inflow Authors.
//
// TF1's input graph without a graph: deferred steps. A Node is one output
// of a Step (TF's tensor of an op); reader.read(queue) makes a read step,
// parse_single_example / decode_raw on a Node make steps over it, and the
// batch family runs the steps its Nodes come from on inflow's threads, once
// per element, with the GIL released. Only py_func steps take the GIL, for
// the call. Also the producers, the readers, the Batcher and the Pipeline
// (python/inflow/train/_input.py and python/inflow/_pipeline.py give them
// TF's signatures).

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
#include "example_specs.h"
#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"
#include "py_threads.h"
#include "tensor_ops.h"

namespace inflow::py {

namespace {

class Step;

// One output of a step, with its static dtype and shape.
struct Node {
  std::shared_ptr<Step> step;
  int index = 0;
  DType dtype = DType::kInvalid;
  PartialShape shape;
};

// One evaluation of a set of nodes: every step runs at most once (TF's
// one session.run), however many nodes use it.
class Eval {
 public:
  explicit Eval(const CallOptions& options) : options_(options) {}

  Result<Tensor> Get(const Node& node);
  const CallOptions& options() const { return options_; }

 private:
  const CallOptions& options_;
  std::vector<std::pair<const Step*, Tuple>> memo_;
};

// A deferred computation giving one Tuple per run. Thread-safe: several
// batching threads may run the same step.
class Step {
 public:
  Step(std::string name, std::vector<DType> dtypes,
       std::vector<PartialShape> shapes)
      : name_(std::move(name)),
        dtypes_(std::move(dtypes)),
        shapes_(std::move(shapes)) {}
  virtual ~Step() = default;

  virtual Result<Tuple> Compute(Eval& eval) = 0;

  const std::string& name() const { return name_; }
  const std::vector<DType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

 private:
  const std::string name_;
  const std::vector<DType> dtypes_;
  const std::vector<PartialShape> shapes_;
};

std::vector<Node> NodesOf(const std::shared_ptr<Step>& step) {
  std::vector<Node> nodes;
  for (size_t i = 0; i < step->dtypes().size(); ++i) {
    nodes.push_back(
        Node{step, static_cast<int>(i), step->dtypes()[i], step->shapes()[i]});
  }
  return nodes;
}

Result<Tensor> Eval::Get(const Node& node) {
  const Step* key = node.step.get();
  for (const auto& [step, tuple] : memo_) {
    if (step == key) return tuple[node.index];
  }
  INFLOW_ASSIGN_OR_RETURN(Tuple out, node.step->Compute(*this));
  if (out.size() != node.step->dtypes().size()) {
    return InternalError(node.step->name() + ": produced " +
                         std::to_string(out.size()) + " components, not " +
                         std::to_string(node.step->dtypes().size()));
  }
  Tensor t = out[node.index];
  memo_.emplace_back(key, std::move(out));
  return t;
}

// Runs `nodes` once; their values in order.
Result<Tuple> EvalNodes(const std::vector<Node>& nodes,
                        const CallOptions& options) {
  Eval eval(options);
  Tuple out;
  out.reserve(nodes.size());
  for (const Node& n : nodes) {
    INFLOW_ASSIGN_OR_RETURN(Tensor t, eval.Get(n));
    out.push_back(std::move(t));
  }
  return out;
}

// A Python object that may be dropped on any thread: the reference goes
// with the GIL taken, or is leaked once the interpreter is going away.
std::shared_ptr<nb::object> ShareObject(nb::handle object) {
  return std::shared_ptr<nb::object>(
      new nb::object(nb::borrow(object)), [](nb::object* o) {
        PyGILState_STATE state;
        if (AcquireGil(&state)) {
          delete o;
          ReleaseGil(state);
        } else {
          o->release();  // leaked: the interpreter is gone or going
          delete o;
        }
      });
}

// The Status a Python exception maps to: an inflow OpError keeps its code,
// StopIteration is the end of input (OUT_OF_RANGE, as TF's py_func),
// ValueError and TypeError are INVALID_ARGUMENT, anything else UNKNOWN;
// the message carries the traceback. Call with the GIL held.
Status StatusFromPythonError(nb::python_error& e, const std::string& where) {
  StatusCode code = StatusCode::kUnknown;
  nb::handle type = e.type();
  if (PyErr_GivenExceptionMatches(type.ptr(), PyExc_StopIteration)) {
    code = StatusCode::kOutOfRange;
  } else if (PyErr_GivenExceptionMatches(type.ptr(), PyExc_ValueError) ||
             PyErr_GivenExceptionMatches(type.ptr(), PyExc_TypeError)) {
    code = StatusCode::kInvalidArgument;
  } else if (nb::hasattr(e.value(), "error_code")) {
    try {
      const int c = nb::cast<int>(e.value().attr("error_code"));
      if (c > 0 && c < kNumStatusCodes) code = static_cast<StatusCode>(c);
    } catch (...) {
    }
  }
  std::string text = e.what();
  e.restore();
  PyErr_Clear();
  return Status(code, where + ": " + text);
}

// func(*inputs as NumPy) -> one array-like or a list of them, converted to
// `dtypes` (TF's py_func).
class PyFuncStep : public Step {
 public:
  PyFuncStep(std::shared_ptr<nb::object> func, std::vector<Node> inputs,
             std::vector<DType> dtypes, std::vector<PartialShape> shapes,
             bool unpack)
      : Step("py_func", std::move(dtypes), std::move(shapes)),
        func_(std::move(func)),
        inputs_(std::move(inputs)),
        unpack_(unpack) {}

  Result<Tuple> Compute(Eval& eval) override {
    // In this evaluation: an input shared with other nodes has one value.
    Tuple args;
    for (const Node& n : inputs_) {
      INFLOW_ASSIGN_OR_RETURN(Tensor t, eval.Get(n));
      args.push_back(std::move(t));
    }
    PyGILState_STATE state;
    if (!AcquireGil(&state)) {
      return CancelledError("py_func: the Python interpreter is exiting");
    }
    Result<Tuple> out = Call(args);
    ReleaseGil(state);
    return out;
  }

 private:
  Result<Tuple> Call(const Tuple& args) {
    try {
      nb::list py_args;
      for (const Tensor& t : args) py_args.append(TensorToNumpy(t));
      nb::object result =
          (*func_)(*nb::tuple(nb::steal(PySequence_Tuple(py_args.ptr()))));
      if (!unpack_) return Tuple{TensorFromPython(result, dtypes()[0])};
      if (result.is_none() || !PySequence_Check(result.ptr()) ||
          PyBytes_Check(result.ptr()) || nb::len(result) != dtypes().size()) {
        return InvalidArgumentError(
            "py_func: the function must return a sequence of " +
            std::to_string(dtypes().size()) + " values");
      }
      Tuple out;
      for (size_t i = 0; i < dtypes().size(); ++i) {
        out.push_back(TensorFromPython(result[i], dtypes()[i]));
      }
      return out;
    } catch (nb::python_error& e) {
      return StatusFromPythonError(e, "py_func");
    } catch (const std::exception& e) {
      return UnknownError(std::string("py_func: ") + e.what());
    }
  }

  const std::shared_ptr<nb::object> func_;
  const std::vector<Node> inputs_;
  const bool unpack_;
};

// A C++ function as a step (slice_input_producer's, limit_epochs', a
// queue's dequeue).
class FunctionStep : public Step {
 public:
  FunctionStep(std::string name,
               std::function<Result<Tuple>(const CallOptions&)> fn,
               std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : Step(std::move(name), std::move(dtypes), std::move(shapes)),
        fn_(std::move(fn)) {}

  Result<Tuple> Compute(Eval& eval) override { return fn_(eval.options()); }

 private:
  const std::function<Result<Tuple>(const CallOptions&)> fn_;
};

// reader.read(queue) (up_to == 0) or reader.read_up_to(queue, up_to):
// (key, value).
class ReadStep : public Step {
 public:
  ReadStep(std::shared_ptr<ReaderBase> reader,
           std::shared_ptr<QueueInterface> queue, int64_t up_to)
      : Step(up_to == 0 ? "read" : "read_up_to",
             {DType::kString, DType::kString},
             up_to == 0
                 ? std::vector<PartialShape>{PartialShape({}), PartialShape({})}
                 : std::vector<PartialShape>{PartialShape({-1}),
                                             PartialShape({-1})}),
        reader_(std::move(reader)),
        queue_(std::move(queue)),
        up_to_(up_to) {}

  Result<Tuple> Compute(Eval& eval) override {
    if (up_to_ == 0) {
      INFLOW_ASSIGN_OR_RETURN(ReaderRecord r,
                              reader_->Read(*queue_, eval.options()));
      return Tuple{Tensor::Scalar(std::move(r.key)),
                   Tensor::Scalar(std::move(r.value))};
    }
    INFLOW_ASSIGN_OR_RETURN(std::vector<ReaderRecord> records,
                            reader_->ReadUpTo(*queue_, up_to_, eval.options()));
    const int64_t n = static_cast<int64_t>(records.size());
    Tensor keys(DType::kString, TensorShape({n}));
    Tensor values(DType::kString, TensorShape({n}));
    std::span<std::string> k = keys.mutable_flat<std::string>().value();
    std::span<std::string> v = values.mutable_flat<std::string>().value();
    for (int64_t i = 0; i < n; ++i) {
      k[i] = std::move(records[i].key);
      v[i] = std::move(records[i].value);
    }
    return Tuple{std::move(keys), std::move(values)};
  }

 private:
  const std::shared_ptr<ReaderBase> reader_;
  const std::shared_ptr<QueueInterface> queue_;
  const int64_t up_to_;
};

// parse_single_example (a scalar string) or parse_example (a vector):
// the dense outputs in dense_keys() order, then indices, values and
// dense_shape of each sparse key.
class ParseStep : public Step {
 public:
  ParseStep(ExampleParser parser, Node input, bool single,
            std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : Step(single ? "parse_single_example" : "parse_example",
             std::move(dtypes), std::move(shapes)),
        parser_(std::move(parser)),
        input_(std::move(input)),
        single_(single) {}

  Result<Tuple> Compute(Eval& eval) override {
    INFLOW_ASSIGN_OR_RETURN(Tensor in, eval.Get(input_));
    if (in.dtype() != DType::kString) {
      return InvalidArgumentError(name() + ": serialized must be strings");
    }
    Result<ParsedFeatures> parsed = Status();
    if (single_) {
      if (in.num_elements() != 1) {
        return InvalidArgumentError(
            name() + ": serialized must be one string, got shape " +
            in.shape().DebugString());
      }
      parsed = parser_.ParseSingle(in.flat<std::string>()[0]);
    } else {
      if (in.rank() != 1) {
        return InvalidArgumentError(
            name() + ": serialized must be a vector, got shape " +
            in.shape().DebugString());
      }
      parsed = parser_.ParseBatch(in.flat<std::string>());
    }
    if (!parsed.ok()) return parsed.status();
    Tuple out = std::move(parsed->dense);
    for (SparseTensor& s : parsed->sparse) {
      out.push_back(std::move(s.indices));
      out.push_back(std::move(s.values));
      out.push_back(std::move(s.dense_shape));
    }
    return out;
  }

 private:
  const ExampleParser parser_;
  const Node input_;
  const bool single_;
};

// decode_raw, or decode_raw + cast to float32 * scale (to_float).
class DecodeRawStep : public Step {
 public:
  DecodeRawStep(Node input, DType dtype, bool little_endian, bool to_float,
                float scale)
      : Step("decode_raw", {to_float ? DType::kFloat32 : dtype},
             {input.shape.Prepend(-1).rank_known()
                  ? PartialShape(AppendUnknown(input.shape))
                  : PartialShape()}),
        input_(std::move(input)),
        dtype_(dtype),
        little_endian_(little_endian),
        to_float_(to_float),
        scale_(scale) {}

  Result<Tuple> Compute(Eval& eval) override {
    INFLOW_ASSIGN_OR_RETURN(Tensor in, eval.Get(input_));
    if (to_float_) {
      INFLOW_ASSIGN_OR_RETURN(Tensor t, DecodeRawToFloat(in, scale_));
      return Tuple{std::move(t)};
    }
    if (in.dtype() == DType::kString && in.rank() == 0) {
      // A view of the record's bytes where the alignment allows: the
      // string lives in the tensor's buffer, which the alias keeps alive.
      std::shared_ptr<const std::string> owner(in.buffer(),
                                               &in.flat<std::string>()[0]);
      INFLOW_ASSIGN_OR_RETURN(
          Tensor t, DecodeRawShared(owner, *owner, dtype_, little_endian_));
      return Tuple{std::move(t)};
    }
    INFLOW_ASSIGN_OR_RETURN(Tensor t, DecodeRaw(in, dtype_, little_endian_));
    return Tuple{std::move(t)};
  }

 private:
  static std::vector<int64_t> AppendUnknown(const PartialShape& s) {
    std::vector<int64_t> dims = s.dims();
    dims.push_back(-1);
    return dims;
  }

  const Node input_;
  const DType dtype_;
  const bool little_endian_;
  const bool to_float_;
  const float scale_;
};

// tf.reshape: the same elements, another shape (one dim may be -1).
class ReshapeStep : public Step {
 public:
  ReshapeStep(Node input, std::vector<int64_t> dims, PartialShape shape)
      : Step("reshape", {input.dtype}, {std::move(shape)}),
        input_(std::move(input)),
        dims_(std::move(dims)) {}

  Result<Tuple> Compute(Eval& eval) override {
    INFLOW_ASSIGN_OR_RETURN(Tensor in, eval.Get(input_));
    std::vector<int64_t> dims = dims_;
    int64_t known = 1;
    int unknown = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0) {
        unknown = static_cast<int>(i);
      } else {
        known *= dims[i];
      }
    }
    if (unknown >= 0) {
      if (known == 0 || in.num_elements() % known != 0) {
        return InvalidArgumentError(
            "reshape: cannot reshape " + std::to_string(in.num_elements()) +
            " values into " + PartialShape(dims_).DebugString());
      }
      dims[unknown] = in.num_elements() / known;
    }
    Result<Tensor> t = in.Reshape(TensorShape(dims));
    if (!t.ok()) {
      return InvalidArgumentError("reshape: input has " +
                                  std::to_string(in.num_elements()) +
                                  " values, which cannot take the shape " +
                                  PartialShape(dims_).DebugString());
    }
    return Tuple{*std::move(t)};
  }

 private:
  const Node input_;
  const std::vector<int64_t> dims_;
};

// A function of one input's value (cast, one_hot).
class TransformStep : public Step {
 public:
  TransformStep(std::string name, Node input, DType dtype, PartialShape shape,
                std::function<Result<Tensor>(const Tensor&)> fn)
      : Step(std::move(name), {dtype}, {std::move(shape)}),
        input_(std::move(input)),
        fn_(std::move(fn)) {}

  Result<Tuple> Compute(Eval& eval) override {
    INFLOW_ASSIGN_OR_RETURN(Tensor in, eval.Get(input_));
    INFLOW_ASSIGN_OR_RETURN(Tensor out, fn_(in));
    return Tuple{std::move(out)};
  }

 private:
  const Node input_;
  const std::function<Result<Tensor>(const Tensor&)> fn_;
};

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

// Evaluates `nodes` once on a helper thread while this one waits with the
// GIL released, checking for signals every 50 ms; KeyboardInterrupt stops
// the evaluation (its blocking calls end CANCELLED) and is raised. Unlike
// CallBlocking, the steps run exactly once: a run of several steps (a read
// and a py_func) must not be retried, since a first step that succeeded
// would lose its element.
Result<Tuple> RunInterruptibly(const std::vector<Node>& nodes,
                               nb::handle timeout) {
  CallOptions options = MakeCallOptions(timeout);
  std::stop_source stop;
  options.stop = stop.get_token();
  std::future<Result<Tuple>> result =
      std::async(std::launch::async,
                 [&nodes, options] { return EvalNodes(nodes, options); });
  bool interrupted = false;
  for (;;) {
    std::future_status status;
    {
      nb::gil_scoped_release release;
      status = result.wait_for(std::chrono::milliseconds(50));
    }
    if (status == std::future_status::ready) break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true;  // the exception stays set until raised below
      stop.request_stop();
    }
  }
  Result<Tuple> out = result.get();
  if (interrupted) throw nb::python_error();
  return out;
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

// The step the batching threads run: the nodes of one input, evaluated
// together; with a keep_input node, its value is left for the KeepInputFn
// on the same thread (the enqueue op calls the step and then keep_input,
// one after the other, on its own thread).
thread_local Tensor t_keep_input;

// `sparse`: empty, or one flag per component; a sparse component is three
// nodes (indices, values, dense_shape), its static rank the dense shape's
// length.
BatchInput MakeBatchInput(std::vector<Node> nodes, std::optional<Node> keep,
                          const std::vector<std::string>& names,
                          const std::vector<bool>& sparse) {
  BatchInput in;
  if (sparse.empty()) {
    for (const Node& n : nodes) {
      in.dtypes.push_back(n.dtype);
      in.shapes.push_back(n.shape);
    }
  } else {
    size_t t = 0;
    for (bool is_sparse : sparse) {
      if (t + (is_sparse ? 3 : 1) > nodes.size()) {
        ThrowStatus(InvalidArgumentError(
            "batch: fewer tensors than the components need"));
      }
      if (!is_sparse) {
        in.dtypes.push_back(nodes[t].dtype);
        in.shapes.push_back(nodes[t].shape);
        ++t;
        continue;
      }
      const PartialShape& dense_shape = nodes[t + 2].shape;
      in.dtypes.push_back(nodes[t + 1].dtype);
      in.shapes.push_back(dense_shape.rank_known() && dense_shape.rank() == 1 &&
                                  dense_shape.dim(0) !=
                                      PartialShape::kUnknownDim
                              ? PartialShape(std::vector<int64_t>(
                                    static_cast<size_t>(dense_shape.dim(0)),
                                    PartialShape::kUnknownDim))
                              : PartialShape::UnknownRank());
      t += 3;
    }
    if (t != nodes.size()) {
      ThrowStatus(
          InvalidArgumentError("batch: more tensors than the components"));
    }
    in.sparse = sparse;
  }
  in.names = names;
  if (keep) nodes.push_back(*keep);
  const bool has_keep = keep.has_value();
  in.step = [nodes = std::move(nodes),
             has_keep](const CallOptions& options) -> Result<Tuple> {
    INFLOW_ASSIGN_OR_RETURN(Tuple out, EvalNodes(nodes, options));
    if (has_keep) {
      t_keep_input = std::move(out.back());
      out.pop_back();
    }
    return out;
  };
  return in;
}

Result<Tensor> KeepFromThread(const Tuple&) {
  Tensor keep = std::move(t_keep_input);
  t_keep_input = Tensor();
  if (!keep.IsInitialized()) {
    return InternalError("keep_input: no value from the step");
  }
  return keep;
}

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
        return NodesOf(
            std::make_shared<PyFuncStep>(ShareObject(func), std::move(inputs),
                                         std::move(ds), std::move(ss), unpack));
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
        return NodesOf(std::make_shared<FunctionStep>(
            "constant",
            [tuple](const CallOptions&) -> Result<Tuple> { return tuple; },
            std::move(ds), std::move(ss)));
      },
      nb::arg("values"));

  m.def(
      "_dequeue_step",
      [](nb::handle q) {
        std::shared_ptr<QueueInterface> queue = QueueFromPython(q);
        std::vector<PartialShape> ss = queue->component_shapes();
        if (ss.empty()) ss.assign(queue->component_dtypes().size(), {});
        return NodesOf(std::make_shared<FunctionStep>(
            "dequeue",
            [queue](const CallOptions& o) { return queue->Dequeue(o); },
            queue->component_dtypes(), std::move(ss)));
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
        return NodesOf(std::make_shared<ParseStep>(
            parser, input, single, std::move(ds), std::move(ss)));
      },
      nb::arg("parser"), nb::arg("input"), nb::arg("single"), nb::arg("dtypes"),
      nb::arg("shapes"));

  m.def(
      "_decode_raw_step",
      [](const Node& input, nb::handle out_type, bool little_endian) {
        if (input.dtype != DType::kString) {
          ThrowStatus(InvalidArgumentError("decode_raw: input must be bytes"));
        }
        return NodesOf(std::make_shared<DecodeRawStep>(
            input, DTypeFromPython(out_type), little_endian, false, 1.0f))[0];
      },
      nb::arg("input"), nb::arg("out_type"), nb::arg("little_endian"));

  m.def(
      "_decode_raw_to_float_step",
      [](const Node& input, float scale) {
        if (input.dtype != DType::kString) {
          ThrowStatus(
              InvalidArgumentError("decode_raw_to_float: input must be bytes"));
        }
        return NodesOf(std::make_shared<DecodeRawStep>(input, DType::kUInt8,
                                                       true, true, scale))[0];
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
        return NodesOf(std::make_shared<ReshapeStep>(
            input, DimsFromPython(shape), std::move(out)))[0];
      },
      nb::arg("input"), nb::arg("shape"));

  m.def(
      "_cast_step",
      [](const Node& input, nb::handle dtype) {
        const DType to = DTypeFromPython(dtype);
        ThrowIfError(CheckCastable(input.dtype, to));
        return NodesOf(std::make_shared<TransformStep>(
            "cast", input, to, input.shape,
            [to](const Tensor& t) { return CastTensor(t, to); }))[0];
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
        return NodesOf(std::make_shared<TransformStep>(
            "one_hot", indices, d, OneHotShape(indices.shape, depth, axis),
            [=](const Tensor& t) {
              return OneHotTensor(t, depth, on, off, axis);
            }))[0];
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
            return NodesOf(std::make_shared<ReadStep>(
                self.reader, QueueFromPython(queue), 0));
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
            return NodesOf(std::make_shared<ReadStep>(
                self.reader, QueueFromPython(queue), n));
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
        return NodesOf(std::make_shared<FunctionStep>(
            "slice_input_producer", std::move(p.step), std::move(p.dtypes),
            std::move(p.shapes)));
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
        return NodesOf(std::make_shared<FunctionStep>(
            "limit_epochs",
            [limit](const CallOptions&) { return limit->Next(); },
            std::vector<DType>{dtype}, std::vector<PartialShape>{shape}))[0];
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
