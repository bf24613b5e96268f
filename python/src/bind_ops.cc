// Copyright 2026 The inflow Authors.
//
// Custom ops' Python face (python/inflow/_ops.py builds
// inflow.load_op_library on it): loading a library, an op's declaration,
// _Op (a use of an op: its attributes and its kernel), the op's step over
// Nodes, an eager call, and the op as a Dataset map function and a
// Pipeline map that run in C++ without the GIL (_NativeMapFn for
// bind_data.cc's map_native, _NativePipelineMap for bind_pipeline.cc).

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

#include "bindings.h"
#include "deferred_steps.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_ops.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

using ops::AttrDef;
using ops::AttrMap;
using ops::AttrType;
using ops::AttrValue;
using ops::Op;
using ops::OpDef;

// The op's step over its input nodes: one Run per evaluation.
class OpStep final : public Step {
 public:
  OpStep(std::shared_ptr<const Op> op, std::vector<Node> inputs)
      : Step(op->name(), op->output_dtypes(), op->output_shapes()),
        op_(std::move(op)),
        inputs_(std::move(inputs)) {}

  Result<Tuple> Compute(Eval& eval) override {
    Tuple in;
    in.reserve(inputs_.size());
    for (const Node& node : inputs_) {
      INFLOW_ASSIGN_OR_RETURN(Tensor t, eval.Get(node));
      in.push_back(std::move(t));
    }
    return op_->Run(in, eval.options());
  }

 private:
  const std::shared_ptr<const Op> op_;
  const std::vector<Node> inputs_;
};

const OpDef& FindOrThrow(const std::string& name) {
  const OpDef* def = ops::FindOp(name);
  if (def == nullptr) {
    ThrowStatus(NotFoundError("no op '" + name + "' is registered"));
  }
  return *def;
}

template <typename T>
std::vector<T> ListOf(nb::handle value) {
  std::vector<T> out;
  for (nb::handle v : value) out.push_back(nb::cast<T>(v));
  return out;
}

// A Python value as the declared type of attribute `a`; TypeError naming
// the op and the attribute when it cannot be one.
AttrValue AttrFromPython(const OpDef& op, const AttrDef& a, nb::handle v) {
  try {
    switch (a.type) {
      case AttrType::kInt:
        if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) break;
        return nb::cast<int64_t>(nb::int_(v));
      case AttrType::kFloat:
        if (PyBool_Check(v.ptr()) || !PyNumber_Check(v.ptr())) break;
        return nb::cast<double>(nb::float_(v));
      case AttrType::kBool:
        if (!PyBool_Check(v.ptr()) && !nb::isinstance<nb::int_>(v)) break;
        return nb::cast<bool>(nb::bool_(v));
      case AttrType::kString:
        if (nb::isinstance<nb::bytes>(v)) {
          nb::bytes b = nb::borrow<nb::bytes>(v);
          return std::string(b.c_str(), b.size());
        }
        if (!nb::isinstance<nb::str>(v)) break;
        return nb::cast<std::string>(v);
      case AttrType::kType:
        return DTypeFromPython(v);
      case AttrType::kIntList:
        return ListOf<int64_t>(v);
      case AttrType::kFloatList:
        return ListOf<double>(v);
      case AttrType::kStringList:
        return ListOf<std::string>(v);
    }
  } catch (const nb::cast_error&) {
  } catch (const nb::python_error&) {
  }
  throw nb::type_error(("op '" + op.name() + "': attribute '" + a.name +
                        "' must be " + std::string(AttrTypeName(a.type)) +
                        ", got " + nb::cast<std::string>(nb::repr(v)))
                           .c_str());
}

AttrMap AttrsFromPython(const OpDef& op, nb::dict attrs) {
  AttrMap out;
  for (auto [key, value] : attrs) {
    const std::string name = nb::cast<std::string>(key);
    const AttrDef* def = nullptr;
    for (const AttrDef& a : op.attrs()) {
      if (a.name == name) def = &a;
    }
    if (def == nullptr) {
      throw nb::type_error(
          ("op '" + op.name() + "' has no attribute '" + name + "'").c_str());
    }
    out.Set(name, AttrFromPython(op, *def, value));
  }
  return out;
}

nb::object AttrToPython(const AttrValue& v) {
  switch (v.type()) {
    case AttrType::kInt:
      return nb::int_(*v.get_if<int64_t>());
    case AttrType::kFloat:
      return nb::float_(*v.get_if<double>());
    case AttrType::kBool:
      return nb::bool_(*v.get_if<bool>());
    case AttrType::kString:
      return nb::str(v.get_if<std::string>()->c_str());
    case AttrType::kType:
      return DTypeToNumpy(*v.get_if<DType>());
    case AttrType::kIntList:
      return nb::cast(*v.get_if<std::vector<int64_t>>());
    case AttrType::kFloatList:
      return nb::cast(*v.get_if<std::vector<double>>());
    case AttrType::kStringList:
      return nb::cast(*v.get_if<std::vector<std::string>>());
  }
  return nb::none();
}

nb::list ArgsToPython(const std::vector<ops::ArgDef>& args) {
  nb::list out;
  for (const ops::ArgDef& a : args) {
    out.append(nb::make_tuple(a.name, DTypeToNumpy(a.dtype),
                              PartialShapeToPython(a.shape), a.is_mutable));
  }
  return out;
}

