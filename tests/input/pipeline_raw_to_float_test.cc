// Copyright 2026 The inflow Authors.
//
// PipelineOptions::raw_to_float: a bytes feature decoded to float32 while
// parsing gives what DecodeRawToFloat gives after parsing, for the usual
// records and for those that take the general path (defaults, repeated
// keys); values of another length and bad options are errors naming them.

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/example/decode_raw.h"
#include "inflow/input/pipeline.h"
#include "inflow/io/mem_env.h"

#include "pipeline_test_util.h"

namespace inflow {
namespace {

using namespace testing_util;  // NOLINT(build/namespaces)

// {"id": id, "img": 4 bytes id, id + 1, id + 2, 250}.
std::string ImageRecord(int64_t id) {
  const std::string img = {static_cast<char>(id), static_cast<char>(id + 1),
                           static_cast<char>(id + 2), static_cast<char>(250)};
  return Example()
      .Set("id", Feature::Int64s({id}))
      .Set("img", Feature::Bytes({img}))
      .Serialize();
}

PipelineOptions Fused(MemEnv& env, std::string name) {
  PipelineOptions o;
  o.files = {"/img/*"};
  o.env = &env;
  o.num_epochs = 1;
  o.shuffle_files = false;
  o.features = {{"img", FixedLenFeature({}, DType::kString)},
                {"id", FixedLenFeature({}, DType::kInt64)}};
  o.raw_to_float = {{.feature = "img", .length = 4, .scale = 0.5f}};
  o.batching = {.batch_size = 100, .allow_smaller_final_batch = true};
  o.name = std::move(name);
  return o;
}

// Every batch of `pipeline`: the images (floats) and ids, in order.
void DrainImages(Pipeline& pipeline, std::vector<float>* images,
                 std::vector<int64_t>* ids, Status* end) {
  while (true) {
    Result<Tuple> b = pipeline.Next();
    if (!b.ok()) {
      *end = b.status();
      return;
    }
    ASSERT_EQ((*b)[0].dtype(), DType::kFloat32);
    ASSERT_EQ((*b)[0].shape().rank(), 2);
    ASSERT_EQ((*b)[0].shape().dim(1), 4);
    const std::span<const float> f = (*b)[0].flat<float>();
    images->insert(images->end(), f.begin(), f.end());
    const std::span<const int64_t> i = (*b)[1].flat<int64_t>();
    ids->insert(ids->end(), i.begin(), i.end());
  }
}

std::vector<float> Expected(const std::vector<int64_t>& ids) {
  std::vector<float> out;
  for (int64_t id : ids) {
    for (int b : {static_cast<int>(static_cast<uint8_t>(id)),
                  static_cast<int>(static_cast<uint8_t>(id + 1)),
                  static_cast<int>(static_cast<uint8_t>(id + 2)), 250}) {
      out.push_back(static_cast<float>(b) * 0.5f);
    }
  }
  return out;
}

TEST(PipelineRawToFloatTest, TheFeatureComesOutAsScaledFloatsOfItsBytes) {
  MemEnv env;
  std::vector<std::string> records;
  for (int i = 0; i < 30; ++i) records.push_back(ImageRecord(i * 7));
  WriteRecordFile(env, "/img/a", records);
  PipelineOptions o = Fused(env, "fused");
  o.read_batch = 8;
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<float> images;
  std::vector<int64_t> ids;
  Status end;
  DrainImages(**pipeline, &images, &ids, &end);
  EXPECT_TRUE(IsOutOfRange(end)) << end;
  std::vector<int64_t> want_ids;
  for (int i = 0; i < 30; ++i) want_ids.push_back(i * 7);
  EXPECT_EQ(ids, want_ids);
  EXPECT_EQ(images, Expected(want_ids));
}

TEST(PipelineRawToFloatTest, AFusedFeatureAloneNeedsNoOtherParse) {
  MemEnv env;
  WriteRecordFile(
      env, "/img/a",
      {ImageRecord(4), ImageRecord(8), ImageRecord(99) + ImageRecord(15)});
  PipelineOptions o = Fused(env, "alone");
  o.features.pop_back();  // "id"
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Result<Tuple> b = (*pipeline)->Next();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->size(), 1u);
  const std::span<const float> f = (*b)[0].flat<float>();
  EXPECT_EQ(std::vector<float>(f.begin(), f.end()), Expected({4, 8, 15}));
  EXPECT_TRUE(IsOutOfRange((*pipeline)->Next().status()));
}

TEST(PipelineRawToFloatTest, DefaultsAndRepeatedKeysResolveAsTheParserDoes) {
  MemEnv env;
  // Record 1 lacks "img" (the default is used); record 2 holds two "img"
  // entries (merged messages), the last of which wins.
  const std::string no_img =
      Example().Set("id", Feature::Int64s({1})).Serialize();
  WriteRecordFile(env, "/img/a",
                  {ImageRecord(0), no_img, ImageRecord(99) + ImageRecord(2),
                   ImageRecord(3)});
  PipelineOptions o = Fused(env, "fallback");
  o.read_batch = 1;  // record 1 alone takes the general path
  Tensor def(DType::kString, TensorShape({}));
  def.mutable_flat<std::string>().value()[0] = std::string("\x01\x02\x03\xfa");
  o.features[0].second = FixedLenFeature({}, DType::kString, def);
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<float> images;
  std::vector<int64_t> ids;
  Status end;
  DrainImages(**pipeline, &images, &ids, &end);
  EXPECT_TRUE(IsOutOfRange(end)) << end;
  EXPECT_EQ(ids, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(images, Expected({0, 1, 2, 3}));
}

TEST(PipelineRawToFloatTest, ShuffledRowsAreWrittenIntoTheQueueWhole) {
  // A shuffle queue of numeric rows: chunks that take raw_to_float are
  // written straight into its slots, the rest (record 55 of each file has
  // no image and takes the default) go through the general path; every
  // row comes out once, its image its id's.
  MemEnv env;
  std::vector<int64_t> want_ids;
  for (int f = 0; f < 3; ++f) {
    std::vector<std::string> records;
    for (int i = 0; i < 100; ++i) {
      const int64_t id = f * 100 + i;
      want_ids.push_back(id);
      records.push_back(
          i == 55 ? Example().Set("id", Feature::Int64s({id})).Serialize()
                  : ImageRecord(id));
    }
    WriteRecordFile(env, "/img/" + std::to_string(f), records);
  }
  PipelineOptions o = Fused(env, "shuffled");
  o.num_readers = 2;
  o.read_batch = 8;
  Tensor def(DType::kString, TensorShape({}));
  def.mutable_flat<std::string>().value()[0] = std::string("\x07\x07\x07\x07");
  o.features[0].second = FixedLenFeature({}, DType::kString, def);
  o.batching = {.batch_size = 16,
                .shuffle = true,
                .capacity = 64,
                .min_after_dequeue = 20,
                .seed = 3,
                .allow_smaller_final_batch = true};
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<float> images;
  std::vector<int64_t> ids;
  Status end;
  DrainImages(**pipeline, &images, &ids, &end);
  EXPECT_TRUE(IsOutOfRange(end)) << end;
  ASSERT_EQ(images.size(), 4 * ids.size());
  std::vector<std::pair<int64_t, std::vector<float>>> rows;
  for (size_t i = 0; i < ids.size(); ++i) {
    rows.emplace_back(ids[i], std::vector<float>(images.begin() + 4 * i,
                                                 images.begin() + 4 * i + 4));
  }
  EXPECT_NE(ids, want_ids);  // shuffled
  std::sort(rows.begin(), rows.end());
  ASSERT_EQ(rows.size(), want_ids.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].first, want_ids[i]);
    const std::vector<float> want = want_ids[i] % 100 == 55
                                        ? std::vector<float>(4, 3.5f)
                                        : Expected({want_ids[i]});
    EXPECT_EQ(rows[i].second, want) << "id " << want_ids[i];
  }
}

