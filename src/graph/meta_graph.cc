// Copyright 2026 The inflow Authors.
//
// Field numbers are those of tensorflow/core/protobuf/meta_graph.proto and
// saver.proto.

#include "inflow/graph/meta_graph.h"

#include <cctype>
#include <limits>
#include <map>
#include <set>
#include <string_view>

#include "inflow/datafiles/pending_files.h"

#include "graph/graph_protos.h"
#include "graph/mlp_graph.h"
#include "graph/op_defs.h"
#include "proto/proto_message.h"

namespace inflow {
namespace {

using internal::NodeDef;
using internal::ProtoMessage;

// MetaGraphDef
constexpr int kMetaInfoDef = 1;
constexpr int kGraphDef = 2;
constexpr int kSaverDef = 3;
constexpr int kCollectionDef = 4;
// MetaGraphDef.MetaInfoDef
constexpr int kStrippedOpList = 2;
constexpr int kTags = 4;
constexpr int kTensorflowVersion = 5;
constexpr int kTensorflowGitVersion = 6;
// SaverDef
constexpr int kFilenameTensorName = 1;
constexpr int kSaveTensorName = 2;
constexpr int kRestoreOpName = 3;
constexpr int kMaxToKeep = 4;
constexpr int kKeepCheckpointEveryNHours = 6;
constexpr int kSaverVersion = 7;
constexpr int kSaverV2 = 2;
// CollectionDef, CollectionDef.BytesList, map entries
constexpr int kCollectionBytesList = 2;
constexpr int kBytesListValue = 1;
constexpr int kMapKey = 1;
constexpr int kMapValue = 2;

// TensorFlow's op name rule: [A-Za-z0-9.][A-Za-z0-9_.\-/>]*. Empty scopes
// ("a//b") and a trailing '/' are refused too: TensorFlow's name scopes
// never produce them.
bool ValidNodeName(std::string_view name) {
  if (name.empty()) return false;
  const auto c0 = static_cast<unsigned char>(name[0]);
  if (!std::isalnum(c0) && c0 != '.') return false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) &&
        std::string_view("_.-/>").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return name.back() != '/' && name.find("//") == std::string_view::npos;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// TensorFlow's graph compares names ignoring case when it picks unique
// ones, so a node "Save" would move the saver to "save_1".
bool InSaverScope(std::string_view name) {
  const std::string lower = Lower(name);
  return lower == "save" || lower.starts_with("save/");
}

Status CheckVariable(const GraphVariable& v, const std::string& where,
                     const TensorShape& expected) {
  if (v.shape != expected) {
    return InvalidArgumentError(where + " variable " + v.name + " has shape " +
                                v.shape.DebugString() + ", expected " +
                                expected.DebugString());
  }
  return OkStatus();
}

Status CheckDim(int64_t d, const std::string& what) {
  if (d < 1 || d > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError(what + " is " + std::to_string(d) +
                                ", expected 1 to 2147483647");
  }
  return OkStatus();
}

Status WriteWhole(Env& env, const std::string& path, std::string_view data,
                  bool sync) {
  PendingFiles pending(env);
  const std::string tmp = pending.Add(path);
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                          env.NewWritableFile(tmp));
  INFLOW_RETURN_IF_ERROR(file->Append(data));
  if (sync) INFLOW_RETURN_IF_ERROR(file->Sync());
  INFLOW_RETURN_IF_ERROR(file->Close());
  return pending.Commit();
}

}  // namespace

