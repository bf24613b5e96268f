// Copyright 2026 The inflow Authors.
//
// The OpDefs of the TensorFlow ops the model graphs use, as TensorFlow's op
// registry holds them with the documentation stripped: what a MetaGraphDef's
// meta_info_def.stripped_op_list carries, so that TensorFlow can check the
// graph against its own registry when it imports it.
//
// Free functions; thread-safe.

#ifndef INFLOW_GRAPH_OP_DEFS_H_
#define INFLOW_GRAPH_OP_DEFS_H_

#include <set>
#include <string>

#include "inflow/core/result.h"

#include "proto/proto_message.h"

namespace inflow::internal {

// An OpList with one OpDef per name, in name order (a std::set's). The ops
// defined: Add, AddV2, Assign, Const, Fill, Identity, MatMul, Mul, NoOp,
// Placeholder, PlaceholderWithDefault, RandomStandardNormal, Relu,
// RestoreV2, SaveV2, Softmax, VariableV2; INTERNAL for any other.
Result<ProtoMessage> StrippedOpList(const std::set<std::string>& ops);

}  // namespace inflow::internal

#endif  // INFLOW_GRAPH_OP_DEFS_H_
