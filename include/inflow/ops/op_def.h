// Copyright 2026 The inflow Authors.
//
// An op's interface (TF's REGISTER_OP): its name, typed inputs and
// outputs, attributes with their types and defaults, an optional shape
// function and its documentation. An op library declares its ops with
// OpDef and implements them with OpKernel (op_kernel.h):
//
//   OpDef("ZeroOut")
//       .Input("to_zero", DType::kInt32)
//       .Output("zeroed", DType::kInt32)
//       .Attr("preserve_index", int64_t{0})
//       .SetShapeFn(SameShapeAsInput(0))
//       .Doc("Zeroes every element but one.");
//
// Everything here is inline: an op library uses these classes without
// linking more of inflow than core. The layout of these classes is part of
// kAbiVersion (inflow/version.h).

#ifndef INFLOW_OPS_OP_DEF_H_
#define INFLOW_OPS_OP_DEF_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::ops {

// The types of attribute values, in AttrValue's order.
enum class AttrType : int {
  kInt = 0,         // int64_t
  kFloat = 1,       // double
  kBool = 2,        // bool
  kString = 3,      // std::string
  kType = 4,        // DType
  kIntList = 5,     // std::vector<int64_t>
  kFloatList = 6,   // std::vector<double>
  kStringList = 7,  // std::vector<std::string>
};

// TF's attr type names: "int", "float", "bool", "string", "type",
// "list(int)", "list(float)", "list(string)".
inline std::string_view AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kBool:
      return "bool";
    case AttrType::kString:
      return "string";
    case AttrType::kType:
      return "type";
    case AttrType::kIntList:
      return "list(int)";
    case AttrType::kFloatList:
      return "list(float)";
    case AttrType::kStringList:
      return "list(string)";
  }
  return "invalid";
}

// The C++ type of each AttrType.
template <typename T>
struct AttrTypeOf;
template <>
struct AttrTypeOf<int64_t> {
  static constexpr AttrType value = AttrType::kInt;
};
template <>
struct AttrTypeOf<double> {
  static constexpr AttrType value = AttrType::kFloat;
};
template <>
struct AttrTypeOf<bool> {
  static constexpr AttrType value = AttrType::kBool;
};
template <>
struct AttrTypeOf<std::string> {
  static constexpr AttrType value = AttrType::kString;
};
template <>
struct AttrTypeOf<DType> {
  static constexpr AttrType value = AttrType::kType;
};
template <>
struct AttrTypeOf<std::vector<int64_t>> {
  static constexpr AttrType value = AttrType::kIntList;
};
template <>
struct AttrTypeOf<std::vector<double>> {
  static constexpr AttrType value = AttrType::kFloatList;
};
template <>
struct AttrTypeOf<std::vector<std::string>> {
  static constexpr AttrType value = AttrType::kStringList;
};

// One attribute value. The constructors fix its type: an int is kInt, a
// float or double kFloat, a string literal kString (never kBool).
class AttrValue {
 public:
  AttrValue(int v) : v_(int64_t{v}) {}                     // NOLINT(implicit)
  AttrValue(long v) : v_(int64_t{v}) {}                    // NOLINT(implicit)
  AttrValue(long long v) : v_(int64_t{v}) {}               // NOLINT(implicit)
  AttrValue(double v) : v_(v) {}                           // NOLINT(implicit)
  AttrValue(float v) : v_(double{v}) {}                    // NOLINT(implicit)
  AttrValue(bool v) : v_(v) {}                             // NOLINT(implicit)
  AttrValue(const char* v) : v_(std::string(v)) {}         // NOLINT(implicit)
  AttrValue(std::string v) : v_(std::move(v)) {}           // NOLINT(implicit)
  AttrValue(DType v) : v_(v) {}                            // NOLINT(implicit)
  AttrValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(std::vector<double> v) : v_(std::move(v)) {}   // NOLINT
  AttrValue(std::vector<std::string> v) : v_(std::move(v)) {}  // NOLINT

  AttrType type() const { return static_cast<AttrType>(v_.index()); }

  // The value when it is a T, else nullptr.
  template <typename T>
  const T* get_if() const {
    return std::get_if<T>(&v_);
  }

  // "3", "0.5", "true", "\"abc\"", "float32", "[1, 2]".
  std::string DebugString() const {
    return std::visit([](const auto& v) { return Print(v); }, v_);
  }

  friend bool operator==(const AttrValue&, const AttrValue&) = default;

 private:
  static std::string Print(int64_t v) { return std::to_string(v); }
  static std::string Print(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') {
      s.pop_back();
    }
    return s;
  }
  static std::string Print(bool v) { return v ? "true" : "false"; }
  static std::string Print(const std::string& v) { return "\"" + v + "\""; }
  static std::string Print(DType v) { return std::string(DTypeName(v)); }
  template <typename T>
  static std::string Print(const std::vector<T>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) s += ", ";
      s += Print(v[i]);
    }
    return s + "]";
  }

  std::variant<int64_t, double, bool, std::string, DType, std::vector<int64_t>,
               std::vector<double>, std::vector<std::string>>
      v_;
};

// Attribute values by name.
class AttrMap {
 public:
  AttrMap() = default;
  AttrMap(std::initializer_list<std::pair<const std::string, AttrValue>> init)
      : values_(init) {}

