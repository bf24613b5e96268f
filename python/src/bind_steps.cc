// Copyright 2026 The inflow Authors.
//
// The deferred steps' Python face (deferred_steps.h), what
// python/inflow/_steps.py builds inflow.Node and inflow.run on: Node, the
// evaluation (_run), py_func, constant and dequeue steps, and the reshape,
// cast and one_hot steps beside the eager cast and one_hot.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/queue/queue.h"

#include "bindings.h"
#include "deferred_steps.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_queues.h"
#include "py_tensors.h"
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

}  // namespace

void BindSteps(nb::module_& m) {
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
      "_element_nodes",
      [](nb::handle dtypes, nb::handle shapes) {
        std::vector<DType> ds;
        for (nb::handle d : dtypes) ds.push_back(DTypeFromPython(d));
        std::vector<PartialShape> ss;
        for (nb::handle s : shapes) ss.push_back(PartialShapeFromPython(s));
        if (ss.size() != ds.size()) {
          ThrowStatus(InvalidArgumentError("element: one shape per dtype"));
        }
        return ElementNodes(std::move(ds), std::move(ss));
      },
      nb::arg("dtypes"), nb::arg("shapes"));

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
}

void BindStepOps(nb::module_& m) {
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
}

}  // namespace inflow::py
