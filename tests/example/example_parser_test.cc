// Copyright 2026 The inflow Authors.
//
// parse_single_example / parse_example semantics (docs/formats.md §6).

#include "inflow/example/example_parser.h"

#include <atomic>
#include <random>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/example/example.h"

#include "wire_builder.h"

namespace inflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto flat = t.flat<T>();
  return std::vector<T>(flat.begin(), flat.end());
}

std::string Ex(Example ex) { return ex.Serialize(); }

ExampleParser MustCreate(FeatureSpecs specs) {
  Result<ExampleParser> p = ExampleParser::Create(std::move(specs));
  EXPECT_TRUE(p.ok()) << p.status();
  return std::move(p).value();
}

TEST(ExampleParserTest, FixedLenFeaturesFillTheirShapeRowMajor) {
  ExampleParser parser = MustCreate({
      {"m", FixedLenFeature{{2, 2}, DType::kFloat32}},
      {"label", FixedLenFeature{{}, DType::kInt64}},
      {"name", FixedLenFeature{{1}, DType::kString}},
  });
  const std::string record = Ex(Example()
                                    .Set("m", Feature::Floats({1, 2, 3, 4}))
                                    .Set("label", Feature::Int64s({7}))
                                    .Set("name", Feature::Bytes({"cat"}))
                                    .Set("other", Feature::Bytes({"x"})));
  Result<ParsedFeatures> r = parser.ParseSingle(record);
  ASSERT_TRUE(r.ok()) << r.status();
  const Tensor& m = *r->FindDense("m");
  EXPECT_EQ(m.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(m), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(r->FindDense("label")->shape(), TensorShape({}));
  EXPECT_THAT(Values<int64_t>(*r->FindDense("label")), ElementsAre(7));
  EXPECT_THAT(Values<std::string>(*r->FindDense("name")), ElementsAre("cat"));
  EXPECT_EQ(r->FindDense("other"), nullptr);
  EXPECT_THAT(r->dense_keys(), ElementsAre("m", "label", "name"));
}

TEST(ExampleParserTest, MissingFeatureUsesTheDefault) {
  ExampleParser parser = MustCreate({
      {"a",
       FixedLenFeature{
           {2}, DType::kInt64, Tensor::FromVector(std::vector<int64_t>{5, 6})}},
      {"s", FixedLenFeature{{}, DType::kString, Tensor::Scalar("dflt")}},
  });
  // "a" has no kind: missing, like an absent key.
  Result<ParsedFeatures> r =
      parser.ParseSingle(Ex(Example().Set("a", Feature())));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<int64_t>(*r->FindDense("a")), ElementsAre(5, 6));
  EXPECT_THAT(Values<std::string>(*r->FindDense("s")), ElementsAre("dflt"));
}

TEST(ExampleParserTest, MissingRequiredFeatureNamesFeatureAndIndex) {
  ExampleParser parser =
      MustCreate({{"a", FixedLenFeature{{}, DType::kFloat32}}});
  const std::vector<std::string> batch = {
      Ex(Example().Set("a", Feature::Floats({1}))), Ex(Example())};
  Result<ParsedFeatures> r = parser.ParseBatch(batch);
  ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Feature: a (data type: float32) is required"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Index: 1"));
}

TEST(ExampleParserTest, WrongKindIsInvalidArgumentEvenWhenEmpty) {
  ExampleParser parser =
      MustCreate({{"a", FixedLenFeature{{0}, DType::kInt64}}});
  Result<ParsedFeatures> r =
      parser.ParseSingle(Ex(Example().Set("a", Feature::Floats({}))));
  ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Key: a"));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Data types don't match"));
  ExampleParser var = MustCreate({{"a", VarLenFeature{DType::kString}}});
  EXPECT_EQ(var.ParseSingle(Ex(Example().Set("a", Feature::Int64s({}))))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ExampleParserTest, WrongNumberOfValuesIsInvalidArgument) {
  ExampleParser parser =
      MustCreate({{"a", FixedLenFeature{{2}, DType::kInt64}}});
  Result<ParsedFeatures> r =
      parser.ParseSingle(Ex(Example().Set("a", Feature::Int64s({1, 2, 3}))));
  ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Values size: 3"));
}