// {"name", "inputs": [(name, dtype, shape, mutable)], "outputs": [...],
// "attrs":
// [(name, type name, default or None, has_default)], "doc", "stateful"}.
nb::dict OpDefToPython(const OpDef& op) {
  nb::dict d;
  d["name"] = op.name();
  d["inputs"] = ArgsToPython(op.inputs());
  d["outputs"] = ArgsToPython(op.outputs());
  nb::list attrs;
  for (const AttrDef& a : op.attrs()) {
    const bool has = a.default_value.has_value();
    attrs.append(
        nb::make_tuple(a.name, std::string(AttrTypeName(a.type)),
                       has ? AttrToPython(*a.default_value) : nb::none(), has));
  }
  d["attrs"] = attrs;
  d["doc"] = op.doc();
  d["stateful"] = op.stateful();
  return d;
}

std::shared_ptr<const Op> MakeOp(const std::string& name, nb::dict attrs,
                                 std::vector<PartialShape> input_shapes) {
  const OpDef& def = FindOrThrow(name);
  AttrMap map = AttrsFromPython(def, attrs);
  Result<std::shared_ptr<Op>> op = [&] {
    // Initialize is the library's code: no GIL.
    nb::gil_scoped_release release;
    return Op::Create(name, std::move(map), std::move(input_shapes));
  }();
  return ValueOrThrow(std::move(op));
}

}  // namespace

void BindOps(nb::module_& m) {
  nb::class_<Op>(m, "_Op",
                 "A use of a registered op: its attributes and "
                 "its kernel.")
      .def_prop_ro("name", [](const Op& op) { return op.name(); })
      .def_prop_ro("attrs",
                   [](const Op& op) {
                     nb::dict d;
                     for (const auto& [k, v] : op.attrs().values()) {
                       d[k.c_str()] = AttrToPython(v);
                     }
                     return d;
                   })
      .def_prop_ro("output_shapes", [](const Op& op) {
        nb::list out;
        for (const PartialShape& s : op.output_shapes()) {
          out.append(PartialShapeToPython(s));
        }
        return out;
      });

  nb::class_<NativeMapFn>(m, "_NativeMapFn",
                          "A Dataset map function that runs in C++.");
  nb::class_<NativePipelineMap>(m, "_NativePipelineMap",
                                "A Pipeline map that runs in C++.");

  m.def(
      "_load_op_library",
      [](const std::string& path) {
        Result<ops::OpLibraryInfo> info = [&] {
          nb::gil_scoped_release release;
          return ops::LoadOpLibrary(path);
        }();
        return ValueOrThrow(std::move(info)).op_names;
      },
      nb::arg("path"));
  m.def(
      "_op_def",
      [](const std::string& name) { return OpDefToPython(FindOrThrow(name)); },
      nb::arg("name"));
  m.def("_registered_ops", [] { return ops::RegisteredOps(); });
  m.def(
      "_make_op",
      [](const std::string& name, nb::dict attrs, nb::handle input_shapes) {
        std::vector<PartialShape> shapes;
        if (!input_shapes.is_none()) {
          for (nb::handle s : input_shapes) {
            shapes.push_back(PartialShapeFromPython(s));
          }
        }
        return std::const_pointer_cast<Op>(MakeOp(name, attrs, shapes));
      },
      nb::arg("name"), nb::arg("attrs"), nb::arg("input_shapes").none());
  m.def(
      "_op_nodes",
      [](std::shared_ptr<Op> op, std::vector<Node> inputs) {
        if (inputs.size() != op->def().inputs().size()) {
          ThrowStatus(InvalidArgumentError(
              "op '" + op->name() + "' takes " +
              std::to_string(op->def().inputs().size()) + " inputs, got " +
              std::to_string(inputs.size())));
        }
        for (size_t i = 0; i < inputs.size(); ++i) {
          const ops::ArgDef& arg = op->def().inputs()[i];
          if (inputs[i].dtype != arg.dtype) {
            throw nb::type_error(
                ("op '" + op->name() + "': input '" + arg.name + "' must be " +
                 std::string(DTypeName(arg.dtype)) + ", got a Node of " +
                 std::string(DTypeName(inputs[i].dtype)))
                    .c_str());
          }
        }
        return NodesOf(
            std::make_shared<OpStep>(std::move(op), std::move(inputs)));
      },
      nb::arg("op"), nb::arg("inputs"));
  m.def(
      "_op_run",
      [](std::shared_ptr<Op> op, nb::handle values) {
        std::vector<DType> dtypes;
        for (const ops::ArgDef& a : op->def().inputs()) {
          dtypes.push_back(a.dtype);
        }
        Tuple inputs =
            dtypes.empty() ? Tuple{} : TupleFromPython(values, dtypes);
        Result<Tuple> out = [&] {
          nb::gil_scoped_release release;
          return op->Run(inputs);
        }();
        return TupleToPython(ValueOrThrow(std::move(out)));
      },
      nb::arg("op"), nb::arg("inputs"));
  m.def(
      "_op_map_fn",
      [](std::shared_ptr<Op> op) {
        return NativeMapFn{ops::OpMapFn(std::move(op))};
      },
      nb::arg("op"));
  m.def(
      "_op_pipeline_map",
      [](std::shared_ptr<Op> op, bool chunks) {
        return NativePipelineMap{ValueOrThrow(ops::OpPipelineMap(
            std::move(op),
            chunks ? ops::OpMapUnit::kChunk : ops::OpMapUnit::kRecord))};
      },
      nb::arg("op"), nb::arg("chunks"));
}

}  // namespace inflow::py
