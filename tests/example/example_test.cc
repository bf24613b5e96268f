// Copyright 2026 The inflow Authors.
//
// The encoder writes what TensorFlow writes; the decoder inverts it.

#include "inflow/example/example.h"

#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "example/wire_builder.h"

namespace inflow {
namespace {

using ::inflow::testing::Len;

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

TEST(ExampleEncoderTest, WritesTheSpecVectorByteForByte) {
  const std::string bytes = Example()
                                .Set("a", Feature::Int64s({1, -1}))
                                .Set("b", Feature::Floats({1.5f}))
                                .Set("c", Feature::Bytes({"xy"}))
                                .Serialize();
  EXPECT_EQ(Hex(bytes),
            "0a 32 0a 14 0a 01 61 12 0f 1a 0d 0a 0b 01 ff ff ff ff ff ff ff ff "
            "ff 01 0a 0d 0a 01 62 12 08 12 06 0a 04 00 00 c0 3f 0a 0b 0a 01 63 "
            "12 06 0a 04 0a 02 78 79");
}

TEST(ExampleEncoderTest, EmptyListsAndUnsetKindEncodeAsTensorFlowDoes) {
  const std::string bytes = Example()
                                .Set("b", Feature::Bytes({}))
                                .Set("f", Feature::Floats({}))
                                .Set("i", Feature::Int64s({}))
                                .Set("n", Feature())
                                .Serialize();
  // Entries sorted by key; an empty list is an empty list message, an
  // unset kind an empty Feature.
  EXPECT_EQ(Hex(bytes),
            "0a 22 0a 07 0a 01 62 12 02 0a 00 0a 07 0a 01 66 12 02 12 00 0a 07 "
            "0a 01 69 12 02 1a 00 0a 05 0a 01 6e 12 00");
  EXPECT_EQ(Hex(Example().Serialize()), "0a 00");
}

TEST(ExampleEncoderTest, EntriesAreSortedByKeyBytes) {
  Example ex;
  ex.Set("b", Feature::Int64s({2})).Set("a", Feature::Int64s({1}));
  ex.Set("B", Feature::Int64s({3}));
  const std::string bytes = ex.Serialize();
  EXPECT_LT(bytes.find("\x0a\x01"
                       "B"),
            bytes.find("\x0a\x01"
                       "a"));
  EXPECT_LT(bytes.find("\x0a\x01"
                       "a"),
            bytes.find("\x0a\x01"
                       "b"));
}

TEST(ExampleEncoderTest, SetReplacesAnExistingFeature) {
  Example ex;
  ex.Set("k", Feature::Int64s({1})).Set("k", Feature::Floats({2}));
  ASSERT_EQ(ex.features().size(), 1u);
  EXPECT_EQ(ex.features().at("k").kind(), FeatureKind::kFloat);
}

TEST(ExampleEncoderTest, RoundTripsEveryKindAndOddValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Example ex;
  ex.Set("bytes",
         Feature::Bytes({"", std::string("\0\xff", 2), std::string(300, 'z')}))
      .Set("floats", Feature::Floats({0.0f, -0.0f, nan, inf, -inf, 1e-45f}))
      .Set("ints", Feature::Int64s({0, -1, std::numeric_limits<int64_t>::min(),
                                    std::numeric_limits<int64_t>::max()}))
      .Set("", Feature())
      .Set(std::string(200, 'k'), Feature::Int64s({}));
  Result<Example> back = Example::Parse(ex.Serialize());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, ex);
}

TEST(ExampleEncoderTest, FloatsCompareBitwise) {
  EXPECT_NE(Feature::Floats({0.0f}), Feature::Floats({-0.0f}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Feature::Floats({nan}), Feature::Floats({nan}));
  EXPECT_NE(Feature::Floats({}), Feature::Int64s({}));
}

TEST(ExampleDecoderTest, DuplicateKeysKeepTheLast) {
  const std::string bytes =
      Example().Set("k", Feature::Int64s({1})).Serialize() +
      Example().Set("k", Feature::Int64s({2})).Serialize();
  Result<Example> ex = Example::Parse(bytes);
  ASSERT_TRUE(ex.ok());
  EXPECT_EQ(ex->features().at("k"), Feature::Int64s({2}));
}

TEST(ExampleDecoderTest, MalformedIsInvalidArgument) {
  EXPECT_EQ(Example::Parse("\x0a\x05").status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(SequenceExample::Parse("\x12\x05").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SequenceExampleEncoderTest, RoundTripsContextAndFeatureLists) {
  SequenceExample se;
  se.SetContext("len", Feature::Int64s({3}))
      .SetContext("none", Feature())
      .AddStep("tokens", Feature::Bytes({"a"}))
      .AddStep("tokens", Feature::Bytes({"b", "c"}))
      .AddStep("tokens", Feature())
      .SetFeatureList("empty", {});
  const std::string bytes = se.Serialize();
  Result<SequenceExample> back = SequenceExample::Parse(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, se);
  EXPECT_EQ(back->feature_lists().at("tokens").size(), 3u);
}

TEST(SequenceExampleEncoderTest, WritesFieldsInFieldNumberOrder) {
  const std::string bytes =
      SequenceExample().AddStep("s", Feature::Int64s({1})).Serialize();
  const std::string lists =
      Len(1, Len(1, "s") + Len(2, Len(1, Len(3, Len(1, "\x01")))));
  EXPECT_EQ(Hex(bytes), Hex(Len(1, "") + Len(2, lists)));
}

}  // namespace
}  // namespace inflow
