// Copyright 2026 The inflow Authors.
//
// The nodes of an MlpGraph (inflow/graph/meta_graph.h) in the order
// TensorFlow 1's graph mode creates them, with the attrs it gives them:
// the placeholder; per layer the weights' and biases' initializer,
// VariableV2, Assign and read (Identity) nodes, then MatMul, Add and Relu;
// the softmax; then tf.compat.v1.train.Saver's save/restore subgraph over
// the variables in name order. Also each variable's VariableDef, for the
// "variables" and "trainable_variables" collections.
//
// Free functions; thread-safe.

#ifndef INFLOW_GRAPH_MLP_GRAPH_H_
#define INFLOW_GRAPH_MLP_GRAPH_H_

#include <map>
#include <string>
#include <vector>

#include "inflow/graph/meta_graph.h"

#include "graph/graph_protos.h"

namespace inflow::internal {

// The saver's fixed names (SaverDef).
inline constexpr char kSaverFilenameTensor[] = "save/Const:0";
inline constexpr char kSaverSaveTensor[] = "save/control_dependency:0";
inline constexpr char kSaverRestoreOp[] = "save/restore_all";

struct MlpGraphNodes {
  std::vector<NodeDef> nodes;
  // Serialized VariableDefs, in creation order (weights, biases per layer).
  std::vector<std::string> variable_defs;
};

// Builds the nodes without checking the description: call
// ValidateMlpGraph() first (it builds them too, to check the names).
MlpGraphNodes BuildMlpGraph(const MlpGraph& graph);

// The frozen graph's nodes (what TF's convert_variables_to_constants
// leaves for the softmax): the placeholder; per layer each variable as a
// Const of its value (same name) read through its "/read" Identity, then
// MatMul, Add and Relu; the softmax. `values` holds each variable's value
// by name, of its shape (the caller checks).
std::vector<NodeDef> BuildFrozenMlpGraph(
    const MlpGraph& graph, const std::map<std::string, const Tensor*>& values);

}  // namespace inflow::internal

#endif  // INFLOW_GRAPH_MLP_GRAPH_H_