TEST(ExampleParserTest, MalformedRecordNamesTheIndex) {
  ExampleParser parser = MustCreate({{"a", VarLenFeature{DType::kInt64}}});
  const std::vector<std::string> batch = {Ex(Example()), "\x0a\x09garbage"};
  Result<ParsedFeatures> r = parser.ParseBatch(batch);
  ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("Index: 1"));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Could not parse example input"));
}

TEST(ExampleParserTest, VarLenSingleGivesIndicesNBy1) {
  ExampleParser parser = MustCreate({
      {"v", VarLenFeature{DType::kString}},
      {"missing", VarLenFeature{DType::kFloat32}},
  });
  Result<ParsedFeatures> r =
      parser.ParseSingle(Ex(Example().Set("v", Feature::Bytes({"a", "b"}))));
  ASSERT_TRUE(r.ok()) << r.status();
  const SparseTensor& v = *r->FindSparse("v");
  EXPECT_EQ(v.indices.shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<int64_t>(v.indices), ElementsAre(0, 1));
  EXPECT_THAT(Values<std::string>(v.values), ElementsAre("a", "b"));
  EXPECT_THAT(Values<int64_t>(v.dense_shape), ElementsAre(2));
  const SparseTensor& m = *r->FindSparse("missing");
  EXPECT_EQ(m.indices.shape(), TensorShape({0, 1}));
  EXPECT_EQ(m.values.shape(), TensorShape({0}));
  EXPECT_THAT(Values<int64_t>(m.dense_shape), ElementsAre(0));
}

TEST(ExampleParserTest, VarLenBatchIndexesExampleThenValue) {
  ExampleParser parser = MustCreate({{"v", VarLenFeature{DType::kInt64}}});
  const std::vector<std::string> batch = {
      Ex(Example().Set("v", Feature::Int64s({1, 2, 3}))), Ex(Example()),
      Ex(Example().Set("v", Feature::Int64s({4})))};
  Result<ParsedFeatures> r = parser.ParseBatch(batch);
  ASSERT_TRUE(r.ok()) << r.status();
  const SparseTensor& v = r->sparse[0];
  EXPECT_EQ(v.indices.shape(), TensorShape({4, 2}));
  EXPECT_THAT(Values<int64_t>(v.indices), ElementsAre(0, 0, 0, 1, 0, 2, 2, 0));
  EXPECT_THAT(Values<int64_t>(v.values), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Values<int64_t>(v.dense_shape), ElementsAre(3, 3));
}

TEST(ExampleParserTest, FixedLenBatchStacksRows) {
  ExampleParser parser = MustCreate(
      {{"a", FixedLenFeature{{2},
                             DType::kFloat32,
                             Tensor::FromVector(std::vector<float>{-1, -2})}}});
  const std::vector<std::string> batch = {
      Ex(Example().Set("a", Feature::Floats({1, 2}))), Ex(Example()),
      Ex(Example().Set("a", Feature::Floats({3, 4})))};
  Result<ParsedFeatures> r = parser.ParseBatch(batch);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dense[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<float>(r->dense[0]), ElementsAre(1, 2, -1, -2, 3, 4));
}

TEST(ExampleParserTest, FixedLenSequenceStacksElementsAndPadsTheBatch) {
  ExampleParser parser =
      MustCreate({{"s",
                   FixedLenSequenceFeature{
                       {2}, DType::kInt64, true, Tensor::Scalar<int64_t>(-1)}},
                  {"t", FixedLenSequenceFeature{{}, DType::kString, true}}});
  const std::string a = Ex(Example()
                               .Set("s", Feature::Int64s({1, 2, 3, 4}))
                               .Set("t", Feature::Bytes({"x"})));
  const std::string b = Ex(Example().Set("s", Feature::Int64s({5, 6})));
  Result<ParsedFeatures> single = parser.ParseSingle(a);
  ASSERT_TRUE(single.ok()) << single.status();
  EXPECT_EQ(single->dense[0].shape(), TensorShape({2, 2}));
  const std::vector<std::string> batch = {a, b, Ex(Example())};
  Result<ParsedFeatures> r = parser.ParseBatch(batch);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dense[0].shape(), TensorShape({3, 2, 2}));
  EXPECT_THAT(Values<int64_t>(r->dense[0]),
              ElementsAre(1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1));
  EXPECT_EQ(r->dense[1].shape(), TensorShape({3, 1}));
  EXPECT_THAT(Values<std::string>(r->dense[1]), ElementsAre("x", "", ""));
}

