// Copyright 2026 The inflow Authors.
//
// parse_single_sequence_example semantics (docs/formats.md §6.4).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/example/example_parser.h"

namespace inflow {
namespace {

using ::testing::ElementsAre;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto flat = t.flat<T>();
  return std::vector<T>(flat.begin(), flat.end());
}

SequenceExampleParser MustCreate(FeatureSpecs context, FeatureSpecs sequence) {
  auto p =
      SequenceExampleParser::Create(std::move(context), std::move(sequence));
  EXPECT_TRUE(p.ok()) << p.status();
  return std::move(p).value();
}

std::string Record() {
  return SequenceExample()
      .SetContext("len", Feature::Int64s({2}))
      .AddStep("tok", Feature::Int64s({1, 2}))
      .AddStep("tok", Feature::Int64s({3, 4}))
      .AddStep("word", Feature::Bytes({"a"}))
      .AddStep("word", Feature())
      .AddStep("word", Feature::Bytes({"b", "c"}))
      .SetFeatureList("empty", {})
      .Serialize();
}

TEST(SequenceExampleParserTest, ParsesContextAndFeatureLists) {
  SequenceExampleParser parser =
      MustCreate({{"len", FixedLenFeature{{}, DType::kInt64}},
                  {"ctx_missing", VarLenFeature{DType::kFloat32}}},
                 {{"tok", FixedLenSequenceFeature{{2}, DType::kInt64}},
                  {"word", VarLenFeature{DType::kString}},
                  {"empty", FixedLenSequenceFeature{{3}, DType::kFloat32}}});
  Result<ParsedSequenceExample> r = parser.ParseSingle(Record());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<int64_t>(*r->context.FindDense("len")), ElementsAre(2));
  EXPECT_THAT(
      Values<int64_t>(r->context.FindSparse("ctx_missing")->dense_shape),
      ElementsAre(0));
  const Tensor& tok = *r->sequence.FindDense("tok");
  EXPECT_EQ(tok.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int64_t>(tok), ElementsAre(1, 2, 3, 4));
  const SparseTensor& word = *r->sequence.FindSparse("word");
  EXPECT_THAT(Values<int64_t>(word.indices), ElementsAre(0, 0, 2, 0, 2, 1));
  EXPECT_THAT(Values<std::string>(word.values), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Values<int64_t>(word.dense_shape), ElementsAre(3, 2));
  EXPECT_EQ(r->sequence.FindDense("empty")->shape(), TensorShape({0, 3}));
}

TEST(SequenceExampleParserTest, MissingFeatureList) {
  SequenceExampleParser required =
      MustCreate({}, {{"nope", FixedLenSequenceFeature{{}, DType::kInt64}}});
  EXPECT_EQ(required.ParseSingle(Record()).status().code(),
            StatusCode::kInvalidArgument);
  SequenceExampleParser allowed = MustCreate(
      {}, {{"nope", FixedLenSequenceFeature{{2}, DType::kInt64, true}},
           {"var", VarLenFeature{DType::kInt64}}});
  Result<ParsedSequenceExample> r = allowed.ParseSingle(Record());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->sequence.dense[0].shape(), TensorShape({0, 2}));
  EXPECT_THAT(Values<int64_t>(r->sequence.sparse[0].dense_shape),
              ElementsAre(0, 0));
}

TEST(SequenceExampleParserTest, EveryStepMustHoldOneElement) {
  // A step with no kind, a step with the wrong count, a step of another
  // kind: each is INVALID_ARGUMENT.
  SequenceExampleParser word =
      MustCreate({}, {{"word", FixedLenSequenceFeature{{}, DType::kString}}});
  EXPECT_EQ(word.ParseSingle(Record()).status().code(),
            StatusCode::kInvalidArgument);
  SequenceExampleParser tok =
      MustCreate({}, {{"tok", FixedLenSequenceFeature{{3}, DType::kInt64}}});
  EXPECT_EQ(tok.ParseSingle(Record()).status().code(),
            StatusCode::kInvalidArgument);
  SequenceExampleParser kind =
      MustCreate({}, {{"tok", FixedLenSequenceFeature{{2}, DType::kFloat32}}});
  EXPECT_EQ(kind.ParseSingle(Record()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SequenceExampleParserTest, ContextErrorsMatchExampleParsing) {
  SequenceExampleParser parser =
      MustCreate({{"len", FixedLenFeature{{}, DType::kFloat32}}}, {});
  EXPECT_EQ(parser.ParseSingle(Record()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(parser.ParseSingle("\x12\x03\x0a").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(SequenceExampleParserTest, ContextFeatureWithoutKindIsZeroValues) {
  // TensorFlow's sequence parser: a context feature with no kind is
  // present with no values (not missing, so no default), and the last
  // entry of a key wins.
  const std::string record =
      SequenceExample().SetContext("k", Feature::Int64s({1, 2})).Serialize() +
      SequenceExample().SetContext("k", Feature()).Serialize();
  SequenceExampleParser fixed = MustCreate(
      {{"k", FixedLenFeature({2}, DType::kInt64,
                             Tensor::FromVector(std::vector<int64_t>{7, 8}))}},
      {});
  EXPECT_EQ(fixed.ParseSingle(record).status().code(),
            StatusCode::kInvalidArgument);
  SequenceExampleParser var =
      MustCreate({{"k", VarLenFeature(DType::kInt64)}}, {});
  Result<ParsedSequenceExample> r = var.ParseSingle(record);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->context.sparse[0].values.num_elements(), 0);
}

TEST(SequenceExampleParserTest, UnsupportedSpecPlacementsFailInCreate) {
  EXPECT_EQ(SequenceExampleParser::Create(
                {}, {{"a", FixedLenFeature{{}, DType::kInt64}}})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(SequenceExampleParser::Create(
                {{"a", FixedLenSequenceFeature{{}, DType::kInt64, true}}}, {})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace inflow
