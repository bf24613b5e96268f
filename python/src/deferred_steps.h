// Copyright 2026 The inflow Authors.
//
// TF1's input graph without a graph: deferred steps. A Node is one output
// of a Step (TF's tensor of an op); reader.read(queue) makes a read step,
// parse_single_example / decode_raw on a Node make steps over it, and the
// batch family runs the steps its Nodes come from on inflow's threads, once
// per element, with the GIL released. Only py_func steps take the GIL, for
// the call. python/inflow/_steps.py gives Nodes TF's tensor methods.
//
//   std::vector<Node> kv = ReadNodes(reader, queue, /*up_to=*/0);
//   Node image = DecodeRawNode(kv[1], DType::kUInt8, true);
//   Result<Tuple> out = EvalNodes({kv[0], image}, options);  // one read
//
// Steps are immutable and thread-safe: several batching threads may run
// the same step. Making a step needs no GIL, except PyFuncNodes (its
// `func` is a Python object); running one needs no GIL, except
// RunInterruptibly.

#ifndef INFLOW_PYTHON_SRC_DEFERRED_STEPS_H_
#define INFLOW_PYTHON_SRC_DEFERRED_STEPS_H_

#include <nanobind/nanobind.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/batching.h"
#include "inflow/input/readers.h"
#include "inflow/queue/queue.h"

namespace inflow::py {

class Step;

// One output of a step, with its static dtype and shape.
struct Node {
  std::shared_ptr<Step> step;
  int index = 0;
  DType dtype = DType::kInvalid;
  PartialShape shape;
};

// One evaluation of a set of nodes: every step runs at most once (TF's
// one session.run), however many nodes use it. Not thread-safe; borrows
// `options` for its life.
class Eval {
 public:
  // `element`: the value of ElementNodes' step in this evaluation (a
  // Dataset map's element), borrowed; null outside a map.
  explicit Eval(const CallOptions& options, const Tuple* element = nullptr)
      : options_(options), element_(element) {}

  // The value of `node`, running its step unless this evaluation ran it.
  Result<Tensor> Get(const Node& node);
  const CallOptions& options() const { return options_; }
  const Tuple* element() const { return element_; }

 private:
  const CallOptions& options_;
  const Tuple* const element_;
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

  // One run: one tensor per dtype (Eval::Get checks the count). Gets its
  // inputs from `eval`, and blocks with eval.options().
  virtual Result<Tuple> Compute(Eval& eval) = 0;

  const std::string& name() const { return name_; }
  const std::vector<DType>& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

 private:
  const std::string name_;
  const std::vector<DType> dtypes_;
  const std::vector<PartialShape> shapes_;
};

// The nodes of `step`, one per output.
std::vector<Node> NodesOf(const std::shared_ptr<Step>& step);

// Runs `nodes` once; their values in order (`element`: ElementNodes'
// value, for a Dataset map's nodes).
Result<Tuple> EvalNodes(const std::vector<Node>& nodes,
                        const CallOptions& options,
                        const Tuple* element = nullptr);

// Evaluates `nodes` once on a helper thread while this one waits with the
// GIL released, checking for signals every 50 ms; KeyboardInterrupt stops
// the evaluation (its blocking calls end CANCELLED) and is raised. Unlike
// CallBlocking, the steps run exactly once: a run of several steps (a read
// and a py_func) must not be retried, since a first step that succeeded
// would lose its element. Called with the GIL held.
Result<Tuple> RunInterruptibly(const std::vector<Node>& nodes,
                               nanobind::handle timeout);

// The step kinds.

// func(*inputs as NumPy) -> one array-like (`unpack` false) or a sequence
// of one per dtype, converted to `dtypes` (TF's py_func). Runs with the GIL
// taken for the call; `func` (ShareObject's) may go on any thread.
std::vector<Node> PyFuncNodes(std::shared_ptr<nanobind::object> func,
                              std::vector<Node> inputs,
                              std::vector<DType> dtypes,
                              std::vector<PartialShape> shapes, bool unpack);

// A C++ function as a step (slice_input_producer's, limit_epochs', a
// queue's dequeue, a constant).
std::vector<Node> FunctionNodes(
    std::string name, std::function<Result<Tuple>(const CallOptions&)> fn,
    std::vector<DType> dtypes, std::vector<PartialShape> shapes);

// The components of a Dataset element, of `dtypes` and `shapes`: a map
// function traced with these nodes as its element (Dataset.map) runs as
// ElementMap, whose evaluations give the element's tensors to this step.
std::vector<Node> ElementNodes(std::vector<DType> dtypes,
                               std::vector<PartialShape> shapes);

// A Dataset map function computing `outputs` from each element, which
// ElementNodes' step gives them: the steps run once per element, with no
// GIL but a py_func's. INVALID_ARGUMENT for an element of another count,
// dtype or shape than the element nodes'.
std::function<Result<Tuple>(Tuple)> ElementMap(std::vector<Node> outputs);

// reader.read(queue) (up_to == 0: scalar key and value) or
// reader.read_up_to(queue, up_to) (vectors): (key, value).
std::vector<Node> ReadNodes(std::shared_ptr<ReaderBase> reader,
                            std::shared_ptr<QueueInterface> queue,
                            int64_t up_to);

// parse_single_example (`single`: a scalar string) or parse_example (a
// vector): the dense outputs in dense_keys() order, then indices, values
// and dense_shape of each sparse key.
std::vector<Node> ParseNodes(ExampleParser parser, Node input, bool single,
                             std::vector<DType> dtypes,
                             std::vector<PartialShape> shapes);

// decode_raw of a string node (a view of the record's bytes where the
// alignment allows).
Node DecodeRawNode(Node input, DType dtype, bool little_endian);
// decode_raw to uint8, then cast to float32 * scale (one pass).
Node DecodeRawToFloatNode(Node input, float scale);

// tf.reshape: the same elements, `dims` (one may be -1); `shape` is the
// static shape.
Node ReshapeNode(Node input, std::vector<int64_t> dims, PartialShape shape);

// A function of one input's value (cast, one_hot), of `dtype` and static
// `shape`.
Node TransformNode(std::string name, Node input, DType dtype,
                   PartialShape shape,
                   std::function<Result<Tensor>(const Tensor&)> fn);

// The input of a batching call: `nodes` evaluated together on the batching
// threads. `keep` (maybe_batch's keep_input): a bool node evaluated with
// them, whose value KeepFromThread returns on the same thread. `sparse`:
// empty, or one flag per component; a sparse component is three nodes
// (indices, values, dense_shape), its static rank the dense shape's
// length. INVALID_ARGUMENT (raised) when the nodes do not fit `sparse`.
// Called with the GIL held.
BatchInput MakeBatchInput(std::vector<Node> nodes, std::optional<Node> keep,
                          const std::vector<std::string>& names,
                          const std::vector<bool>& sparse);

// The KeepInputFn for a MakeBatchInput with a keep node: the keep value
// the step left on this thread.
Result<Tensor> KeepFromThread(const Tuple&);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_DEFERRED_STEPS_H_
