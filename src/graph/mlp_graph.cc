// Copyright 2026 The inflow Authors.
//
// Names, attrs and order follow what TensorFlow 2.18's tf.compat.v1 graph
// builder produces for the program in inflow/graph/meta_graph.h; the
// comments name the Python call each group of nodes comes from.

#include "graph/mlp_graph.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "proto/proto_message.h"

namespace inflow::internal {
namespace {

// VariableDef (tensorflow/core/framework/variable.proto)
constexpr int kVarName = 1;
constexpr int kVarInitializerName = 2;
constexpr int kVarSnapshotName = 3;
constexpr int kVarInitialValueName = 6;
constexpr int kVarTrainable = 7;

// array_ops.zeros makes a Const below this many elements, a Fill above.
constexpr int64_t kZerosConstLimit = 1000;
constexpr char kCpu[] = "/device:CPU:0";

class GraphBuilder {
 public:
  NodeDef& Add(std::string name, std::string op,
               std::vector<std::string> inputs,
               std::vector<PartialShape> output_shapes) {
    NodeDef node;
    node.name = std::move(name);
    node.op = std::move(op);
    node.inputs = std::move(inputs);
    node.output_shapes = std::move(output_shapes);
    nodes_.push_back(std::move(node));
    return nodes_.back();
  }

  // A Const node: value, dtype and (for a variable's initializer) _class.
  NodeDef& Const(std::string name, ProtoMessage value, int dtype,
                 PartialShape shape) {
    NodeDef& node = Add(std::move(name), "Const", {}, {std::move(shape)});
    node.attrs["value"] = TensorAttr(std::move(value));
    node.attrs["dtype"] = TypeAttr(dtype);
    return node;
  }

  std::vector<NodeDef> Take() {
    return std::vector<NodeDef>(std::make_move_iterator(nodes_.begin()),
                                std::make_move_iterator(nodes_.end()));
  }

