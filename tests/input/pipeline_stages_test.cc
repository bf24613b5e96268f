// Copyright 2026 The inflow Authors.
//
// The Pipeline's stages one at a time: file patterns, the map function,
// parse and map errors with their records, the text-line and fixed-length
// readers, option errors.

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/example/decode_raw.h"
#include "inflow/input/pipeline.h"
#include "inflow/io/mem_env.h"

#include "pipeline_test_util.h"

namespace inflow {
namespace {

using namespace testing_util;  // NOLINT(build/namespaces)

PipelineOptions OneEpoch(MemEnv& env, std::vector<std::string> files,
                         std::string name) {
  PipelineOptions o;
  o.files = std::move(files);
  o.env = &env;
  o.num_epochs = 1;
  o.shuffle_files = false;
  o.features = IdAndV();
  o.batching = {.batch_size = 10, .allow_smaller_final_batch = true};
  o.name = std::move(name);
  return o;
}

TEST(PipelineFilesTest, APatternReadsExactlyTheFilesItMatches) {
  MemEnv env;
  WriteShards(env, 4, 5);
  WriteRecordFile(env, "/data/other.tfrecord", {ExampleRecord(99)});
  auto pipeline = Pipeline::Create(
      OneEpoch(env, {"/data/part-[13].tfrecord", "/data/part-0*"}, "pattern"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ(
      (*pipeline)->files(),
      (std::vector<std::string>{ShardName(0), ShardName(1), ShardName(3)}));
  Drained d = Drain(**pipeline);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  // In file order (no shuffling, one reader, FIFO batching).
  EXPECT_EQ(d.ids,
            (std::vector<int64_t>{0, 1, 2, 3, 4, 10000, 10001, 10002, 10003,
                                  10004, 30000, 30001, 30002, 30003, 30004}));
  EXPECT_EQ(d.batch_sizes, (std::vector<int64_t>{10, 5}));
}

TEST(PipelineFilesTest, APatternMatchingNothingIsNotFoundNamingIt) {
  MemEnv env;
  WriteShards(env, 1, 1);
  auto pipeline = Pipeline::Create(OneEpoch(env, {"/data/*.rec"}, "no_match"));
  EXPECT_TRUE(IsNotFound(pipeline.status())) << pipeline.status();
  EXPECT_NE(pipeline.status().message().find("/data/*.rec"), std::string::npos);
}

TEST(PipelineMapTest, TheMapSeesParsedChunksAndDefinesTheOutput) {
  MemEnv env;
  WriteShards(env, 2, 7);
  PipelineOptions o = OneEpoch(env, {"/data/part-*"}, "map");
  o.read_batch = 3;
  o.include_key = true;
  // Output: id * 2, and the key's length.
  o.map = MapFunction{.fn = [](Tuple rows) -> Result<Tuple> {
                        if (rows.size() != 3)
                          return InternalError("expected id, v, key");
                        const int64_t n = rows[0].dim_size(0);
                        if (n < 1 || n > 3)
                          return InternalError("chunk of " + std::to_string(n));
                        std::vector<int64_t> doubled, key_length;
                        for (int64_t i = 0; i < n; ++i) {
                          doubled.push_back(2 * rows[0].flat<int64_t>()[i]);
                          key_length.push_back(static_cast<int64_t>(
                              rows[2].flat<std::string>()[i].size()));
                        }
                        return Tuple{Tensor::FromVector(doubled),
                                     Tensor::FromVector(key_length)};
                      },
                      .dtypes = {DType::kInt64, DType::kInt64},
                      .row_shapes = {PartialShape({}), PartialShape({})},
                      .names = {"twice", "key_length"}};
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ((*pipeline)->names(),
            (std::vector<std::string>{"twice", "key_length"}));
  std::vector<int64_t> twice;
  for (;;) {
    Result<NamedTuple> b = (*pipeline)->NextNamed();
    if (!b.ok()) {
      EXPECT_TRUE(IsOutOfRange(b.status())) << b.status();
      break;
    }
    for (int64_t v : b->at("twice").flat<int64_t>()) twice.push_back(v);
    for (int64_t len : b->at("key_length").flat<int64_t>()) {
      EXPECT_GT(len, static_cast<int64_t>(ShardName(0).size()));
    }
  }
  std::vector<int64_t> expected;
  for (int f = 0; f < 2; ++f) {
    for (int i = 0; i < 7; ++i) expected.push_back(2 * (10000 * f + i));
  }
  EXPECT_EQ(twice, expected);
  EXPECT_TRUE((*pipeline)->Close().ok());
}

TEST(PipelineMapTest, AMapErrorStopsThePipelineNamingStageAndRecord) {
  MemEnv env;
  WriteShards(env, 3, 20);
  PipelineOptions o = OneEpoch(env, {"/data/part-*"}, "map_error");
  o.read_batch = 1;
  o.map = MapFunction{.fn = [](Tuple rows) -> Result<Tuple> {
                        if (rows[0].flat<int64_t>()[0] == 10013) {
                          return InvalidArgumentError("no thirteens");
                        }
                        return rows;
                      },
                      .dtypes = {DType::kInt64, DType::kFloat32},
                      .row_shapes = {PartialShape({}), PartialShape({2})}};
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Drained d = Drain(**pipeline);
  EXPECT_TRUE(IsInvalidArgument(d.end)) << d.end;
  // Record 13 of part-1 starts at 13 frames of 16 + 27 bytes.
  const std::string record = ExampleRecord(10013);
  EXPECT_EQ(d.end.message(), "map: record " + ShardName(1) + ":" +
                                 std::to_string(13 * (16 + record.size())) +
                                 ": no thirteens");
  EXPECT_EQ((*pipeline)->Close(), d.end);
}

TEST(PipelineMapTest, AMapOutputOfAnotherSignatureIsAMapError) {
  MemEnv env;
  WriteShards(env, 1, 4);
  PipelineOptions o = OneEpoch(env, {"/data/part-*"}, "map_signature");
  o.map = MapFunction{.fn = [](Tuple rows) -> Result<Tuple> {
                        return Tuple{rows[1]};  // float [n, 2], not int64 [n]
                      },
                      .dtypes = {DType::kInt64},
                      .row_shapes = {PartialShape({})}};
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Status s = Drain(**pipeline, 0, false).end;
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_EQ(s.message().rfind("map: records " + ShardName(0) + ":0 .. ", 0), 0u)
      << s;
}

TEST(PipelineParseTest, ARecordThatIsNotAnExampleIsAParseErrorNamingIt) {
  MemEnv env;
  WriteShards(env, 3, 10);
  std::vector<std::string> records;
  for (int i = 0; i < 10; ++i) records.push_back(ExampleRecord(20000 + i));
  records[6] = "\xff\xff not an Example";
  const std::vector<uint64_t> offsets =
      WriteRecordFile(env, ShardName(2), records);
  auto pipeline =
      Pipeline::Create(OneEpoch(env, {"/data/part-*"}, "parse_error"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Status s = Drain(**pipeline).end;
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  const std::string prefix =
      "parse: record " + ShardName(2) + ":" + std::to_string(offsets[6]) + ": ";
  EXPECT_EQ(s.message().rfind(prefix, 0), 0u) << s;
}

TEST(PipelineReadersTest, TextLinesComeOutAsStringsWithTheirKeys) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "/t/a.txt", "header\none\ntwo\n").ok());
  ASSERT_TRUE(WriteStringToFile(env, "/t/b.txt", "header\nthree").ok());
  PipelineOptions o;
  o.files = {"/t/*.txt"};
  o.env = &env;
  o.num_epochs = 2;
  o.shuffle_files = false;
  o.format = RecordFormat::kTextLine;
  o.skip_header_lines = 1;
  o.include_key = true;
  o.batching = {.batch_size = 4, .allow_smaller_final_batch = true};
  o.name = "text";
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ((*pipeline)->names(), (std::vector<std::string>{"value", "key"}));
  std::vector<std::string> values, keys;
  for (;;) {
    Result<Tuple> b = (*pipeline)->Next();
    if (!b.ok()) {
      EXPECT_TRUE(IsOutOfRange(b.status())) << b.status();
      break;
    }
    for (const std::string& v : (*b)[0].flat<std::string>())
      values.push_back(v);
    for (const std::string& k : (*b)[1].flat<std::string>()) keys.push_back(k);
  }
  EXPECT_EQ(values, (std::vector<std::string>{"one", "two", "three", "one",
                                              "two", "three"}));
  EXPECT_EQ(keys, (std::vector<std::string>{"/t/a.txt:2", "/t/a.txt:3",
                                            "/t/b.txt:2", "/t/a.txt:2",
                                            "/t/a.txt:3", "/t/b.txt:2"}));
}

TEST(PipelineReadersTest, FixedLengthRecordsDecodedByTheMap) {
  MemEnv env;
  // A 2-byte header, records of 3 bytes, a 1-byte footer.
  ASSERT_TRUE(WriteStringToFile(env, "/b/x.bin",
                                std::string("HH\x01\x02\x03\x04\x05\x06"
                                            "F",
                                            9))
                  .ok());
  PipelineOptions o;
  o.files = {"/b/x.bin"};
  o.env = &env;
  o.num_epochs = 1;
  o.format = RecordFormat::kFixedLength;
  o.fixed_length = {.header_bytes = 2, .record_bytes = 3, .footer_bytes = 1};
  o.map = MapFunction{.fn = [](Tuple rows) -> Result<Tuple> {
                        INFLOW_ASSIGN_OR_RETURN(
                            Tensor bytes, DecodeRaw(rows[0], DType::kUInt8));
                        return Tuple{std::move(bytes)};
                      },
                      .dtypes = {DType::kUInt8},
                      .row_shapes = {PartialShape({3})}};
  o.batching = {.batch_size = 2};
  o.name = "fixed";
  auto pipeline = Pipeline::Create(o);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Result<Tuple> b = (*pipeline)->Next();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0],
            Tensor::FromVector<uint8_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))
                .value());
  EXPECT_TRUE(IsOutOfRange((*pipeline)->Next().status()));
}