TEST(PipelineRawToFloatTest, OtherFeaturesOfEveryKindComeOutAsTheParserGives) {
  // A float32 [2] feature is read from the record's view with the image;
  // a string feature makes the parser parse the others. A record whose
  // float feature has 3 values takes the general path, and its error is
  // the parser's.
  MemEnv env;
  const auto record = [](int64_t id, std::vector<float> xy) {
    const std::string img = {static_cast<char>(id), static_cast<char>(id + 1),
                             static_cast<char>(id + 2), static_cast<char>(250)};
    return Example()
        .Set("id", Feature::Int64s({id}))
        .Set("xy", Feature::Floats(std::move(xy)))
        .Set("name", Feature::Bytes({"n" + std::to_string(id)}))
        .Set("img", Feature::Bytes({img}))
        .Serialize();
  };
  WriteRecordFile(env, "/img/a",
                  {record(1, {0.5f, 1.5f}), record(2, {2.5f, -1})});
  // Alone in its file: the error may reach Next() before any batch.
  const std::vector<uint64_t> offsets = WriteRecordFile(
      env, "/bad/a", {record(0, {0.5f, 1.5f}), record(3, {1, 2, 3})});
  for (bool with_name : {false, true}) {
    PipelineOptions o = Fused(env, with_name ? "named" : "xy");
    o.features.push_back({"xy", FixedLenFeature({2}, DType::kFloat32)});
    if (with_name) {
      o.features.push_back({"name", FixedLenFeature({}, DType::kString)});
    }
    o.read_batch = 2;
    o.batching.batch_size = 2;
    auto pipeline = Pipeline::Create(o);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    Result<Tuple> b = (*pipeline)->Next();
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_EQ(b->size(), with_name ? 4u : 3u);
    const std::span<const float> img = (*b)[0].flat<float>();
    EXPECT_EQ(std::vector<float>(img.begin(), img.end()), Expected({1, 2}));
    const std::span<const int64_t> ids = (*b)[1].flat<int64_t>();
    EXPECT_EQ(std::vector<int64_t>(ids.begin(), ids.end()),
              (std::vector<int64_t>{1, 2}));
    EXPECT_EQ((*b)[2].shape(), TensorShape({2, 2}));
    const std::span<const float> xy = (*b)[2].flat<float>();
    EXPECT_EQ(std::vector<float>(xy.begin(), xy.end()),
              (std::vector<float>{0.5f, 1.5f, 2.5f, -1}));
    if (with_name) {
      const std::span<const std::string> names = (*b)[3].flat<std::string>();
      EXPECT_EQ(std::vector<std::string>(names.begin(), names.end()),
                (std::vector<std::string>{"n1", "n2"}));
    }
    EXPECT_TRUE(IsOutOfRange((*pipeline)->Next().status()));
    o.files = {"/bad/*"};
    o.name += "_bad";
    pipeline = Pipeline::Create(o);
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    Status end;
    while (end.ok()) end = (*pipeline)->Next().status();
    EXPECT_TRUE(IsInvalidArgument(end)) << end;
    EXPECT_NE(end.message().find("record /bad/a:" + std::to_string(offsets[1])),
              std::string::npos)
        << end;
    EXPECT_NE(end.message().find("xy"), std::string::npos) << end;
  }
}

