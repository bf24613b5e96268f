// Copyright 2026 The inflow Authors.
//
// The graph messages' builders: map key order, constants, op lists.

#include "graph/graph_protos.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/op_defs.h"

namespace inflow::internal {
namespace {

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