TEST(PipelineOptionsTest, UnsupportedFeaturesAndBadCountsAreInvalidArgument) {
  MemEnv env;
  WriteShards(env, 1, 1);
  PipelineOptions sequence = OneEpoch(env, {"/data/part-*"}, "bad");
  sequence.features.push_back(
      {"tags", FixedLenSequenceFeature({}, DType::kString, true)});
  Status s = Pipeline::Create(sequence).status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("\"tags\""), std::string::npos) << s;
  PipelineOptions readers = OneEpoch(env, {"/data/part-*"}, "bad");
  readers.num_readers = 0;
  EXPECT_TRUE(IsInvalidArgument(Pipeline::Create(readers).status()));
  PipelineOptions chunk = OneEpoch(env, {"/data/part-*"}, "bad");
  chunk.read_batch = 0;
  EXPECT_TRUE(IsInvalidArgument(Pipeline::Create(chunk).status()));
  PipelineOptions map = OneEpoch(env, {"/data/part-*"}, "bad");
  map.map = MapFunction{.fn = [](Tuple t) -> Result<Tuple> { return t; },
                        .dtypes = {DType::kInt64},
                        .row_shapes = {PartialShape({-1})}};
  EXPECT_TRUE(IsInvalidArgument(Pipeline::Create(map).status()));
  PipelineOptions batch = OneEpoch(env, {"/data/part-*"}, "bad");
  batch.batching.batch_size = 0;
  EXPECT_TRUE(IsInvalidArgument(Pipeline::Create(batch).status()));
  EXPECT_TRUE(LiveThreads("bad").empty());
}

}  // namespace
}  // namespace inflow