TEST(ExampleParserTest, FixedLenSequenceCountMustBeAMultipleOfTheStride) {
  ExampleParser parser =
      MustCreate({{"s", FixedLenSequenceFeature{{2}, DType::kInt64, true}}});
  EXPECT_EQ(
      parser.ParseSingle(Ex(Example().Set("s", Feature::Int64s({1, 2, 3}))))
          .status()
          .code(),
      StatusCode::kInvalidArgument);
}

TEST(ExampleParserTest, EmptyBatchGivesEmptyOutputs) {
  ExampleParser parser = MustCreate({{"a", FixedLenFeature{{3}, DType::kInt64}},
                                     {"v", VarLenFeature{DType::kFloat32}}});
  Result<ParsedFeatures> r =
      parser.ParseBatch(std::span<const std::string_view>());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->dense[0].shape(), TensorShape({0, 3}));
  EXPECT_THAT(Values<int64_t>(r->sparse[0].dense_shape), ElementsAre(0, 0));
}

TEST(ExampleParserTest, DuplicateKeyInRecordLastWins) {
  ExampleParser parser =
      MustCreate({{"a", FixedLenFeature{{}, DType::kInt64}}});
  const std::string record = Ex(Example().Set("a", Feature::Int64s({1}))) +
                             Ex(Example().Set("a", Feature::Int64s({2})));
  Result<ParsedFeatures> r = parser.ParseSingle(record);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(Values<int64_t>(r->dense[0]), ElementsAre(2));
}

TEST(ExampleParserTest, EntryWithoutKindDoesNotHideAnEarlierValue) {
  // TensorFlow's rule for a key given twice whose last value has no kind:
  // the earlier value stands, except for var-length features in a batch.
  const std::string record = Ex(Example().Set("a", Feature::Int64s({1}))) +
                             Ex(Example().Set("a", Feature()));
  ExampleParser fixed = MustCreate({{"a", FixedLenFeature({}, DType::kInt64)}});
  Result<ParsedFeatures> r = fixed.ParseSingle(record);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<int64_t>(r->dense[0]), ElementsAre(1));
  ExampleParser var = MustCreate({{"a", VarLenFeature(DType::kInt64)}});
  Result<ParsedFeatures> single = var.ParseSingle(record);
  ASSERT_TRUE(single.ok());
  EXPECT_THAT(Values<int64_t>(single->sparse[0].values), ElementsAre(1));
  const std::vector<std::string> batch = {record};
  Result<ParsedFeatures> batched = var.ParseBatch(batch);
  ASSERT_TRUE(batched.ok());
  EXPECT_EQ(batched->sparse[0].values.num_elements(), 0);
}

TEST(ExampleParserTest, EmptyDefaultLeavesTheFeatureRequired) {
  // As in TensorFlow: a shape with a 0 dim has an empty default, which
  // counts as none.
  ExampleParser parser = MustCreate(
      {{"a", FixedLenFeature({0}, DType::kInt64,
                             Tensor(DType::kInt64, TensorShape({0})))}});
  EXPECT_EQ(parser.ParseSingle(Ex(Example())).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      parser.ParseSingle(Ex(Example().Set("a", Feature::Int64s({})))).ok());
}

struct BadConfig {
  const char* name;
  FeatureSpecs specs;
};

