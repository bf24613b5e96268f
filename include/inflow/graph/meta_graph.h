// Copyright 2026 The inflow Authors.
//
// A model TensorFlow can load: the inference graph of a multilayer
// perceptron as a MetaGraphDef (`<prefix>.meta`, beside the checkpoint
// `<prefix>`) and as a text GraphDef (`graph.pbtxt`), written as
// TensorFlow 1's graph mode builds and exports the same model
// (docs/formats.md, "Model graphs"):
//
//   x = tf.compat.v1.placeholder(tf.float32, [None, 784], name="x")
//   for each layer:  w = get_variable(weights.name, initializer=...)
//                    b = get_variable(biases.name, initializer=...)
//                    with name_scope(scope): h = Add(MatMul(h, w), b)
//                                            [h = Relu(h)]
//   predictions = tf.nn.softmax(h, name="predictions")
//   saver = tf.compat.v1.train.Saver(max_to_keep=5)
//   saver.export_meta_graph(prefix + ".meta")
//   tf.io.write_graph(graph, dir, "graph.pbtxt", as_text=True)
//
// so that
//
//   saver = tf.compat.v1.train.import_meta_graph(prefix + ".meta")
//   saver.restore(sess, prefix)
//   sess.run("predictions:0", {"x:0": images})
//
// computes the model's predictions from a checkpoint holding the variables
// under the same names (other tensors in the checkpoint are ignored). The
// writer knows no variable names of its own; the caller passes them.
//
// Functions; thread-safe (each call uses only its arguments).

#ifndef INFLOW_GRAPH_META_GRAPH_H_
#define INFLOW_GRAPH_META_GRAPH_H_

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/io/env.h"

namespace inflow {

// How a variable's initial value is computed when the imported graph runs
// its initializers (tf.compat.v1.global_variables_initializer()); a
// restore does not use it. As TF1's zeros_initializer and
// random_normal_initializer(mean, stddev) build it (seed 0).
struct VariableInitializer {
  enum class Kind { kZeros, kRandomNormal };
  Kind kind = Kind::kZeros;
  float mean = 0.0f;
  float stddev = 1.0f;

