// Copyright 2026 The inflow Authors.

#include "proto/proto_message.h"

#include <string>

#include <gtest/gtest.h>

namespace inflow::internal {
namespace {

using namespace std::string_literals;

TEST(ProtoMessageTest, NegativeIntIsATenByteVarint) {
  ProtoMessage m;
  m.AddInt(1, "size", -1);
  EXPECT_EQ(m.SerializeAsString(),
            "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s);
  EXPECT_EQ(m.ToText(), "size: -1\n");
}

TEST(ProtoMessageTest, FieldsGoInNumberOrderAndValuesOfAFieldInAddOrder) {
  ProtoMessage m;
  m.AddBytes(3, "c", "x").AddInt(1, "a", 5).AddBytes(3, "c", "y");
  EXPECT_EQ(m.SerializeAsString(), "\x08\x05\x1a\x01x\x1a\x01y"s);
  EXPECT_EQ(m.ToText(), "a: 5\nc: \"x\"\nc: \"y\"\n");
}

TEST(ProtoMessageTest, PackedValuesOfAFieldAreOneRunInBinaryOneLineEachInText) {
  ProtoMessage m;
  m.AddFloat(5, "float_val", 0.0f, true).AddFloat(5, "float_val", 1.0f, true);
  m.AddEnum(6, "type", 1, "DT_FLOAT", true)
      .AddEnum(6, "type", 3, "DT_INT32", true);
  EXPECT_EQ(m.SerializeAsString(),
            "\x2a\x08\x00\x00\x00\x00\x00\x00\x80\x3f\x32\x02\x01\x03"s);
  EXPECT_EQ(m.ToText(),
            "float_val: 0.0\nfloat_val: 1.0\ntype: DT_FLOAT\ntype: DT_INT32\n");
}

TEST(ProtoMessageTest, AnEmptyMessageFieldIsWrittenAsPresent) {
  ProtoMessage m;
  m.AddMessage(2, "tensor_shape");
  EXPECT_EQ(m.SerializeAsString(), "\x12\x00"s);
  EXPECT_EQ(m.ToText(), "tensor_shape {\n}\n");
}

TEST(ProtoMessageTest, TextNestsMessagesWithTwoSpaceIndents) {
  ProtoMessage m;
  m.AddMessage(1, "node")
      .AddBytes(1, "name", "x")
      .AddMessage(5, "attr")
      .AddBool(5, "b", true);
  EXPECT_EQ(m.ToText(),
            "node {\n  name: \"x\"\n  attr {\n    b: true\n  }\n}\n");
}

TEST(ProtoMessageTest, CopiesAreDeep) {
  ProtoMessage a;
  a.AddMessage(1, "m").AddInt(1, "i", 1);
  ProtoMessage b = a;
  a.AddInt(2, "j", 2);
  EXPECT_EQ(b.SerializeAsString(), "\x0a\x02\x08\x01"s);
}

}  // namespace
}  // namespace inflow::internal