Status ValidateMlpGraph(const MlpGraph& graph) {
  if (graph.layers.empty())
    return InvalidArgumentError("MlpGraph has no layers");
  INFLOW_RETURN_IF_ERROR(CheckDim(graph.input_size, "input_size"));
  std::vector<std::string> given = {graph.input_name, graph.output_name};
  int64_t inputs = graph.input_size;
  for (size_t i = 0; i < graph.layers.size(); ++i) {
    const DenseLayer& layer = graph.layers[i];
    const std::string where =
        "layer " + std::to_string(i) + " (scope '" + layer.scope + "')";
    const TensorShape& w = layer.weights.shape;
    const int64_t units = w.rank() == 2 ? w.dim(1) : 0;
    INFLOW_RETURN_IF_ERROR(CheckDim(units, where + " weights' units"));
    INFLOW_RETURN_IF_ERROR(
        CheckVariable(layer.weights, where, {inputs, units}));
    INFLOW_RETURN_IF_ERROR(CheckVariable(layer.biases, where, {units}));
    given.insert(given.end(),
                 {layer.scope, layer.weights.name, layer.biases.name});
    inputs = units;
  }
  for (const std::string& name : given) {
    if (!ValidNodeName(name)) {
      return InvalidArgumentError(
          "'" + name +
          "' is not a valid TensorFlow node name "
          "([A-Za-z0-9.][A-Za-z0-9_.\\-/>]*, no empty scope)");
    }
    if (InSaverScope(name)) {
      return InvalidArgumentError("'" + name +
                                  "' is in the scope 'save', which the "
                                  "saver's nodes use");
    }
  }
  // Every node, derived names included, once (ignoring case, as
  // TensorFlow's unique names do).
  std::map<std::string, std::string> seen;
  for (const NodeDef& node : internal::BuildMlpGraph(graph).nodes) {
    const auto [it, inserted] = seen.emplace(Lower(node.name), node.name);
    if (!inserted) {
      return InvalidArgumentError("node name '" + node.name +
                                  "' is used twice (as '" + it->second +
                                  "'; names are compared ignoring case)");
    }
  }
  return OkStatus();
}

Result<MlpGraph> MlpGraphForVariables(
    std::span<const std::pair<std::string, Tensor*>> variables,
    float init_stddev) {
  if (variables.empty() || variables.size() % 2 != 0) {
    return InvalidArgumentError(
        "MlpGraphForVariables: expected weights and biases per layer, got " +
        std::to_string(variables.size()) + " variables");
  }
  MlpGraph graph;
  for (size_t i = 0; i < variables.size(); i += 2) {
    const auto& [w_name, w] = variables[i];
    const auto& [b_name, b] = variables[i + 1];
    if (w == nullptr || b == nullptr) {
      return InvalidArgumentError("MlpGraphForVariables: variable " +
                                  (w == nullptr ? w_name : b_name) +
                                  " has no tensor");
    }
    if (i == 0 && w->rank() == 2) graph.input_size = w->dim_size(0);
    DenseLayer layer;
    const size_t slash = w_name.rfind('/');
    layer.scope = slash == std::string::npos ? w_name : w_name.substr(0, slash);
    layer.weights = {w_name, w->shape(),
                     VariableInitializer::RandomNormal(0.0f, init_stddev)};
    layer.biases = {b_name, b->shape(), VariableInitializer::Zeros()};
    layer.relu = i + 2 < variables.size();
    graph.layers.push_back(std::move(layer));
  }
  INFLOW_RETURN_IF_ERROR(ValidateMlpGraph(graph));
  return graph;
}

Result<std::string> SerializeMetaGraph(const MlpGraph& graph,
                                       const MetaGraphOptions& options) {
  INFLOW_RETURN_IF_ERROR(ValidateMlpGraph(graph));
  const internal::MlpGraphNodes g = internal::BuildMlpGraph(graph);
  std::set<std::string> ops;
  for (const NodeDef& node : g.nodes) ops.insert(node.op);

  ProtoMessage meta;
  ProtoMessage& info = meta.AddMessage(kMetaInfoDef, "meta_info_def");
  INFLOW_ASSIGN_OR_RETURN(ProtoMessage op_list, internal::StrippedOpList(ops));
  info.AddMessage(kStrippedOpList, "stripped_op_list", std::move(op_list));
  for (const std::string& tag : options.tags) info.AddBytes(kTags, "tags", tag);
  if (!options.tensorflow_version.empty()) {
    info.AddBytes(kTensorflowVersion, "tensorflow_version",
                  options.tensorflow_version);
  }
  if (!options.tensorflow_git_version.empty()) {
    info.AddBytes(kTensorflowGitVersion, "tensorflow_git_version",
                  options.tensorflow_git_version);
  }

  meta.AddMessage(kGraphDef, "graph_def",
                  internal::GraphDefProto(g.nodes, kGraphDefProducer,
                                          /*with_output_shapes=*/true,
                                          internal::MapOrder::kBinary));

  ProtoMessage& saver = meta.AddMessage(kSaverDef, "saver_def");
  saver.AddBytes(kFilenameTensorName, "filename_tensor_name",
                 internal::kSaverFilenameTensor);
  saver.AddBytes(kSaveTensorName, "save_tensor_name",
                 internal::kSaverSaveTensor);
  saver.AddBytes(kRestoreOpName, "restore_op_name", internal::kSaverRestoreOp);
  if (options.max_to_keep != 0) {
    saver.AddInt(kMaxToKeep, "max_to_keep", options.max_to_keep);
  }
  if (options.keep_checkpoint_every_n_hours != 0.0f) {
    saver.AddFloat(kKeepCheckpointEveryNHours, "keep_checkpoint_every_n_hours",
                   options.keep_checkpoint_every_n_hours);
  }
  saver.AddEnum(kSaverVersion, "version", kSaverV2, "V2");

  // Map entries in key order: "trainable_variables" < "variables". Every
  // variable is trainable.
  for (const char* key : {"trainable_variables", "variables"}) {
    ProtoMessage& entry = meta.AddMessage(kCollectionDef, "collection_def");
    entry.AddBytes(kMapKey, "key", key);
    ProtoMessage& list = entry.AddMessage(kMapValue, "value")
                             .AddMessage(kCollectionBytesList, "bytes_list");
    for (const std::string& def : g.variable_defs) {
      list.AddBytes(kBytesListValue, "value", def);
    }
  }
  return meta.SerializeAsString();
}

