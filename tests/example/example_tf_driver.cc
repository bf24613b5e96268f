// Copyright 2026 The inflow Authors.
//
// A driver for tests/py/test_example_vs_tf.py: reads a JSON list of cases
// on stdin, parses each with inflow, and prints a JSON list of results, so
// that pytest can hold them against tf.io.parse_single_example,
// parse_example and parse_single_sequence_example.
//
// Case: {"mode": "single" | "batch" | "sequence",
//        "features": [Spec...]            (single, batch)
//        "context": [Spec...], "sequence": [Spec...]   (sequence)
//        "serialized": ["<base64>", ...]}
// Spec: {"key": K, "type": "fixed" | "var" | "seq", "dtype": "float32" |
//        "int64" | "string", "shape": [..], "allow_missing": bool,
//        "default": [values] (flat; strings base64) or absent}
// Result: {"ok": true, "dense": {K: Tensor}, "sparse": {K: {"indices":
//          Tensor, "values": Tensor, "dense_shape": Tensor}}} (sequence:
//          "context" and "sequence", each with dense and sparse), or
//          {"ok": false, "code": "INVALID_ARGUMENT", "message": ...}.
// Tensor: {"dtype": D, "shape": [..], "values": [..]}: floats as their
// uint32 bit patterns, strings as base64.

#include <cstdint>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "inflow/example/example_json.h"
#include "inflow/example/example_parser.h"

namespace inflow {
namespace {

using json = nlohmann::json;

// The cases come from Python's base64.b64encode: standard base64.
std::string Unbase64(const std::string& text) {
  Result<std::string> bytes = Base64Decode(text);
  if (!bytes.ok()) throw std::invalid_argument(bytes.status().ToString());
  return *std::move(bytes);
}

Result<FeatureSpecs> Specs(const json& list) {
  FeatureSpecs specs;
  for (const json& s : list) {
    const std::string key = Unbase64(s["key"].get<std::string>());
    const std::optional<DType> dtype =
        DTypeFromName(s["dtype"].get<std::string>());
    if (!dtype) return InvalidArgumentError("bad dtype");
    std::vector<int64_t> dims;
    if (s.contains("shape")) dims = s["shape"].get<std::vector<int64_t>>();
    std::optional<Tensor> dflt;
    if (s.contains("default")) {
      const json& d = s["default"];
      const auto n = static_cast<int64_t>(d.size());
      if (*dtype == DType::kString) {
        std::vector<std::string> v;
        for (const json& x : d) v.push_back(Unbase64(x.get<std::string>()));
        INFLOW_ASSIGN_OR_RETURN(dflt, Tensor::FromVector(v, TensorShape({n})));
      } else if (*dtype == DType::kInt64) {
        dflt = Tensor::FromVector(d.get<std::vector<int64_t>>());
      } else {
        dflt = Tensor::FromVector(d.get<std::vector<float>>());
      }
    }
    const std::string type = s["type"];
    if (type == "fixed") {
      specs.emplace_back(key, FixedLenFeature(TensorShape(dims), *dtype, dflt));
    } else if (type == "var") {
      specs.emplace_back(key, VarLenFeature(*dtype));
    } else {
      specs.emplace_back(
          key, FixedLenSequenceFeature(TensorShape(dims), *dtype,
                                       s.value("allow_missing", false), dflt));
    }
  }
  return specs;
}

json TensorJson(const Tensor& t) {
  json out;
  out["dtype"] = std::string(DTypeName(t.dtype()));
  out["shape"] = t.shape().dims();
  json values = json::array();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (t.dtype()) {
      case DType::kFloat32: {
        uint32_t bits;
        std::memcpy(&bits, t.data<float>() + i, 4);
        values.push_back(bits);
        break;
      }
      case DType::kInt64:
        values.push_back(t.data<int64_t>()[i]);
        break;
      default:
        values.push_back(Base64Encode(t.data<std::string>()[i]));
        break;
    }
  }
  out["values"] = values;
  return out;
}

json FeaturesJson(const ParsedFeatures& f) {
  json out;
  out["dense"] = json::object();
  out["sparse"] = json::object();
  for (size_t i = 0; i < f.dense.size(); ++i) {
    out["dense"][Base64Encode(f.dense_keys()[i])] = TensorJson(f.dense[i]);
  }
  for (size_t i = 0; i < f.sparse.size(); ++i) {
    out["sparse"][Base64Encode(f.sparse_keys()[i])] = {
        {"indices", TensorJson(f.sparse[i].indices)},
        {"values", TensorJson(f.sparse[i].values)},
        {"dense_shape", TensorJson(f.sparse[i].dense_shape)}};
  }
  return out;
}

json Error(const Status& s) {
  return {{"ok", false},
          {"code", std::string(StatusCodeName(s.code()))},
          {"message", std::string(s.message())}};
}

json RunCase(const json& c) {
  std::vector<std::string> serialized;
  for (const json& s : c["serialized"]) {
    serialized.push_back(Unbase64(s.get<std::string>()));
  }
  const std::string mode = c["mode"];
  if (mode == "sequence") {
    Result<FeatureSpecs> context = Specs(c["context"]);
    Result<FeatureSpecs> sequence = Specs(c["sequence"]);
    if (!context.ok()) return Error(context.status());
    if (!sequence.ok()) return Error(sequence.status());
    Result<SequenceExampleParser> parser =
        SequenceExampleParser::Create(*context, *sequence);
    if (!parser.ok()) return Error(parser.status());
    Result<ParsedSequenceExample> r = parser->ParseSingle(serialized.at(0));
    if (!r.ok()) return Error(r.status());
    return {{"ok", true},
            {"context", FeaturesJson(r->context)},
            {"sequence", FeaturesJson(r->sequence)}};
  }
  Result<FeatureSpecs> specs = Specs(c["features"]);
  if (!specs.ok()) return Error(specs.status());
  Result<ExampleParser> parser = ExampleParser::Create(*specs);
  if (!parser.ok()) return Error(parser.status());
  Result<ParsedFeatures> r = mode == "single"
                                 ? parser->ParseSingle(serialized.at(0))
                                 : parser->ParseBatch(serialized);
  if (!r.ok()) return Error(r.status());
  json out = FeaturesJson(*r);
  out["ok"] = true;
  return out;
}

}  // namespace
}  // namespace inflow

int main() {
  const nlohmann::json cases = nlohmann::json::parse(std::cin);
  nlohmann::json results = nlohmann::json::array();
  for (const nlohmann::json& c : cases) results.push_back(inflow::RunCase(c));
  std::cout << results.dump() << "\n";
  return 0;
}
