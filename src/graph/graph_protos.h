// Copyright 2026 The inflow Authors.
//
// Builders for the TensorFlow graph messages the model files hold
// (docs/formats.md, "Model graphs"): AttrValue, TensorProto, NodeDef and
// GraphDef (TensorShapeProto and VersionDef are proto/tf_schema.h's), as
// ProtoMessage trees with TensorFlow's field numbers and names, filled as
// TensorFlow's Python graph builder fills them (which TensorProto fields a
// constant uses, which attrs a node has).
//
// Values and free functions; thread-compatible.

#ifndef INFLOW_GRAPH_GRAPH_PROTOS_H_
#define INFLOW_GRAPH_GRAPH_PROTOS_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

#include "proto/proto_message.h"
#include "proto/tf_schema.h"  // TfType, ShapeProto, VersionDefProto

namespace inflow::internal {

// TensorProtos as tf.constant / make_tensor_proto builds them.
// A float32 tensor of `shape` whose every element is `value`, stored once
// (float_val), as a scalar broadcast to a shape is stored.
ProtoMessage FloatFillTensor(const TensorShape& shape, float value);
// A float32 tensor's values as tf.constant stores a large array: dtype,
// shape and tensor_content (little-endian bytes, row-major).
ProtoMessage FloatTensor(const Tensor& value);
// An int32 vector: tensor_content (little-endian bytes) when it has more
// than one element, int_val for one.
ProtoMessage Int32VectorTensor(std::span<const int64_t> values);
// A string scalar.
ProtoMessage StringScalarTensor(std::string_view value);
// A string vector, one string_val per element.
ProtoMessage StringVectorTensor(std::span<const std::string> values);

// AttrValues.
ProtoMessage TypeAttr(int type);
ProtoMessage TypeListAttr(std::span<const int> types);
ProtoMessage ShapeAttr(const PartialShape& shape);
ProtoMessage ShapeListAttr(std::span<const PartialShape> shapes);
ProtoMessage BoolAttr(bool value);
ProtoMessage IntAttr(int64_t value);
ProtoMessage StringAttr(std::string_view value);
ProtoMessage StringListAttr(std::span<const std::string> values);
ProtoMessage TensorAttr(ProtoMessage tensor);

// The order in which a NodeDef's attr map is written. Both start from
// bytewise key order. Python's text_format prints exactly that; the binary
// form TensorFlow 2.18 writes from Python (upb's deterministic
// serialization) puts a key after every key it is a proper prefix of
// ("seed2" before "seed").
enum class MapOrder { kText, kBinary };

// True when `a` comes before `b` in `order`.
bool MapKeyBefore(std::string_view a, std::string_view b, MapOrder order);

// One NodeDef. `output_shapes` becomes the `_output_shapes` attr that
// MetaGraphDef exports carry and tf.io.write_graph's GraphDef does not; a
// node without outputs has none.
struct NodeDef {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::string device;
  std::map<std::string, ProtoMessage> attrs;
  std::vector<PartialShape> output_shapes;

  ProtoMessage ToProto(bool with_output_shapes, MapOrder order) const;
};

// A GraphDef: the nodes in order and versions { producer }.
ProtoMessage GraphDefProto(std::span<const NodeDef> nodes, int producer,
                           bool with_output_shapes, MapOrder order);

}  // namespace inflow::internal

#endif  // INFLOW_GRAPH_GRAPH_PROTOS_H_