 private:
  std::deque<NodeDef> nodes_;  // references stay valid across Add()
};

void Colocate(NodeDef& node, const std::string& with) {
  node.attrs["_class"] =
      StringListAttr(std::vector<std::string>{"loc:@" + with});
}

// get_variable(name, shape, initializer=...): the initializer's nodes under
// NAME/Initializer/, the VariableV2, its Assign and its read. Returns the
// serialized VariableDef.
std::string AddVariable(GraphBuilder& g, const GraphVariable& v) {
  const std::string& name = v.name;
  const TensorShape& shape = v.shape;
  const std::string init_scope = name + "/Initializer/";
  std::string initial_value;
  if (v.initializer.kind == VariableInitializer::Kind::kRandomNormal) {
    // random_normal_initializer(mean, stddev): RandomStandardNormal * stddev
    // + mean.
    const std::string scope = init_scope + "random_normal";
    const PartialShape scalar(std::vector<int64_t>{});
    Colocate(g.Const(scope + "/shape", Int32VectorTensor(shape.dims()),
                     kDtInt32, PartialShape({shape.rank()})),
             name);
    Colocate(g.Const(scope + "/mean", FloatFillTensor({}, v.initializer.mean),
                     kDtFloat, scalar),
             name);
    Colocate(
        g.Const(scope + "/stddev", FloatFillTensor({}, v.initializer.stddev),
                kDtFloat, scalar),
        name);
    NodeDef& normal =
        g.Add(scope + "/RandomStandardNormal", "RandomStandardNormal",
              {scope + "/shape"}, {shape});
    normal.attrs["seed"] = IntAttr(0);
    normal.attrs["seed2"] = IntAttr(0);
    normal.attrs["dtype"] = TypeAttr(kDtFloat);
    normal.attrs["T"] = TypeAttr(kDtInt32);
    Colocate(normal, name);
    NodeDef& mul =
        g.Add(scope + "/mul", "Mul",
              {scope + "/RandomStandardNormal", scope + "/stddev"}, {shape});
    mul.attrs["T"] = TypeAttr(kDtFloat);
    Colocate(mul, name);
    NodeDef& add =
        g.Add(scope, "AddV2", {scope + "/mul", scope + "/mean"}, {shape});
    add.attrs["T"] = TypeAttr(kDtFloat);
    Colocate(add, name);
    initial_value = scope;
  } else if (shape.num_elements() < kZerosConstLimit) {
    // zeros_initializer: a Const holding one 0 broadcast to the shape.
    initial_value = init_scope + "zeros";
    Colocate(
        g.Const(initial_value, FloatFillTensor(shape, 0.0f), kDtFloat, shape),
        name);
  } else {
    // zeros_initializer on a large shape: Fill(shape_as_tensor, 0).
    initial_value = init_scope + "zeros";
    Colocate(g.Const(initial_value + "/shape_as_tensor",
                     Int32VectorTensor(shape.dims()), kDtInt32,
                     PartialShape({shape.rank()})),
             name);
    Colocate(g.Const(initial_value + "/Const", FloatFillTensor({}, 0.0f),
                     kDtFloat, PartialShape(std::vector<int64_t>{})),
             name);
    NodeDef& fill =
        g.Add(initial_value, "Fill",
              {initial_value + "/shape_as_tensor", initial_value + "/Const"},
              {shape});
    fill.attrs["T"] = TypeAttr(kDtFloat);
    fill.attrs["index_type"] = TypeAttr(kDtInt32);
    Colocate(fill, name);
  }

  NodeDef& var = g.Add(name, "VariableV2", {}, {shape});
  var.attrs["shape"] = ShapeAttr(shape);
  var.attrs["dtype"] = TypeAttr(kDtFloat);
  var.attrs["container"] = StringAttr("");
  var.attrs["shared_name"] = StringAttr("");
  Colocate(var, name);
  NodeDef& assign =
      g.Add(name + "/Assign", "Assign", {name, initial_value}, {shape});
  assign.attrs["use_locking"] = BoolAttr(true);
  assign.attrs["validate_shape"] = BoolAttr(true);
  assign.attrs["T"] = TypeAttr(kDtFloat);
  Colocate(assign, name);
  NodeDef& read = g.Add(name + "/read", "Identity", {name}, {shape});
  read.attrs["T"] = TypeAttr(kDtFloat);
  Colocate(read, name);

  ProtoMessage def;
  def.AddBytes(kVarName, "variable_name", name + ":0");
  def.AddBytes(kVarInitializerName, "initializer_name", name + "/Assign");
  def.AddBytes(kVarSnapshotName, "snapshot_name", name + "/read:0");
  def.AddBytes(kVarInitialValueName, "initial_value_name",
               initial_value + ":0");
  def.AddBool(kVarTrainable, "trainable", true);
  return def.SerializeAsString();
}

// tf.compat.v1.train.Saver(): the filename input, SaveV2 with the
// variables in name order, and RestoreV2 with one Assign per variable.
void AddSaver(GraphBuilder& g, std::vector<const GraphVariable*> vars) {
  std::sort(vars.begin(), vars.end(),
            [](const GraphVariable* a, const GraphVariable* b) {
              return a->name < b->name;
            });
  std::vector<std::string> names;
  for (const GraphVariable* v : vars) names.push_back(v->name);
  const std::vector<std::string> slices(names.size(), "");
  const std::vector<int> dtypes(names.size(), kDtFloat);
  const PartialShape scalar(std::vector<int64_t>{});
  const PartialShape count({static_cast<int64_t>(names.size())});

  g.Const("save/filename/input", StringScalarTensor("model"), kDtString,
          scalar);
  for (const auto& [name, input] :
       {std::pair{"save/filename", "save/filename/input"},
        std::pair{"save/Const", "save/filename"}}) {
    NodeDef& p = g.Add(name, "PlaceholderWithDefault", {input}, {scalar});
    p.attrs["shape"] = ShapeAttr(scalar);
    p.attrs["dtype"] = TypeAttr(kDtString);
  }

  g.Const("save/SaveV2/tensor_names", StringVectorTensor(names), kDtString,
          count);
  g.Const("save/SaveV2/shape_and_slices", StringVectorTensor(slices), kDtString,
          count);
  std::vector<std::string> save_inputs = {
      "save/Const", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices"};
  save_inputs.insert(save_inputs.end(), names.begin(), names.end());
  NodeDef& save = g.Add("save/SaveV2", "SaveV2", std::move(save_inputs), {});
  save.attrs["dtypes"] = TypeListAttr(dtypes);
  save.attrs["_has_manual_control_dependencies"] = BoolAttr(true);
  NodeDef& dep = g.Add("save/control_dependency", "Identity",
                       {"save/Const", "^save/SaveV2"}, {scalar});
  dep.attrs["T"] = TypeAttr(kDtString);
  Colocate(dep, "save/Const");

  g.Const("save/RestoreV2/tensor_names", StringVectorTensor(names), kDtString,
          count)
      .device = kCpu;
  g.Const("save/RestoreV2/shape_and_slices", StringVectorTensor(slices),
          kDtString, count)
      .device = kCpu;
  NodeDef& restore =
      g.Add("save/RestoreV2", "RestoreV2",
            {"save/Const", "save/RestoreV2/tensor_names",
             "save/RestoreV2/shape_and_slices"},
            std::vector<PartialShape>(names.size(), PartialShape()));
  restore.device = kCpu;
  restore.attrs["dtypes"] = TypeListAttr(dtypes);

  std::vector<std::string> assigns;
  for (size_t k = 0; k < vars.size(); ++k) {
    const std::string suffix = k == 0 ? "" : "_" + std::to_string(k);
    const std::string output =
        k == 0 ? "save/RestoreV2" : "save/RestoreV2:" + std::to_string(k);
    NodeDef& assign = g.Add("save/Assign" + suffix, "Assign",
                            {vars[k]->name, output}, {vars[k]->shape});
    assign.attrs["use_locking"] = BoolAttr(true);
    assign.attrs["validate_shape"] = BoolAttr(true);
    assign.attrs["T"] = TypeAttr(kDtFloat);
    assign.attrs["_has_manual_control_dependencies"] = BoolAttr(true);
    Colocate(assign, vars[k]->name);
    assigns.push_back("^save/Assign" + suffix);
  }
  g.Add(kSaverRestoreOp, "NoOp", std::move(assigns), {});
}

// A dense layer over `h` (its MatMul, Add and, when it has one, Relu, as
// tf.matmul, tf.raw_ops.Add and tf.nn.relu under its name scope); its
// output's name. `grad_attrs`: MatMul's grad_a / grad_b, as TF's own
// graphs carry them.
std::string AddDenseLayer(GraphBuilder& g, const DenseLayer& layer,
                          const std::string& h, bool grad_attrs) {
  const int64_t units =
      layer.biases.shape.dims().empty() ? 0 : layer.biases.shape.dim(0);
  const PartialShape batch({-1, units});
  NodeDef& matmul = g.Add(layer.scope + "/MatMul", "MatMul",
                          {h, layer.weights.name + "/read"}, {batch});
  matmul.attrs["transpose_a"] = BoolAttr(false);
  matmul.attrs["transpose_b"] = BoolAttr(false);
  if (grad_attrs) {
    matmul.attrs["grad_a"] = BoolAttr(false);
    matmul.attrs["grad_b"] = BoolAttr(false);
  }
  matmul.attrs["T"] = TypeAttr(kDtFloat);
  NodeDef& add =
      g.Add(layer.scope + "/Add", "Add",
            {layer.scope + "/MatMul", layer.biases.name + "/read"}, {batch});
  add.attrs["T"] = TypeAttr(kDtFloat);
  if (!layer.relu) return layer.scope + "/Add";
  NodeDef& relu =
      g.Add(layer.scope + "/Relu", "Relu", {layer.scope + "/Add"}, {batch});
  relu.attrs["T"] = TypeAttr(kDtFloat);
  return layer.scope + "/Relu";
}

}  // namespace

MlpGraphNodes BuildMlpGraph(const MlpGraph& graph) {
  GraphBuilder g;
  MlpGraphNodes out;
  NodeDef& x = g.Add(graph.input_name, "Placeholder", {},
                     {PartialShape({-1, graph.input_size})});
  x.attrs["dtype"] = TypeAttr(kDtFloat);
  x.attrs["shape"] = ShapeAttr(PartialShape({-1, graph.input_size}));

  std::string h = graph.input_name;
  std::vector<const GraphVariable*> vars;
  for (const DenseLayer& layer : graph.layers) {
    out.variable_defs.push_back(AddVariable(g, layer.weights));
    out.variable_defs.push_back(AddVariable(g, layer.biases));
    vars.push_back(&layer.weights);
    vars.push_back(&layer.biases);
    h = AddDenseLayer(g, layer, h, /*grad_attrs=*/true);
  }
  const int64_t classes =
      graph.layers.empty() || graph.layers.back().biases.shape.dims().empty()
          ? 0
          : graph.layers.back().biases.shape.dim(0);
  NodeDef& softmax =
      g.Add(graph.output_name, "Softmax", {h}, {PartialShape({-1, classes})});
  softmax.attrs["T"] = TypeAttr(kDtFloat);

  AddSaver(g, std::move(vars));
  out.nodes = g.Take();
  return out;
}

std::vector<NodeDef> BuildFrozenMlpGraph(
    const MlpGraph& graph, const std::map<std::string, const Tensor*>& values) {
  GraphBuilder g;
  NodeDef& x = g.Add(graph.input_name, "Placeholder", {},
                     {PartialShape({-1, graph.input_size})});
  x.attrs["dtype"] = TypeAttr(kDtFloat);
  x.attrs["shape"] = ShapeAttr(PartialShape({-1, graph.input_size}));
  const auto constant = [&](const GraphVariable& v) {
    g.Const(v.name, FloatTensor(*values.at(v.name)), kDtFloat, v.shape);
    NodeDef& read = g.Add(v.name + "/read", "Identity", {v.name}, {v.shape});
    read.attrs["T"] = TypeAttr(kDtFloat);
  };
  std::string h = graph.input_name;
  int64_t units = 0;
  for (const DenseLayer& layer : graph.layers) {
    constant(layer.weights);
    constant(layer.biases);
    units = layer.biases.shape.dims().empty() ? 0 : layer.biases.shape.dim(0);
    h = AddDenseLayer(g, layer, h, /*grad_attrs=*/false);
  }
  NodeDef& softmax =
      g.Add(graph.output_name, "Softmax", {h}, {PartialShape({-1, units})});
  softmax.attrs["T"] = TypeAttr(kDtFloat);
  return g.Take();
}

}  // namespace inflow::internal
