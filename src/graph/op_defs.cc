// Copyright 2026 The inflow Authors.
//
// Field numbers are those of tensorflow/core/framework/op_def.proto. The
// definitions are TensorFlow 2.18's, read from the stripped_op_list of
// graphs TensorFlow exported (names, argument and attribute order, allowed
// types in TensorFlow's order, defaults and flags are all compared).

#include "graph/op_defs.h"

#include <initializer_list>
#include <optional>
#include <utility>

#include "graph/graph_protos.h"

namespace inflow::internal {
namespace {

// OpDef
constexpr int kOpName = 1;
constexpr int kOpInputArg = 2;
constexpr int kOpOutputArg = 3;
constexpr int kOpAttr = 4;
constexpr int kOpIsAggregate = 16;
constexpr int kOpIsStateful = 17;
constexpr int kOpIsCommutative = 18;
constexpr int kOpAllowsUninitializedInput = 19;
// OpDef.ArgDef
constexpr int kArgName = 1;
constexpr int kArgType = 3;
constexpr int kArgTypeAttr = 4;
constexpr int kArgTypeListAttr = 6;
constexpr int kArgIsRef = 16;
// OpDef.AttrDef
constexpr int kAttrDefName = 1;
constexpr int kAttrDefType = 2;
constexpr int kAttrDefDefault = 3;
constexpr int kAttrDefHasMinimum = 5;
constexpr int kAttrDefMinimum = 6;
constexpr int kAttrDefAllowed = 7;

using Types = std::initializer_list<int>;

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string_view name) {
    op_.AddBytes(kOpName, "name", name);
  }

  // An argument whose type is the attr `type_attr`.
  OpDefBuilder& Input(std::string_view name, std::string_view type_attr,
                      bool is_ref = false) {
    return Arg(kOpInputArg, "input_arg", name, type_attr, is_ref);
  }
  OpDefBuilder& Output(std::string_view name, std::string_view type_attr,
                       bool is_ref = false) {
    return Arg(kOpOutputArg, "output_arg", name, type_attr, is_ref);
  }
  // An input of one fixed type.
  OpDefBuilder& InputOfType(std::string_view name, int type) {
    op_.AddMessage(kOpInputArg, "input_arg")
        .AddBytes(kArgName, "name", name)
        .AddEnum(kArgType, "type", type, TfTypeName(type));
    return *this;
  }
  // An argument of the types listed in the attr `type_list_attr`.
  OpDefBuilder& ListArg(bool input, std::string_view name,
                        std::string_view type_list_attr) {
    op_.AddMessage(input ? kOpInputArg : kOpOutputArg,
                   input ? "input_arg" : "output_arg")
        .AddBytes(kArgName, "name", name)
        .AddBytes(kArgTypeListAttr, "type_list_attr", type_list_attr);
    return *this;
  }

  OpDefBuilder& Attr(std::string_view name, std::string_view type,
                     std::optional<ProtoMessage> default_value = std::nullopt,
                     Types allowed = {}) {
    ProtoMessage& attr = op_.AddMessage(kOpAttr, "attr");
    attr.AddBytes(kAttrDefName, "name", name);
    attr.AddBytes(kAttrDefType, "type", type);
    if (default_value) {
      attr.AddMessage(kAttrDefDefault, "default_value", *default_value);
    }
    if (allowed.size() > 0) {
      attr.AddMessage(
          kAttrDefAllowed, "allowed_values",
          TypeListAttr(std::span<const int>(allowed.begin(), allowed.size())));
    }
    return *this;
  }
  OpDefBuilder& TypeAttr(std::string_view name, Types allowed = {}) {
    return Attr(name, "type", std::nullopt, allowed);
  }
  OpDefBuilder& TypeListAttrMin1(std::string_view name) {
    op_.AddMessage(kOpAttr, "attr")
        .AddBytes(kAttrDefName, "name", name)
        .AddBytes(kAttrDefType, "type", "list(type)")
        .AddBool(kAttrDefHasMinimum, "has_minimum", true)
        .AddInt(kAttrDefMinimum, "minimum", 1);
    return *this;
  }
  OpDefBuilder& Flag(int number, std::string_view name) {
    op_.AddBool(number, name, true);
    return *this;
  }

  ProtoMessage Build() { return std::move(op_); }

 private:
  OpDefBuilder& Arg(int field, std::string_view field_name,
                    std::string_view name, std::string_view type_attr,
                    bool is_ref) {
    ProtoMessage& arg = op_.AddMessage(field, field_name);
    arg.AddBytes(kArgName, "name", name);
    arg.AddBytes(kArgTypeAttr, "type_attr", type_attr);
    if (is_ref) arg.AddBool(kArgIsRef, "is_ref", true);
    return *this;
  }

  ProtoMessage op_;
};

ProtoMessage UnknownRankShape() { return ShapeAttr(PartialShape()); }

// x, y -> z of type T.
OpDefBuilder Binary(std::string_view name, Types allowed) {
  OpDefBuilder b(name);
  b.Input("x", "T").Input("y", "T").Output("z", "T").TypeAttr("T", allowed);
  return b;
}

