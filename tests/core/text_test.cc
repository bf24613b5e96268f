// Copyright 2026 The inflow Authors.
//
// The text helpers the checkpoint state file, graph.pbtxt, the CLI's JSON
// and the metrics recorder share (core/text_format.h, core/json_string.h).

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "inflow/core/json_string.h"

#include "core/text_format.h"

namespace inflow::internal {
namespace {

using std::string_literals::operator""s;

TEST(IsValidUtf8Test, AcceptsAsciiAndWellFormedSequences) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
}

TEST(IsValidUtf8Test, RefusesOverlongSurrogatesTooLargeAndCutSequences) {
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate U+D800
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xf5\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("ab\xc3"));  // cut at the end
  EXPECT_FALSE(IsValidUtf8("\x80"));    // a lone continuation byte
}

TEST(TextFormatCEscapeTest, EscapesAsPythonProtobufDoes) {
  EXPECT_EQ(TextFormatCEscape("\t\n\r\"'\\"), "\\t\\n\\r\\\"\\'\\\\");
  EXPECT_EQ(TextFormatCEscape("\x10\x00\x7f\xff"s), "\\020\\000\\177\\377");
  EXPECT_EQ(TextFormatCEscape("model.ckpt-10 ~"), "model.ckpt-10 ~");
}

TEST(PythonFloatReprTest, WritesWhatPythonsReprWrites) {
  EXPECT_EQ(PythonFloatRepr(3.0), "3.0");
  EXPECT_EQ(PythonFloatRepr(-0.0), "-0.0");
  EXPECT_EQ(PythonFloatRepr(1764600000.25), "1764600000.25");
  EXPECT_EQ(PythonFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PythonFloatRepr(1e-05), "1e-05");
  EXPECT_EQ(PythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PythonFloatRepr(static_cast<double>(0.01f)),
            "0.009999999776482582");
  EXPECT_EQ(PythonFloatRepr(5e-324), "5e-324");
  EXPECT_EQ(PythonFloatRepr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(PythonFloatRepr(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(PythonFloatRepr(std::nan("")), "nan");
}

}  // namespace
}  // namespace inflow::internal
