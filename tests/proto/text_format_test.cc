// Copyright 2026 The inflow Authors.
//
// The text format's escaper and Python's float repr, as the checkpoint
// state file and graph.pbtxt write them.

#include "proto/text_format.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace inflow::internal {
namespace {

using std::string_literals::operator""s;

TEST(TextFormatCEscapeTest, EscapesAsPythonProtobufDoes) {
  EXPECT_EQ(TextFormatCEscape("\t\n\r\"'\\"), "\\t\\n\\r\\\"\\'\\\\");
  EXPECT_EQ(TextFormatCEscape("\x10\x00\x7f\xff"s), "\\020\\000\\177\\377");
  EXPECT_EQ(TextFormatCEscape("model.ckpt-10 ~"), "model.ckpt-10 ~");
  EXPECT_EQ(TextFormatCEscape("\x10\x03\x00\x00"s), "\\020\\003\\000\\000");
  EXPECT_EQ(TextFormatCEscape("\x7f\xff\x80"), "\\177\\377\\200");
  EXPECT_EQ(TextFormatCEscape("loc:@layer1/weights ~"),
            "loc:@layer1/weights ~");
}

TEST(PythonFloatReprTest, MatchesPythonRepr) {
  const struct {
    double v;
    const char* repr;
  } cases[] = {
      {0.0, "0.0"},
      {3.0, "3.0"},
      {1764600000.25, "1764600000.25"},
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

}  // namespace
}  // namespace inflow::internal