std::optional<ProtoMessage> MakeOpDef(std::string_view op) {
  if (op == "Add") {
    return Binary("Add", {kDtBFloat16, kDtHalf, kDtFloat, kDtDouble, kDtUInt8,
                          kDtInt8, kDtInt16, kDtInt32, kDtInt64, kDtComplex64,
                          kDtComplex128, kDtString})
        .Build();
  }
  if (op == "AddV2") {
    return Binary("AddV2", {kDtBFloat16, kDtHalf, kDtFloat, kDtDouble, kDtUInt8,
                            kDtUInt16, kDtUInt32, kDtUInt64, kDtInt8, kDtInt16,
                            kDtInt32, kDtInt64, kDtComplex64, kDtComplex128})
        .Flag(kOpIsCommutative, "is_commutative")
        .Flag(kOpIsAggregate, "is_aggregate")
        .Build();
  }
  if (op == "Assign") {
    return OpDefBuilder("Assign")
        .Input("ref", "T", /*is_ref=*/true)
        .Input("value", "T")
        .Output("output_ref", "T", /*is_ref=*/true)
        .TypeAttr("T")
        .Attr("validate_shape", "bool", BoolAttr(true))
        .Attr("use_locking", "bool", BoolAttr(true))
        .Flag(kOpAllowsUninitializedInput, "allows_uninitialized_input")
        .Build();
  }
  if (op == "Const") {
    return OpDefBuilder("Const")
        .Output("output", "dtype")
        .Attr("value", "tensor")
        .TypeAttr("dtype")
        .Build();
  }
  if (op == "Fill") {
    return OpDefBuilder("Fill")
        .Input("dims", "index_type")
        .Input("value", "T")
        .Output("output", "T")
        .TypeAttr("T")
        .Attr("index_type", "type", TypeAttr(kDtInt32), {kDtInt32, kDtInt64})
        .Build();
  }
  if (op == "Identity") {
    return OpDefBuilder("Identity")
        .Input("input", "T")
        .Output("output", "T")
        .TypeAttr("T")
        .Build();
  }
  if (op == "MatMul") {
    return OpDefBuilder("MatMul")
        .Input("a", "T")
        .Input("b", "T")
        .Output("product", "T")
        .Attr("transpose_a", "bool", BoolAttr(false))
        .Attr("transpose_b", "bool", BoolAttr(false))
        .TypeAttr("T", {kDtBFloat16, kDtHalf, kDtFloat, kDtDouble, kDtInt32,
                        kDtInt64, kDtUInt8, kDtUInt16, kDtUInt32, kDtUInt64,
                        kDtComplex64, kDtComplex128})
        .Attr("grad_a", "bool", BoolAttr(false))
        .Attr("grad_b", "bool", BoolAttr(false))
        .Build();
  }
  if (op == "Mul") {
    return Binary("Mul", {kDtBFloat16, kDtHalf, kDtFloat, kDtDouble, kDtUInt8,
                          kDtInt8, kDtUInt16, kDtInt16, kDtInt32, kDtUInt32,
                          kDtUInt64, kDtInt64, kDtComplex64, kDtComplex128})
        .Flag(kOpIsCommutative, "is_commutative")
        .Build();
  }
  if (op == "NoOp") return OpDefBuilder("NoOp").Build();
  if (op == "Placeholder") {
    return OpDefBuilder("Placeholder")
        .Output("output", "dtype")
        .TypeAttr("dtype")
        .Attr("shape", "shape", UnknownRankShape())
        .Build();
  }
  if (op == "PlaceholderWithDefault") {
    return OpDefBuilder("PlaceholderWithDefault")
        .Input("input", "dtype")
        .Output("output", "dtype")
        .TypeAttr("dtype")
        .Attr("shape", "shape")
        .Build();
  }
  if (op == "RandomStandardNormal") {
    return OpDefBuilder("RandomStandardNormal")
        .Input("shape", "T")
        .Output("output", "dtype")
        .Attr("seed", "int", IntAttr(0))
        .Attr("seed2", "int", IntAttr(0))
        .Attr("dtype", "type", std::nullopt,
              {kDtHalf, kDtBFloat16, kDtFloat, kDtDouble})
        .TypeAttr("T", {kDtInt32, kDtInt64})
        .Flag(kOpIsStateful, "is_stateful")
        .Build();
  }
  if (op == "Relu") {
    return OpDefBuilder("Relu")
        .Input("features", "T")
        .Output("activations", "T")
        .TypeAttr("T", {kDtFloat, kDtDouble, kDtInt32, kDtUInt8, kDtInt16,
                        kDtInt8, kDtInt64, kDtBFloat16, kDtUInt16, kDtHalf,
                        kDtUInt32, kDtUInt64, kDtQInt8})
        .Build();
  }
  if (op == "RestoreV2" || op == "SaveV2") {
    const bool save = op == "SaveV2";
    OpDefBuilder b(op);
    b.InputOfType("prefix", kDtString)
        .InputOfType("tensor_names", kDtString)
        .InputOfType("shape_and_slices", kDtString)
        .ListArg(/*input=*/save, "tensors", "dtypes")
        .TypeListAttrMin1("dtypes")
        .Flag(kOpIsStateful, "is_stateful");
    return b.Build();
  }
  if (op == "Softmax") {
    return OpDefBuilder("Softmax")
        .Input("logits", "T")
        .Output("softmax", "T")
        .TypeAttr("T", {kDtHalf, kDtBFloat16, kDtFloat, kDtDouble})
        .Build();
  }
  if (op == "VariableV2") {
    return OpDefBuilder("VariableV2")
        .Output("ref", "dtype", /*is_ref=*/true)
        .Attr("shape", "shape")
        .TypeAttr("dtype")
        .Attr("container", "string", StringAttr(""))
        .Attr("shared_name", "string", StringAttr(""))
        .Flag(kOpIsStateful, "is_stateful")
        .Build();
  }
  return std::nullopt;
}

}  // namespace

Result<ProtoMessage> StrippedOpList(const std::set<std::string>& ops) {
  ProtoMessage list;
  for (const std::string& name : ops) {
    std::optional<ProtoMessage> op = MakeOpDef(name);
    if (!op) return InternalError("no OpDef for op " + name);
    list.AddMessage(1, "op", std::move(*op));  // OpList.op
  }
  return list;
}

}  // namespace inflow::internal
