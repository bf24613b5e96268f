// Copyright 2026 The inflow Authors.
//
// Field numbers are those of tensorflow/core/framework/tensor.proto,
// attr_value.proto, node_def.proto and graph.proto.

#include "graph/graph_protos.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace inflow::internal {
namespace {

// TensorProto
constexpr int kTensorDtype = 1;
constexpr int kTensorShape = 2;
constexpr int kTensorContent = 4;
constexpr int kTensorFloatVal = 5;
constexpr int kTensorIntVal = 7;
constexpr int kTensorStringVal = 8;
// AttrValue and AttrValue.ListValue
constexpr int kAttrList = 1;
constexpr int kAttrS = 2;
constexpr int kAttrI = 3;
constexpr int kAttrB = 5;
constexpr int kAttrType = 6;
constexpr int kAttrShape = 7;
constexpr int kAttrTensor = 8;
// NodeDef
constexpr int kNodeName = 1;
constexpr int kNodeOp = 2;
constexpr int kNodeInput = 3;
constexpr int kNodeDevice = 4;
constexpr int kNodeAttr = 5;
constexpr int kMapKey = 1;
constexpr int kMapValue = 2;
// GraphDef
constexpr int kGraphNode = 1;
constexpr int kGraphVersions = 4;

ProtoMessage TensorHeader(int dtype, const PartialShape& shape) {
  ProtoMessage t;
  t.AddEnum(kTensorDtype, "dtype", dtype, TfTypeName(dtype));
  t.AddMessage(kTensorShape, "tensor_shape", ShapeProto(shape));
  return t;
}

}  // namespace

ProtoMessage FloatFillTensor(const TensorShape& shape, float value) {
  ProtoMessage t = TensorHeader(kDtFloat, shape);
  t.AddFloat(kTensorFloatVal, "float_val", value, /*packed=*/true);
  return t;
}

ProtoMessage FloatTensor(const Tensor& value) {
  ProtoMessage t = TensorHeader(kDtFloat, value.shape());
  std::string content;
  content.reserve(static_cast<size_t>(value.num_elements()) * 4);
  for (const float f : value.flat<float>()) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    for (int k = 0; k < 4; ++k) {
      content.push_back(static_cast<char>((u >> (8 * k)) & 0xff));
    }
  }
  t.AddBytes(kTensorContent, "tensor_content", content);
  return t;
}

ProtoMessage Int32VectorTensor(std::span<const int64_t> values) {
  ProtoMessage t = TensorHeader(
      kDtInt32, PartialShape({static_cast<int64_t>(values.size())}));
  if (values.size() == 1) {
    t.AddInt(kTensorIntVal, "int_val", static_cast<int32_t>(values[0]),
             /*packed=*/true);
    return t;
  }
  std::string content;
  for (const int64_t v : values) {
    const auto u = static_cast<uint32_t>(static_cast<int32_t>(v));
    for (int k = 0; k < 4; ++k) {
      content.push_back(static_cast<char>((u >> (8 * k)) & 0xff));
    }
  }
  t.AddBytes(kTensorContent, "tensor_content", content);
  return t;
}

ProtoMessage StringScalarTensor(std::string_view value) {
  ProtoMessage t =
      TensorHeader(kDtString, PartialShape(std::vector<int64_t>{}));
  t.AddBytes(kTensorStringVal, "string_val", value);
  return t;
}

ProtoMessage StringVectorTensor(std::span<const std::string> values) {
  ProtoMessage t = TensorHeader(
      kDtString, PartialShape({static_cast<int64_t>(values.size())}));
  for (const std::string& v : values) {
    t.AddBytes(kTensorStringVal, "string_val", v);
  }
  return t;
}

ProtoMessage TypeAttr(int type) {
  ProtoMessage a;
  a.AddEnum(kAttrType, "type", type, TfTypeName(type));
  return a;
}

ProtoMessage TypeListAttr(std::span<const int> types) {
  ProtoMessage a;
  ProtoMessage& list = a.AddMessage(kAttrList, "list");
  for (const int t : types) {
    list.AddEnum(kAttrType, "type", t, TfTypeName(t), /*packed=*/true);
  }
  return a;
}

ProtoMessage ShapeAttr(const PartialShape& shape) {
  ProtoMessage a;
  a.AddMessage(kAttrShape, "shape", ShapeProto(shape));
  return a;
}

ProtoMessage ShapeListAttr(std::span<const PartialShape> shapes) {
  ProtoMessage a;
  ProtoMessage& list = a.AddMessage(kAttrList, "list");
  for (const PartialShape& s : shapes) {
    list.AddMessage(kAttrShape, "shape", ShapeProto(s));
  }
  return a;
}

ProtoMessage BoolAttr(bool value) {
  ProtoMessage a;
  a.AddBool(kAttrB, "b", value);
  return a;
}

ProtoMessage IntAttr(int64_t value) {
  ProtoMessage a;
  a.AddInt(kAttrI, "i", value);
  return a;
}

ProtoMessage StringAttr(std::string_view value) {
  ProtoMessage a;
  a.AddBytes(kAttrS, "s", value);
  return a;
}

ProtoMessage StringListAttr(std::span<const std::string> values) {
  ProtoMessage a;
  ProtoMessage& list = a.AddMessage(kAttrList, "list");
  for (const std::string& v : values) list.AddBytes(kAttrS, "s", v);
  return a;
}

ProtoMessage TensorAttr(ProtoMessage tensor) {
  ProtoMessage a;
  a.AddMessage(kAttrTensor, "tensor", std::move(tensor));
  return a;
}

bool MapKeyBefore(std::string_view a, std::string_view b, MapOrder order) {
  const size_t common = std::min(a.size(), b.size());
  const int cmp = a.substr(0, common).compare(b.substr(0, common));
  if (cmp != 0) return cmp < 0;
  return order == MapOrder::kText ? a.size() < b.size() : a.size() > b.size();
}

ProtoMessage NodeDef::ToProto(bool with_output_shapes, MapOrder order) const {
  ProtoMessage m;
  m.AddBytes(kNodeName, "name", name);
  m.AddBytes(kNodeOp, "op", op);
  for (const std::string& in : inputs) m.AddBytes(kNodeInput, "input", in);
  if (!device.empty()) m.AddBytes(kNodeDevice, "device", device);
  std::map<std::string, ProtoMessage> all = attrs;
  if (with_output_shapes && !output_shapes.empty()) {
    all.emplace("_output_shapes", ShapeListAttr(output_shapes));
  }
  std::vector<const std::pair<const std::string, ProtoMessage>*> entries;
  for (const auto& entry : all) entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(), [order](auto* a, auto* b) {
    return MapKeyBefore(a->first, b->first, order);
  });
  for (const auto* e : entries) {
    ProtoMessage& entry = m.AddMessage(kNodeAttr, "attr");
    entry.AddBytes(kMapKey, "key", e->first);
    entry.AddMessage(kMapValue, "value", e->second);
  }
  return m;
}

ProtoMessage GraphDefProto(std::span<const NodeDef> nodes, int producer,
                           bool with_output_shapes, MapOrder order) {
  ProtoMessage g;
  for (const NodeDef& node : nodes) {
    g.AddMessage(kGraphNode, "node", node.ToProto(with_output_shapes, order));
  }
  VersionDef versions;
  versions.producer = producer;
  g.AddMessage(kGraphVersions, "versions", VersionDefProto(versions));
  return g;
}

}  // namespace inflow::internal
