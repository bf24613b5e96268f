// Copyright 2026 The inflow Authors.

#include "inflow/example/example_json.h"

#include <limits>

#include <gtest/gtest.h>

#include "inflow/example/example.h"

namespace inflow {
namespace {

TEST(ExampleJsonTest, WritesProtobufCanonicalJson) {
  const std::string record =
      Example()
          .Set("b",
               Feature::Floats({1.5f, std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN(), 0.1f}))
          .Set("a", Feature::Int64s({1, -1}))
          .Set("c", Feature::Bytes({"xy", ""}))
          .Set("e", Feature::Int64s({}))
          .Set("n", Feature())
          .Serialize();
  Result<std::string> json = ExampleToJson(record);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(*json,
            "{\"features\":{\"feature\":{"
            "\"a\":{\"int64List\":{\"value\":[\"1\",\"-1\"]}},"
            "\"b\":{\"floatList\":{\"value\":[1.5,\"Infinity\",\"NaN\",0.1]}},"
            "\"c\":{\"bytesList\":{\"value\":[\"eHk=\",\"\"]}},"
            "\"e\":{\"int64List\":{}},"
            "\"n\":{}}}}");
}

TEST(ExampleJsonTest, SelectsFeaturesAndEscapesKeys) {
  const std::string record = Example()
                                 .Set("keep", Feature::Int64s({1}))
                                 .Set("drop", Feature::Int64s({2}))
                                 .Set("q\"\n\xff", Feature::Bytes({"abc"}))
                                 .Serialize();
  ExampleJsonOptions options;
  options.only_features = {"keep", "q\"\n\xff"};
  Result<std::string> json = ExampleToJson(record, options);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(
      *json,
      "{\"features\":{\"feature\":{"
      "\"keep\":{\"int64List\":{\"value\":[\"1\"]}},"
      "\"q\\\"\\n\xef\xbf\xbd\":{\"bytesList\":{\"value\":[\"YWJj\"]}}}}}");
  options.only_features = {"none"};
  EXPECT_EQ(*ExampleToJson(record, options), "{\"features\":{}}");
  EXPECT_EQ(*ExampleToJson(""), "{}");
}

TEST(ExampleJsonTest, SequenceExample) {
  const std::string record = SequenceExample()
                                 .SetContext("c", Feature::Floats({2}))
                                 .AddStep("s", Feature::Bytes({"a"}))
                                 .AddStep("s", Feature())
                                 .SetFeatureList("e", {})
                                 .Serialize();
  Result<std::string> json = SequenceExampleToJson(record);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(
      *json,
      "{\"context\":{\"feature\":{\"c\":{\"floatList\":{\"value\":[2]}}}},"
      "\"featureLists\":{\"featureList\":{\"e\":{},"
      "\"s\":{\"feature\":[{\"bytesList\":{\"value\":[\"YQ==\"]}},{}]}}}"
      "}");
  EXPECT_EQ(SequenceExampleToJson("\x12").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ExampleJsonTest, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
}

TEST(ExampleJsonTest, Base64DecodeInvertsEncodeAndRejectsWhatIsNotBase64) {
  EXPECT_EQ(*Base64Decode(""), "");
  EXPECT_EQ(*Base64Decode("Zg=="), "f");
  EXPECT_EQ(*Base64Decode("Zm8="), "fo");
  EXPECT_EQ(*Base64Decode("Zm9vYmFy"), "foobar");
  EXPECT_EQ(*Base64Decode("Zm8"), "fo");         // padding left out
  EXPECT_EQ(*Base64Decode("-_8="), "\xfb\xff");  // URL-safe alphabet
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); n += 17) {
    EXPECT_EQ(*Base64Decode(Base64Encode(all.substr(0, n))), all.substr(0, n));
  }
  for (const char* bad : {"Z", "Zm9vY", "Zm 9v", "Zg=a", "=Zg=", "Zm9v!A=="}) {
    EXPECT_EQ(Base64Decode(bad).status().code(), StatusCode::kInvalidArgument)
        << bad;
  }
}

}  // namespace
}  // namespace inflow