TEST(PipelineRawToFloatTest, AValueOfAnotherLengthIsAParseErrorNamingIt) {
  MemEnv env;
  const std::string short_img = Example()
                                    .Set("id", Feature::Int64s({5}))
                                    .Set("img", Feature::Bytes({"abc"}))
                                    .Serialize();
  const std::vector<uint64_t> offsets = WriteRecordFile(
      env, "/img/a", {ImageRecord(0), ImageRecord(1), short_img});
  auto pipeline = Pipeline::Create(Fused(env, "short"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<float> images;
  std::vector<int64_t> ids;
  Status end;
  DrainImages(**pipeline, &images, &ids, &end);
  EXPECT_TRUE(IsInvalidArgument(end)) << end;
  EXPECT_EQ(end.message(),
            "parse: record /img/a:" + std::to_string(offsets[2]) +
                ": feature \"img\" has 3 bytes, raw_to_float "
                "wants 4")
      << end;
}

TEST(PipelineRawToFloatTest, ARecordThatIsNotAnExampleIsStillNamed) {
  MemEnv env;
  const std::vector<uint64_t> offsets = WriteRecordFile(
      env, "/img/a", {ImageRecord(0), "\xff\xff not an Example"});
  auto pipeline = Pipeline::Create(Fused(env, "malformed"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  std::vector<float> images;
  std::vector<int64_t> ids;
  Status end;
  DrainImages(**pipeline, &images, &ids, &end);
  EXPECT_TRUE(IsInvalidArgument(end)) << end;
  const std::string prefix =
      "parse: record /img/a:" + std::to_string(offsets[1]) + ": ";
  EXPECT_EQ(end.message().rfind(prefix, 0), 0u) << end;
}

TEST(PipelineRawToFloatTest, BadRawToFloatOptionsAreInvalidArgumentNamingIt) {
  MemEnv env;
  WriteRecordFile(env, "/img/a", {ImageRecord(0)});
  const auto create = [&env](PipelineOptions::RawToFloat r,
                             std::string_view want) {
    PipelineOptions o = Fused(env, "bad");
    o.raw_to_float = {r};
    if (r.feature == "twice") {
      o.raw_to_float = {{.feature = "img", .length = 4},
                        {.feature = "img", .length = 4}};
    }
    Status s = Pipeline::Create(o).status();
    EXPECT_TRUE(IsInvalidArgument(s)) << s;
    EXPECT_NE(s.message().find(want), std::string::npos) << s;
  };
  create({.feature = "nope", .length = 4}, "\"nope\" is not one of");
  create({.feature = "id", .length = 4}, "FixedLenFeature({}, kString)");
  create({.feature = "img", .length = 0}, "length must be >= 1");
  create({.feature = "twice"}, "named twice");
  EXPECT_TRUE(LiveThreads("bad").empty());
}

}  // namespace
}  // namespace inflow