TEST(ExampleParserTest, BadConfigurationsFailInCreate) {
  const std::vector<BadConfig> cases = {
      {"unknown dim", {{"a", FixedLenFeature{{-1}, DType::kInt64}}}},
      {"int32", {{"a", FixedLenFeature{{}, DType::kInt32}}}},
      {"var double", {{"a", VarLenFeature{DType::kFloat64}}}},
      {"default size",
       {{"a",
         FixedLenFeature{{2}, DType::kInt64, Tensor::Scalar<int64_t>(1)}}}},
      {"default dtype",
       {{"a", FixedLenFeature{{}, DType::kInt64, Tensor::Scalar(1.0f)}}}},
      {"sequence without allow_missing",
       {{"a", FixedLenSequenceFeature{{}, DType::kInt64, false}}}},
      {"duplicate key",
       {{"a", VarLenFeature{DType::kInt64}},
        {"a", VarLenFeature{DType::kInt64}}}},
  };
  for (const BadConfig& c : cases) {
    EXPECT_EQ(ExampleParser::Create(c.specs).status().code(),
              StatusCode::kInvalidArgument)
        << c.name;
  }
}

TEST(ExampleParserTest, ParserIsUsableFromSeveralThreads) {
  ExampleParser parser =
      MustCreate({{"a", FixedLenFeature{{1}, DType::kInt64}}});
  std::vector<std::jthread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const int64_t v = t * 1000 + i;
        Result<ParsedFeatures> r =
            parser.ParseSingle(Ex(Example().Set("a", Feature::Int64s({v}))));
        if (!r.ok() || r->dense[0].data<int64_t>()[0] != v) ++failures;
      }
    });
  }
  threads.clear();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ExampleParserTest, FreeFunctionsMatchTheParser) {
  const std::string record = Ex(Example().Set("a", Feature::Floats({2.5f})));
  Result<ParsedFeatures> one =
      ParseSingleExample(record, {{"a", FixedLenFeature{{}, DType::kFloat32}}});
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(Values<float>(one->dense[0]), ElementsAre(2.5f));
  const std::vector<std::string_view> batch = {record, record};
  Result<ParsedFeatures> two =
      ParseExample(batch, {{"a", FixedLenFeature{{}, DType::kFloat32}}});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->dense[0].shape(), TensorShape({2}));
}

