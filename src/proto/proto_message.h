// Copyright 2026 The inflow Authors.
//
// ProtoMessage: a protobuf message built field by field, written either in
// the binary wire format or in the text format. It carries each field's
// number (for the binary form) and name (for the text form), so the graph
// writers describe a message once and get both files from it.
//
//   ProtoMessage shape;
//   shape.AddMessage(2, "dim").AddInt(1, "size", 784);
//   std::string bytes = shape.SerializeAsString();  // 12 04 08 90 06
//   std::string text = shape.ToText();              // dim {\n  size: 784\n}\n
//
// Both forms list fields in field-number order, keeping the order in which
// values of one field were added; map fields are repeated entries the
// caller adds in key order. That is what TensorFlow's deterministic
// serialization and Python's text_format print. A field is written exactly
// when it was added: callers leave out proto3 defaults themselves, and an
// added empty message is written (`tensor_shape {}`), as protobuf does for
// a present submessage.
//
// Values; thread-compatible.

#ifndef INFLOW_PROTO_PROTO_MESSAGE_H_
#define INFLOW_PROTO_PROTO_MESSAGE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "proto/text_format.h"  // PythonFloatRepr, TextFormatCEscape

namespace inflow::internal {

class ProtoMessage {
 public:
  ProtoMessage() = default;
  ProtoMessage(const ProtoMessage& other);
  ProtoMessage& operator=(const ProtoMessage& other);
  ProtoMessage(ProtoMessage&&) = default;
  ProtoMessage& operator=(ProtoMessage&&) = default;
  ~ProtoMessage();

  // Scalars. With `packed`, the values of one field are written as one
  // packed run in the binary form (each on its own line in text).
  // int32/int64 (negative values as 10-byte varints, as protobuf writes).
  ProtoMessage& AddInt(int number, std::string_view name, int64_t value,
                       bool packed = false);
  ProtoMessage& AddBool(int number, std::string_view name, bool value,
                        bool packed = false);
  // An enum value: its number on the wire, `value_name` in text.
  ProtoMessage& AddEnum(int number, std::string_view name, int value,
                        std::string_view value_name, bool packed = false);
  ProtoMessage& AddFloat(int number, std::string_view name, float value,
                         bool packed = false);
  // A string or bytes field.
  ProtoMessage& AddBytes(int number, std::string_view name,
                         std::string_view value);
  // Appends an empty message field and returns it to fill. The reference
  // stays valid while this message lives (children are heap-allocated).
  ProtoMessage& AddMessage(int number, std::string_view name);
  // Appends a copy of `value`; returns *this.
  ProtoMessage& AddMessage(int number, std::string_view name,
                           ProtoMessage value);

  bool empty() const { return fields_.empty(); }

  std::string SerializeAsString() const;
  // The text format as Python's text_format.MessageToString(m,
  // float_format='') prints it (what tf.io.write_graph writes): two-space
  // indents, bytes C-escaped with octal escapes, floats as Python's repr of
  // the float widened to double.
  std::string ToText() const;

 private:
  enum class Kind { kInt, kBool, kEnum, kFloat, kBytes, kMessage };
  struct Field {
    int number = 0;
    std::string name;
    Kind kind = Kind::kInt;
    bool packed = false;
    int64_t i = 0;
    float f = 0;
    std::string s;  // bytes, or the enum value's name
    std::unique_ptr<ProtoMessage> message;
  };

  Field& Add(int number, std::string_view name, Kind kind, bool packed);
  // Indices of fields_ in field-number order (stable).
  std::vector<size_t> Order() const;
  void AppendBinary(std::string* out) const;
  void AppendText(std::string* out, int indent) const;

  std::vector<Field> fields_;
};

}  // namespace inflow::internal

#endif  // INFLOW_PROTO_PROTO_MESSAGE_H_