Result<std::string> GraphDefText(const MlpGraph& graph) {
  INFLOW_RETURN_IF_ERROR(ValidateMlpGraph(graph));
  const internal::MlpGraphNodes g = internal::BuildMlpGraph(graph);
  return internal::GraphDefProto(g.nodes, kGraphDefProducer,
                                 /*with_output_shapes=*/false,
                                 internal::MapOrder::kText)
      .ToText();
}

Result<std::string> SerializeFrozenGraphDef(
    const MlpGraph& graph,
    std::span<const std::pair<std::string, Tensor*>> variables) {
  INFLOW_RETURN_IF_ERROR(ValidateMlpGraph(graph));
  std::map<std::string, const Tensor*> values;
  for (const auto& [name, tensor] : variables) values[name] = tensor;
  for (const DenseLayer& layer : graph.layers) {
    for (const GraphVariable* v : {&layer.weights, &layer.biases}) {
      auto it = values.find(v->name);
      if (it == values.end() || it->second == nullptr) {
        return InvalidArgumentError("frozen graph: no value for variable " +
                                    v->name);
      }
      if (it->second->dtype() != DType::kFloat32 ||
          it->second->shape() != v->shape) {
        return InvalidArgumentError(
            "frozen graph: variable " + v->name + " is float32 " +
            v->shape.DebugString() + ", its value " +
            std::string(DTypeName(it->second->dtype())) + " " +
            it->second->shape().DebugString());
      }
    }
  }
  const std::vector<NodeDef> nodes =
      internal::BuildFrozenMlpGraph(graph, values);
  return internal::GraphDefProto(nodes, kGraphDefProducer,
                                 /*with_output_shapes=*/false,
                                 internal::MapOrder::kBinary)
      .SerializeAsString();
}

Status WriteFrozenGraph(
    const MlpGraph& graph,
    std::span<const std::pair<std::string, Tensor*>> variables,
    const std::string& path, const MetaGraphOptions& options) {
  Result<std::string> bytes = SerializeFrozenGraphDef(graph, variables);
  if (!bytes.ok()) return bytes.status().WithContext("frozen graph " + path);
  return WriteWhole(*options.env, path, *bytes, options.sync)
      .WithContext("writing frozen graph " + path);
}

Status WriteMetaGraph(const MlpGraph& graph,
                      const std::string& checkpoint_prefix,
                      const MetaGraphOptions& options) {
  const std::string path = checkpoint_prefix + ".meta";
  Result<std::string> bytes = SerializeMetaGraph(graph, options);
  if (!bytes.ok()) return bytes.status().WithContext("meta graph " + path);
  return WriteWhole(*options.env, path, *bytes, options.sync)
      .WithContext("writing meta graph " + path);
}

Status WriteGraphText(const MlpGraph& graph, const std::string& path,
                      const MetaGraphOptions& options) {
  Result<std::string> text = GraphDefText(graph);
  if (!text.ok()) return text.status().WithContext("graph " + path);
  return WriteWhole(*options.env, path, *text, options.sync)
      .WithContext("writing graph " + path);
}

}  // namespace inflow
