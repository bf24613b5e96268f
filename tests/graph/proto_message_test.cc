// Copyright 2026 The inflow Authors.

#include "graph/proto_message.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph_protos.h"
#include "graph/op_defs.h"

namespace inflow::internal {
namespace {

using namespace std::string_literals;

TEST(ProtoMessageTest, ShapeDimSerializesAsProtobufDoes) {
  // TensorShapeProto { dim { size: 784 } }.
  EXPECT_EQ(ShapeProto(PartialShape({784})).SerializeAsString(),
            "\x12\x03\x08\x90\x06"s);
}

TEST(ProtoMessageTest, NegativeIntIsATenByteVarint) {
  EXPECT_EQ(ShapeProto(PartialShape({-1})).SerializeAsString(),
            "\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s);
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

TEST(PythonFloatReprTest, MatchesPythonRepr) {
  const struct {
    double v;
    const char* repr;
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {static_cast<double>(0.01f), "0.009999999776482582"},
      {1e-5, "1e-05"},
      {static_cast<double>(1e-5f), "9.999999747378752e-06"},
      {1e16, "1e+16"},
      {1e15, "1000000000000000.0"},
      {0.0001, "0.0001"},
      {-2.5, "-2.5"},
      {123.0, "123.0"},
      {1.5e-7, "1.5e-07"},
      {1e100, "1e+100"},
      {0.1, "0.1"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::nan(""), "nan"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(PythonFloatRepr(c.v), c.repr) << c.repr;
  }
}

TEST(CEscapeTest, EscapesAsPythonProtobufTextEncoding) {
  EXPECT_EQ(TextFormatCEscape("\x10\x03\x00\x00"s), "\\020\\003\\000\\000");
  EXPECT_EQ(TextFormatCEscape("\t\n\r\"'\\"), "\\t\\n\\r\\\"\\'\\\\");
  EXPECT_EQ(TextFormatCEscape("\x7f\xff\x80"), "\\177\\377\\200");
  EXPECT_EQ(TextFormatCEscape("loc:@layer1/weights ~"),
            "loc:@layer1/weights ~");
}

TEST(MapKeyOrderTest, TextIsBytewiseBinaryPutsLongerKeysBeforeTheirPrefixes) {
  EXPECT_TRUE(MapKeyBefore("seed", "seed2", MapOrder::kText));
  EXPECT_FALSE(MapKeyBefore("seed2", "seed", MapOrder::kText));
  EXPECT_TRUE(MapKeyBefore("seed2", "seed", MapOrder::kBinary));
  EXPECT_FALSE(MapKeyBefore("seed", "seed2", MapOrder::kBinary));
  for (const MapOrder order : {MapOrder::kText, MapOrder::kBinary}) {
    EXPECT_TRUE(MapKeyBefore("T", "_class", order));
    EXPECT_TRUE(MapKeyBefore("_class", "_output_shapes", order));
    EXPECT_FALSE(MapKeyBefore("dtype", "dtype", order));
  }
  // What Python's NodeDef.SerializeToString(deterministic=True) writes
  // for these keys.
  std::vector<std::string> keys = {"b",      "a",  "abc", "ab", "T",
                                   "_class", "_c", "ac",  "aa", ""};
  std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
    return MapKeyBefore(a, b, MapOrder::kBinary);
  });
  EXPECT_EQ(keys, (std::vector<std::string>{"T", "_class", "_c", "aa", "abc",
                                            "ab", "ac", "a", "b", ""}));
}

TEST(GraphProtosTest, Int32VectorUsesTensorContentAboveOneElement) {
  const int64_t two[] = {784, 5};
  EXPECT_EQ(Int32VectorTensor(two).ToText(),
            "dtype: DT_INT32\ntensor_shape {\n  dim {\n    size: 2\n  }\n}\n"
            "tensor_content: \"\\020\\003\\000\\000\\005\\000\\000\\000\"\n");
  const int64_t one[] = {30};
  EXPECT_EQ(Int32VectorTensor(one).ToText(),
            "dtype: DT_INT32\ntensor_shape {\n  dim {\n    size: 1\n  }\n}\n"
            "int_val: 30\n");
}

TEST(OpDefsTest, OpListIsInNameOrderAndAnUnknownOpIsInternal) {
  Result<ProtoMessage> list = StrippedOpList({"NoOp", "Identity"});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->ToText(),
            "op {\n  name: \"Identity\"\n"
            "  input_arg {\n    name: \"input\"\n    type_attr: \"T\"\n  }\n"
            "  output_arg {\n    name: \"output\"\n    type_attr: \"T\"\n  }\n"
            "  attr {\n    name: \"T\"\n    type: \"type\"\n  }\n}\n"
            "op {\n  name: \"NoOp\"\n}\n");
  const Status s = StrippedOpList({"Conv2D"}).status();
  EXPECT_TRUE(IsInternal(s)) << s.ToString();
  EXPECT_NE(s.ToString().find("Conv2D"), std::string::npos);
}

}  // namespace
}  // namespace inflow::internal
