// Copyright 2026 The inflow Authors.
//
// Example parsing and decode_raw for Python (python/inflow/io/_parsing.py):
// eager on bytes and arrays (BindExample), and as deferred steps on Nodes
// (BindParseSteps). The feature specs arrive as plain tuples from
// _parsing.py, which owns the TF-style classes (FixedLenFeature, ...);
// ExampleParser is exposed as _inflow.ExampleParser so that the parse
// steps can take one. Parsing runs with the GIL released, over views of
// the Python bytes (no copy of the records).

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/example/decode_raw.h"
#include "inflow/example/example_parser.h"

#include "bindings.h"
#include "deferred_steps.h"
#include "example_specs.h"
#include "py_dtypes.h"
#include "py_interpreter.h"
#include "py_tensors.h"

namespace inflow::py {

namespace {

TensorShape ShapeFromPython(nb::handle shape, const std::string& key) {
  std::vector<int64_t> dims;
  for (nb::handle d : shape) dims.push_back(nb::cast<int64_t>(d));
  Result<TensorShape> s = TensorShape::FromDims(dims);
  if (!s.ok()) {
    ThrowStatus(InvalidArgumentError(
        "feature '" + key + "': " + std::string(s.status().message())));
  }
  return *std::move(s);
}

}  // namespace

FeatureSpecs SpecsFromPython(nb::handle specs) {
  FeatureSpecs out;
  for (nb::handle item : specs) {
    nb::tuple t = nb::cast<nb::tuple>(item);
    std::string key = nb::cast<std::string>(t[0]);
    std::string kind = nb::cast<std::string>(t[1]);
    DType dtype = DTypeFromPython(t[3]);
    std::optional<Tensor> def;
    if (!t[4].is_none()) def = TensorFromPython(t[4], dtype);
    if (kind == "var") {
      out.emplace_back(key, VarLenFeature(dtype));
    } else if (kind == "fixed") {
      out.emplace_back(key, FixedLenFeature(ShapeFromPython(t[2], key), dtype,
                                            std::move(def)));
    } else if (kind == "sequence") {
      out.emplace_back(
          key, FixedLenSequenceFeature(ShapeFromPython(t[2], key), dtype,
                                       nb::cast<bool>(t[5]), std::move(def)));
    } else {
      ThrowStatus(InvalidArgumentError("unknown feature kind '" + kind + "'"));
    }
  }
  return out;
}

namespace {

// Views of the bytes in `value` (a bytes object or a sequence of them);
// `keep` holds what the views point into.
std::vector<std::string_view> BytesViews(nb::handle value,
                                         std::vector<nb::object>* keep) {
  std::vector<std::string_view> views;
  auto add = [&](nb::handle item) {
    nb::object b;
    if (PyBytes_Check(item.ptr())) {
      b = nb::borrow(item);
    } else if (PyUnicode_Check(item.ptr())) {
      b = nb::steal(PyUnicode_AsUTF8String(item.ptr()));
      if (!b.is_valid()) throw nb::python_error();
    } else {
      ThrowStatus(InvalidArgumentError(
          "serialized must hold bytes, got " +
          nb::cast<std::string>(nb::str(
              nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(item.ptr())))))));
    }
    char* data = nullptr;
    Py_ssize_t size = 0;
    PyBytes_AsStringAndSize(b.ptr(), &data, &size);
    views.emplace_back(data, static_cast<size_t>(size));
    keep->push_back(std::move(b));
  };
  if (PyBytes_Check(value.ptr()) || PyUnicode_Check(value.ptr())) {
    add(value);
  } else {
    for (nb::handle item : value) add(item);
  }
  return views;
}

// (dense arrays in dense_keys() order, [indices, values, dense_shape] per
// sparse key): the Python side pairs them with the keys.
nb::tuple ParsedToPython(const ParsedFeatures& parsed) {
  nb::list dense;
  for (const Tensor& t : parsed.dense) dense.append(TensorToNumpy(t));
  nb::list sparse;
  for (const SparseTensor& s : parsed.sparse) {
    sparse.append(nb::make_tuple(TensorToNumpy(s.indices),
                                 TensorToNumpy(s.values),
                                 TensorToNumpy(s.dense_shape)));
  }
  return nb::make_tuple(dense, sparse);
}

}  // namespace

