// Copyright 2026 The inflow Authors.

#include "deferred_steps.h"

#include <nanobind/nanobind.h>

#include <chrono>
#include <future>
#include <span>
#include <stop_token>

#include "inflow/example/decode_raw.h"

#include "py_blocking.h"
#include "py_interpreter.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

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

// A Dataset element's components (ElementNodes), from the evaluation.
class ElementStep : public Step {
 public:
  ElementStep(std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : Step("element", std::move(dtypes), std::move(shapes)) {}

  Result<Tuple> Compute(Eval& eval) override {
    const Tuple* element = eval.element();
    if (element == nullptr) {
      return FailedPreconditionError(
          "a Dataset map's element was evaluated outside the map (a node "
          "of a traced map function used elsewhere)");
    }
    if (element->size() != dtypes().size()) {
      return InvalidArgumentError(
          "the map function was traced for elements of " +
          std::to_string(dtypes().size()) + " components, got " +
          std::to_string(element->size()));
    }
    for (size_t i = 0; i < element->size(); ++i) {
      const Tensor& t = (*element)[i];
      if (t.dtype() != dtypes()[i] ||
          !shapes()[i].IsCompatibleWith(t.shape())) {
        return InvalidArgumentError(
            "the map function was traced for component " + std::to_string(i) +
            " of " + std::string(DTypeName(dtypes()[i])) + " " +
            shapes()[i].DebugString() + ", got " +
            std::string(DTypeName(t.dtype())) + " " + t.shape().DebugString());
      }
    }
    return *element;
  }
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

// The step the batching threads run: the nodes of one input, evaluated
// together; with a keep_input node, its value is left for the KeepInputFn
// on the same thread (the enqueue op calls the step and then keep_input,
// one after the other, on its own thread).
thread_local Tensor t_keep_input;

}  // namespace

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
                        const CallOptions& options, const Tuple* element) {
  Eval eval(options, element);
  Tuple out;
  out.reserve(nodes.size());
  for (const Node& n : nodes) {
    INFLOW_ASSIGN_OR_RETURN(Tensor t, eval.Get(n));
    out.push_back(std::move(t));
  }
  return out;
}

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

std::vector<Node> PyFuncNodes(std::shared_ptr<nb::object> func,
                              std::vector<Node> inputs,
                              std::vector<DType> dtypes,
                              std::vector<PartialShape> shapes, bool unpack) {
  return NodesOf(std::make_shared<PyFuncStep>(
      std::move(func), std::move(inputs), std::move(dtypes), std::move(shapes),
      unpack));
}

std::vector<Node> FunctionNodes(
    std::string name, std::function<Result<Tuple>(const CallOptions&)> fn,
    std::vector<DType> dtypes, std::vector<PartialShape> shapes) {
  return NodesOf(std::make_shared<FunctionStep>(
      std::move(name), std::move(fn), std::move(dtypes), std::move(shapes)));
}

std::vector<Node> ElementNodes(std::vector<DType> dtypes,
                               std::vector<PartialShape> shapes) {
  return NodesOf(
      std::make_shared<ElementStep>(std::move(dtypes), std::move(shapes)));
}

std::function<Result<Tuple>(Tuple)> ElementMap(std::vector<Node> outputs) {
  return [outputs = std::move(outputs)](Tuple in) -> Result<Tuple> {
    const CallOptions options;
    return EvalNodes(outputs, options, &in);
  };
}

std::vector<Node> ReadNodes(std::shared_ptr<ReaderBase> reader,
                            std::shared_ptr<QueueInterface> queue,
                            int64_t up_to) {
  return NodesOf(
      std::make_shared<ReadStep>(std::move(reader), std::move(queue), up_to));
}

std::vector<Node> ParseNodes(ExampleParser parser, Node input, bool single,
                             std::vector<DType> dtypes,
                             std::vector<PartialShape> shapes) {
  return NodesOf(
      std::make_shared<ParseStep>(std::move(parser), std::move(input), single,
                                  std::move(dtypes), std::move(shapes)));
}

Node DecodeRawNode(Node input, DType dtype, bool little_endian) {
  return NodesOf(std::make_shared<DecodeRawStep>(
      std::move(input), dtype, little_endian, false, 1.0f))[0];
}

Node DecodeRawToFloatNode(Node input, float scale) {
  return NodesOf(std::make_shared<DecodeRawStep>(
      std::move(input), DType::kUInt8, true, true, scale))[0];
}

Node ReshapeNode(Node input, std::vector<int64_t> dims, PartialShape shape) {
  return NodesOf(std::make_shared<ReshapeStep>(
      std::move(input), std::move(dims), std::move(shape)))[0];
}

Node TransformNode(std::string name, Node input, DType dtype,
                   PartialShape shape,
                   std::function<Result<Tensor>(const Tensor&)> fn) {
  return NodesOf(
      std::make_shared<TransformStep>(std::move(name), std::move(input), dtype,
                                      std::move(shape), std::move(fn)))[0];
}

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

}  // namespace inflow::py
