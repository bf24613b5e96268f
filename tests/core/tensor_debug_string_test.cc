// Copyright 2026 The inflow Authors.

#include <string>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"

namespace inflow {
namespace {

using namespace std::string_literals;

// The expected text is what tf.print prints for
// tf.constant([b"a\x00b", b"\x01\x7f\xff\"\\'\n\t\r?", b"plain"]):
// octal for control bytes and 0x7f, C escapes, 0xff unchanged.
TEST(TensorDebugStringTest, EscapesStringBytesAsTensorFlowPrintsThem) {
  Tensor t = Tensor::FromVector<std::string>(
      {"a\0b"s, "\x01\x7f\xff\"\\'\n\t\r?"s, "plain"s});
  EXPECT_EQ(t.DebugString(),
            "Tensor<string [3]: [\"a\\000b\" "
            "\"\\001\\177\xff\\\"\\\\\\'\\n\\t\\r?\" \"plain\"]>");
  // No NUL survives into the text, so printf("%s") shows all of it.
  EXPECT_EQ(t.DebugString().find('\0'), std::string::npos);
}

TEST(TensorDebugStringTest, Utf8BytesPassUnchanged) {
  EXPECT_EQ(Tensor::Scalar<std::string>("caf\xc3\xa9").DebugString(),
            "Tensor<string []: [\"caf\xc3\xa9\"]>");
}

TEST(TensorDebugStringTest, LongTensorsAreCutAfterMaxEntries) {
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5});
  EXPECT_EQ(t.DebugString(3), "Tensor<int32 [5]: [1 2 3 ...]>");
}

TEST(TensorDebugStringTest, TupleListsItsComponents) {
  Tuple tuple = {Tensor::Scalar<int64_t>(1), Tensor::Scalar("x")};
  EXPECT_EQ(DebugString(tuple),
            "(Tensor<int64 []: [1]>, Tensor<string []: [\"x\"]>)");
}

}  // namespace
}  // namespace inflow