// Records as every encoder lays them out take a fused fast path (values
// decoded straight into the outputs); anything else takes the general
// path. The same random records with an unknown field appended (which
// sends them down the general path) must give the same tensors, or the
// same error, in batches and one by one: duplicates, wrong kinds, wrong
// counts, empty lists, long varints, 2-byte lengths, missing features.
TEST(ExampleParserTest, FastPathMatchesTheGeneralPathOnRandomRecords) {
  using testing::Len;
  using testing::Varint;
  std::mt19937_64 rng(23);
  auto coin = [&](int percent) {
    return static_cast<int>(rng() % 100) < percent;
  };
  const std::vector<std::string> keys = {"i3",
                                         "f2",
                                         "b2",
                                         "i0",
                                         "vi",
                                         "vf",
                                         "vb",
                                         "seq",
                                         "d",
                                         "z0",
                                         "a_key_longer_than_sixteen",
                                         "unknown"};
  const std::vector<FeatureKind> kinds = {
      FeatureKind::kInt64, FeatureKind::kFloat, FeatureKind::kBytes,
      FeatureKind::kInt64, FeatureKind::kInt64, FeatureKind::kFloat,
      FeatureKind::kBytes, FeatureKind::kInt64, FeatureKind::kInt64,
      FeatureKind::kFloat, FeatureKind::kBytes, FeatureKind::kInt64};
  const std::vector<int> counts = {3, 2, 2, 1, -1, -1, -1, -1, 2, 0, 1, -1};
  FeatureSpecs specs = {
      {"i3", FixedLenFeature({3}, DType::kInt64)},
      {"f2", FixedLenFeature({2}, DType::kFloat32)},
      {"b2", FixedLenFeature({2}, DType::kString)},
      {"i0", FixedLenFeature({}, DType::kInt64)},
      {"vi", VarLenFeature(DType::kInt64)},
      {"vf", VarLenFeature(DType::kFloat32)},
      {"vb", VarLenFeature(DType::kString)},
      {"seq", FixedLenSequenceFeature({}, DType::kInt64, true)},
      {"d", FixedLenFeature({2}, DType::kInt64,
                            Tensor::FromVector(std::vector<int64_t>{7, 8}))},
      {"z0", FixedLenFeature({0}, DType::kFloat32)},
      {"a_key_longer_than_sixteen", FixedLenFeature({}, DType::kString)},
  };
  ExampleParser parser = MustCreate(specs);
  int noise = 0;  // percent
  auto feature = [&](FeatureKind kind, int n) {
    std::string list;
    if (kind == FeatureKind::kBytes) {
      for (int i = 0; i < n; ++i) {
        list += Len(1, std::string(rng() % (coin(10) ? 300 : 20), 'x'));
      }
    } else if (kind == FeatureKind::kFloat) {
      std::string packed;
      for (int i = 0; i < n; ++i) {
        const float v = static_cast<float>(rng() % 1000) / 8;
        packed.append(reinterpret_cast<const char*>(&v), 4);
      }
      if (n > 0 || coin(30)) list = Len(1, packed);
    } else {
      std::string packed;
      for (int i = 0; i < n; ++i) {
        const int bits = static_cast<int>(rng() % 65);
        packed += Varint(bits == 0 ? 0 : rng() >> (64 - bits));
      }
      if (n > 0 || coin(30)) list = Len(1, packed);
    }
    std::string f = Len(static_cast<uint32_t>(kind), list);
    if (coin(noise / 4)) f = "";  // no kind
    if (!f.empty() && coin(noise / 4)) f.back() = static_cast<char>(0x80);
    return f;
  };
  auto record = [&] {
    std::string entries;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (coin(noise)) continue;  // missing
      for (int times = coin(10) ? 2 : 1; times > 0; --times) {
        const FeatureKind kind =
            !coin(noise)
                ? kinds[k]
                : static_cast<FeatureKind>(1 + static_cast<int>(rng() % 3));
        const int n = counts[k] >= 0 && !coin(noise)
                          ? counts[k]
                          : static_cast<int>(rng() % (coin(20) ? 80 : 5));
        entries += testing::Entry(keys[k], feature(kind, n));
      }
    }
    return testing::ExampleOf(entries);
  };
  const std::string trailer = testing::VarintField(2, 1);
  auto same = [&](const Result<ParsedFeatures>& fast,
                  const Result<ParsedFeatures>& general, int round) {
    ASSERT_EQ(fast.ok(), general.ok())
        << round << " " << fast.status() << " vs " << general.status();
    if (!fast.ok()) {
      ASSERT_EQ(fast.status().ToString(), general.status().ToString()) << round;
      return;
    }
    ASSERT_EQ(fast->dense.size(), general->dense.size());
    for (size_t i = 0; i < fast->dense.size(); ++i) {
      ASSERT_TRUE(fast->dense[i] == general->dense[i]) << round << " " << i;
    }
    for (size_t i = 0; i < fast->sparse.size(); ++i) {
      ASSERT_TRUE(fast->sparse[i].indices == general->sparse[i].indices);
      ASSERT_TRUE(fast->sparse[i].values == general->sparse[i].values)
          << round << " " << i;
      ASSERT_TRUE(fast->sparse[i].dense_shape ==
                  general->sparse[i].dense_shape);
    }
  };
  int ok = 0;
  for (int round = 0; round < 600; ++round) {
    // Errors are rare in half of the rounds, common in the others.
    noise = round % 2 == 0 ? 0 : 8;
    const int batch = 1 + static_cast<int>(rng() % 6);
    std::vector<std::string> fast_records;
    std::vector<std::string> general_records;
    for (int b = 0; b < batch; ++b) {
      fast_records.push_back(record());
      general_records.push_back(fast_records.back() + trailer);
    }
    const Result<ParsedFeatures> fast = parser.ParseBatch(fast_records);
    ok += fast.ok() ? 1 : 0;
    same(fast, parser.ParseBatch(general_records), round);
    same(parser.ParseSingle(fast_records[0]),
         parser.ParseSingle(general_records[0]), round);
  }
  // Both outcomes are exercised.
  EXPECT_GT(ok, 30);
  EXPECT_LT(ok, 570);
}

}  // namespace
}  // namespace inflow