void BindExample(nb::module_& m) {
  nb::class_<ExampleParser>(m, "ExampleParser")
      .def(
          "__init__",
          [](ExampleParser* self, nb::handle specs) {
            new (self) ExampleParser(
                ValueOrThrow(ExampleParser::Create(SpecsFromPython(specs))));
          },
          nb::arg("specs"),
          "A parser for one configuration: a list of (key, kind, shape, "
          "dtype, default, allow_missing) tuples.")
      .def_prop_ro("dense_keys", &ExampleParser::dense_keys)
      .def_prop_ro("sparse_keys", &ExampleParser::sparse_keys)
      .def(
          "parse_single",
          [](const ExampleParser& parser, nb::bytes serialized) {
            const std::string_view data(serialized.c_str(), serialized.size());
            Result<ParsedFeatures> parsed = [&] {
              nb::gil_scoped_release release;
              return parser.ParseSingle(data);
            }();
            return ParsedToPython(ValueOrThrow(std::move(parsed)));
          },
          nb::arg("serialized"))
      .def(
          "parse_batch",
          [](const ExampleParser& parser, nb::handle serialized) {
            std::vector<nb::object> keep;
            std::vector<std::string_view> views = BytesViews(serialized, &keep);
            Result<ParsedFeatures> parsed = [&] {
              nb::gil_scoped_release release;
              return parser.ParseBatch(
                  std::span<const std::string_view>(views));
            }();
            return ParsedToPython(ValueOrThrow(std::move(parsed)));
          },
          nb::arg("serialized"));

  nb::class_<SequenceExampleParser>(m, "SequenceExampleParser")
      .def(
          "__init__",
          [](SequenceExampleParser* self, nb::handle context,
             nb::handle sequence) {
            new (self) SequenceExampleParser(
                ValueOrThrow(SequenceExampleParser::Create(
                    SpecsFromPython(context), SpecsFromPython(sequence))));
          },
          nb::arg("context"), nb::arg("sequence"),
          "A parser of SequenceExamples: the context's and the feature "
          "lists' specs, each as ExampleParser's.")
      .def(
          "parse_single",
          [](const SequenceExampleParser& parser, nb::bytes serialized) {
            const std::string_view data(serialized.c_str(), serialized.size());
            Result<ParsedSequenceExample> parsed = [&] {
              nb::gil_scoped_release release;
              return parser.ParseSingle(data);
            }();
            const ParsedSequenceExample p = ValueOrThrow(std::move(parsed));
            // Per part: (dense keys, sparse keys, dense, sparse).
            auto part = [](const ParsedFeatures& f) {
              nb::tuple arrays = ParsedToPython(f);
              return nb::make_tuple(f.dense_keys(), f.sparse_keys(), arrays[0],
                                    arrays[1]);
            };
            return nb::make_tuple(part(p.context), part(p.sequence));
          },
          nb::arg("serialized"),
          "(context, feature lists), each (dense keys, sparse keys, dense "
          "arrays, (indices, values, dense_shape) per sparse key).");

  m.def(
      "_decode_raw",
      [](nb::handle value, nb::handle out_type, bool little_endian) {
        const DType dtype = DTypeFromPython(out_type);
        if (PyBytes_Check(value.ptr())) {
          char* data = nullptr;
          Py_ssize_t size = 0;
          PyBytes_AsStringAndSize(value.ptr(), &data, &size);
          Result<Tensor> t = [&] {
            nb::gil_scoped_release release;
            return DecodeRaw(std::string_view(data, size), dtype,
                             little_endian);
          }();
          return TensorToNumpy(ValueOrThrow(std::move(t)));
        }
        Tensor bytes = TensorFromPython(value, DType::kString);
        Result<Tensor> t = [&] {
          nb::gil_scoped_release release;
          return DecodeRaw(bytes, dtype, little_endian);
        }();
        return TensorToNumpy(ValueOrThrow(std::move(t)));
      },
      nb::arg("value"), nb::arg("out_type"), nb::arg("little_endian") = true);

  m.def(
      "_decode_raw_to_float",
      [](nb::handle value, float scale) {
        std::vector<nb::object> keep;
        const bool scalar = PyBytes_Check(value.ptr());
        std::vector<std::string_view> views = BytesViews(value, &keep);
        Result<Tensor> t = [&] {
          nb::gil_scoped_release release;
          return DecodeRawToFloat(std::span<const std::string_view>(views),
                                  scale);
        }();
        Tensor out = ValueOrThrow(std::move(t));
        if (scalar) out = ValueOrThrow(out.Reshape(out.shape().Slice(1)));
        return TensorToNumpy(out);
      },
      nb::arg("value"), nb::arg("scale") = 1.0f);
}

void BindParseSteps(nb::module_& m) {
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
}

}  // namespace inflow::py
