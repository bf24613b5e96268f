// Copyright 2026 The inflow Authors.
//
// The text helpers the CLI's JSON and the metrics recorder share
// (core/json_string.h).

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "inflow/core/json_string.h"

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

}  // namespace
}  // namespace inflow::internal