  static VariableInitializer Zeros() { return {}; }
  static VariableInitializer RandomNormal(float mean, float stddev) {
    return {Kind::kRandomNormal, mean, stddev};
  }
};

// A float32 VariableV2 node. `name` is the node name and the checkpoint
// key ("layer1/weights").
struct GraphVariable {
  std::string name;
  TensorShape shape;
  VariableInitializer initializer;
};

// One dense layer: h = h @ weights + biases, then ReLU if `relu`. Its ops
// are named `scope`/MatMul, `scope`/Add and `scope`/Relu.
struct DenseLayer {
  std::string scope;
  GraphVariable weights;  // [inputs, units]
  GraphVariable biases;   // [units]
  bool relu = true;
};

// The model: a float32 placeholder [?, input_size] named `input_name`, the
// layers in order, and `output_name` = softmax of the last layer's output,
// float32 [?, units of the last layer].
struct MlpGraph {
  std::string input_name = "x";
  int64_t input_size = 784;
  std::vector<DenseLayer> layers;
  std::string output_name = "predictions";
};

// The MlpGraph of a model given by its variables in order, each layer's
// weights [inputs, units] then its biases [units], as Mlp::variables()
// lists them: the names and shapes are the variables', a layer's scope is
// its weights' name up to the last '/' ("layer1" for "layer1/weights"; the
// whole name when it has none), every layer but the last has ReLU, weights
// start as N(0, init_stddev) and biases as zeros. INVALID_ARGUMENT for an
// odd or zero count, a null tensor, or what ValidateMlpGraph refuses.
[[nodiscard]] Result<MlpGraph> MlpGraphForVariables(
    std::span<const std::pair<std::string, Tensor*>> variables,
    float init_stddev);

// The TensorFlow release whose graphs these files reproduce: its version
// strings go into meta_info_def and its graph version (GraphDef producer)
// into versions.
inline constexpr char kTensorFlowVersion[] = "2.18.1";
inline constexpr char kTensorFlowGitVersion[] = "v2.18.0-14-gcb64295ec73";
inline constexpr int kGraphDefProducer = 1994;

struct MetaGraphOptions {
  // The SaverDef's retention, as tf.compat.v1.train.Saver's arguments
  // (TensorFlow's defaults: 5 and 10000 hours).
  int max_to_keep = 5;
  float keep_checkpoint_every_n_hours = 10000.0f;
  // meta_info_def.tags. Saver.export_meta_graph writes none; SavedModel
  // loaders look for "serve".
  std::vector<std::string> tags;
  std::string tensorflow_version = kTensorFlowVersion;
  std::string tensorflow_git_version = kTensorFlowGitVersion;
  Env* env = &Env::Default();
  // Sync the file before the rename that publishes it, and its directory
  // after. Off only in tests that measure bytes.
  bool sync = true;
};

// OK when `graph` describes a model these functions can write; otherwise
// INVALID_ARGUMENT naming the layer, variable or node at fault: no layers,
// a node name TensorFlow rejects (it must match
// [A-Za-z0-9.][A-Za-z0-9_.\-/>]*) or one used twice (including the nodes
// derived from the names, and names under "save", which the saver's nodes
// use), a weights shape that is not [inputs of the layer, units] or a
// biases shape that is not [units], or a dimension outside 1..2^31-1.
[[nodiscard]] Status ValidateMlpGraph(const MlpGraph& graph);

// The serialized MetaGraphDef: meta_info_def (stripped_op_list, tags,
// versions), graph_def (the model, its initializers and the saver's
// save/restore subgraph), saver_def (V2) and the "variables" and
// "trainable_variables" collections. Byte for byte what TensorFlow writes
// for the same graph, with the default options.
[[nodiscard]] Result<std::string> SerializeMetaGraph(
    const MlpGraph& graph, const MetaGraphOptions& options = {});

// The same graph_def in protobuf text format, as tf.io.write_graph(...,
// as_text=True) writes it (without the `_output_shapes` attrs that only
// the MetaGraphDef export adds).
[[nodiscard]] Result<std::string> GraphDefText(const MlpGraph& graph);

// Writes SerializeMetaGraph() to `checkpoint_prefix` + ".meta". The file
// is written under a temporary name in the same directory and renamed into
// place, so the final name only ever holds a whole file. Errors name the
// file: INVALID_ARGUMENT from ValidateMlpGraph, or the Env's error (a
// missing directory is NOT_FOUND; the directory is not created).
[[nodiscard]] Status WriteMetaGraph(const MlpGraph& graph,
                                    const std::string& checkpoint_prefix,
                                    const MetaGraphOptions& options = {});

// The model as one binary GraphDef with its weights as constants (a frozen
// graph, as tf.io.write_graph(as_text=False) writes what TF's
// convert_variables_to_constants gives): the placeholder input_name [?,
// input_size], per layer MatMul, Add and Relu over Const nodes named as the
// variables (each read through its "/read" Identity), and the softmax
// output_name. tf.compat.v1.import_graph_def loads it; no checkpoint is
// needed. `variables` gives each variable's value by name (the Mlp's
// variables(); others are ignored). INVALID_ARGUMENT from ValidateMlpGraph,
// and for a variable missing from `variables` or of another dtype or shape.
[[nodiscard]] Result<std::string> SerializeFrozenGraphDef(
    const MlpGraph& graph,
    std::span<const std::pair<std::string, Tensor*>> variables);

// Writes SerializeFrozenGraphDef() to `path` (usually DIR/frozen_graph.pb),
// as WriteMetaGraph writes.
[[nodiscard]] Status WriteFrozenGraph(
    const MlpGraph& graph,
    std::span<const std::pair<std::string, Tensor*>> variables,
    const std::string& path, const MetaGraphOptions& options = {});

// Writes GraphDefText() to `path` (usually DIR/graph.pbtxt), the same way.
[[nodiscard]] Status WriteGraphText(const MlpGraph& graph,
                                    const std::string& path,
                                    const MetaGraphOptions& options = {});

}  // namespace inflow

#endif  // INFLOW_GRAPH_META_GRAPH_H_