  void Set(std::string name, AttrValue value) {
    values_.insert_or_assign(std::move(name), std::move(value));
  }
  // The value of `name`, or nullptr.
  const AttrValue* Find(std::string_view name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }
  // The value of `name` as a T (int64_t, double, bool, std::string, DType
  // or a vector of int64_t, double or std::string). INVALID_ARGUMENT when
  // there is none or it has another type.
  template <typename T>
  Result<T> Get(std::string_view name) const {
    const AttrValue* v = Find(name);
    if (v == nullptr) {
      return InvalidArgumentError("no attribute '" + std::string(name) + "'");
    }
    const T* value = v->get_if<T>();
    if (value == nullptr) {
      return InvalidArgumentError(
          "attribute '" + std::string(name) + "' is " +
          std::string(AttrTypeName(v->type())) + ", not " +
          std::string(AttrTypeName(AttrTypeOf<T>::value)));
    }
    return *value;
  }
  const std::map<std::string, AttrValue, std::less<>>& values() const {
    return values_;
  }
  bool empty() const { return values_.empty(); }

 private:
  std::map<std::string, AttrValue, std::less<>> values_;
};

// An input or an output: a name, a dtype and a shape (unknown rank by
// default; -1 for an unknown dimension). A mutable input is one the kernel
// writes into (TF's ref inputs: a variable updated in place).
struct ArgDef {
  std::string name;
  DType dtype = DType::kInvalid;
  PartialShape shape;
  bool is_mutable = false;
};

// An attribute: a name, a type, and the default (none: the attribute must
// be given).
struct AttrDef {
  std::string name;
  AttrType type = AttrType::kInt;
  std::optional<AttrValue> default_value;
};

// What a shape function sees: the static shapes of the inputs (unknown
// rank when not known) and the attributes, defaults filled in.
struct ShapeContext {
  const std::vector<PartialShape>& inputs;
  const AttrMap& attrs;
};
// The static shape of each output, or an error (INVALID_ARGUMENT for
// inputs the op cannot take).
using ShapeFn =
    std::function<Result<std::vector<PartialShape>>(const ShapeContext&)>;

// A shape function giving every output the shape of input `i`.
inline ShapeFn SameShapeAsInput(int i) {
  return [i](const ShapeContext& c) -> Result<std::vector<PartialShape>> {
    if (i < 0 || i >= static_cast<int>(c.inputs.size())) {
      return InvalidArgumentError("SameShapeAsInput: no input " +
                                  std::to_string(i));
    }
    return std::vector<PartialShape>{c.inputs[i]};
  };
}

// An op's declaration. Built by chaining; checked when its library is
// registered (op_library.h): a name of the form [A-Z][A-Za-z0-9_]*, input,
// output and attribute names [a-z][a-z0-9_]* and distinct, valid dtypes,
// defaults of their attribute's type.
class OpDef {
 public:
  explicit OpDef(std::string name) : name_(std::move(name)) {}

  OpDef& Input(std::string name, DType dtype, PartialShape shape = {}) {
    inputs_.push_back({std::move(name), dtype, std::move(shape), false});
    return *this;
  }
  // An input the kernel updates in place (OpKernelContext::MutableInput):
  // the caller's tensor, which must be writable (a NumPy array of exactly
  // this dtype, C-contiguous and writeable, from Python).
  OpDef& MutableInput(std::string name, DType dtype, PartialShape shape = {}) {
    inputs_.push_back({std::move(name), dtype, std::move(shape), true});
    return *this;
  }
  // The output's static shape is `shape` unless a shape function is set.
  OpDef& Output(std::string name, DType dtype, PartialShape shape = {}) {
    outputs_.push_back({std::move(name), dtype, std::move(shape), false});
    return *this;
  }
  // An attribute the caller must give.
  OpDef& Attr(std::string name, AttrType type) {
    attrs_.push_back({std::move(name), type, std::nullopt});
    return *this;
  }
  // An attribute with a default, of the default's type.
  OpDef& Attr(std::string name, AttrValue default_value) {
    const AttrType type = default_value.type();
    attrs_.push_back({std::move(name), type, std::move(default_value)});
    return *this;
  }
  // The outputs' static shapes from the inputs' and the attributes; also
  // checked against the declared output shapes.
  OpDef& SetShapeFn(ShapeFn fn) {
    shape_fn_ = std::move(fn);
    return *this;
  }
  // A stateful op's kernel keeps state across calls: its Compute calls are
  // never concurrent, and each use of the op (each Node, each map) gets a
  // kernel of its own.
  OpDef& SetStateful() {
    stateful_ = true;
    return *this;
  }
  OpDef& Doc(std::string doc) {
    doc_ = std::move(doc);
    return *this;
  }

  const std::string& name() const { return name_; }
  const std::vector<ArgDef>& inputs() const { return inputs_; }
  const std::vector<ArgDef>& outputs() const { return outputs_; }
  const std::vector<AttrDef>& attrs() const { return attrs_; }
  const ShapeFn& shape_fn() const { return shape_fn_; }
  bool stateful() const { return stateful_; }
  const std::string& doc() const { return doc_; }

 private:
  std::string name_;
  std::vector<ArgDef> inputs_;
  std::vector<ArgDef> outputs_;
  std::vector<AttrDef> attrs_;
  ShapeFn shape_fn_;
  bool stateful_ = false;
  std::string doc_;
};

}  // namespace inflow::ops

#endif  // INFLOW_OPS_OP_DEF_H_
