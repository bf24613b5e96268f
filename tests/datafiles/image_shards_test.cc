// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/image_shards.h"

#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_reader.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

// n images of h x w (x c) uint8 whose pixels are (i * 31 + p) % 256, and
// labels i % 10 as int32.
Tensor Images(int64_t n, int64_t h, int64_t w, int64_t c = 0) {
  TensorShape shape = c ? TensorShape({n, h, w, c}) : TensorShape({n, h, w});
  Tensor t(DType::kUInt8, shape);
  uint8_t* p = t.mutable_flat<uint8_t>()->data();
  const int64_t per = h * w * (c ? c : 1);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < per; ++j)
      p[i * per + j] = uint8_t((i * 31 + j) % 256);
  }
  return t;
}

Tensor Labels(int64_t n) {
  Tensor t(DType::kInt32, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i)
    (*t.mutable_flat<int32_t>())[i] = int32_t(i % 10);
  return t;
}

std::vector<Example> ReadExamples(Env& env, const std::string& path,
                                  CompressionType compression) {
  RecordReaderOptions options;
  options.compression = compression;
  auto reader = RecordReader::Open(env, path, options);
  EXPECT_TRUE(reader.ok()) << reader.status();
  std::vector<Example> out;
  while (true) {
    Result<std::string_view> r = (*reader)->Next();
    if (!r.ok()) {
      EXPECT_TRUE(IsOutOfRange(r.status())) << r.status();
      return out;
    }
    Result<Example> e = Example::Parse(*r);
    EXPECT_TRUE(e.ok()) << e.status();
    out.push_back(*e);
  }
}

TEST(ImageShardsTest, ShardFileNameHasFiveDigitIndexAndCount) {
  EXPECT_EQ(ShardFileName("out/train", 3, 10),
            "out/train-00003-of-00010.tfrecord");
}

TEST(ImageShardsTest, ExampleHoldsImageRawLabelAndDimensions) {
  Result<Example> e = Example::Parse(EncodeImageExample("abcd", 7, 2, 2, 1));
  ASSERT_TRUE(e.ok()) << e.status();
  const FeatureMap& f = e->features();
  EXPECT_EQ(f.size(), 5u);
  EXPECT_EQ(f.at("image_raw").bytes(), std::vector<std::string>{"abcd"});
  EXPECT_EQ(f.at("label").int64s(), std::vector<int64_t>{7});
  EXPECT_EQ(f.at("height").int64s(), std::vector<int64_t>{2});
  EXPECT_EQ(f.at("width").int64s(), std::vector<int64_t>{2});
  EXPECT_EQ(f.at("depth").int64s(), std::vector<int64_t>{1});
}

TEST(ImageShardsTest, ShardsHoldContiguousRangesInSourceOrder) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("/out").ok());
  const Tensor images = Images(10, 2, 3);
  PendingFiles pending(env);
  std::vector<int64_t> progress;
  ImageShardOptions options;
  options.num_shards = 3;
  options.progress = [&](int64_t done) { progress.push_back(done); };
  auto paths =
      WriteImageShards(env, images, Labels(10), "/out/train", options, pending);
  ASSERT_TRUE(paths.ok()) << paths.status();
  ASSERT_EQ(paths->size(), 3u);
  EXPECT_EQ((*paths)[2], "/out/train-00002-of-00003.tfrecord");
  EXPECT_EQ(progress.size(), 10u);
  EXPECT_EQ(progress.back(), 10);
  // Nothing under a final name before the commit.
  for (const std::string& p : *paths)
    EXPECT_TRUE(IsNotFound(env.FileExists(p)));
  ASSERT_TRUE(pending.Commit().ok());
  const std::vector<size_t> counts = {3, 3, 4};
  int64_t i = 0;
  for (size_t s = 0; s < 3; ++s) {
    std::vector<Example> examples =
        ReadExamples(env, (*paths)[s], CompressionType::kNone);
    ASSERT_EQ(examples.size(), counts[s]) << s;
    for (const Example& e : examples) {
      const std::string& raw = e.features().at("image_raw").bytes()[0];
      ASSERT_EQ(raw.size(), 6u);
      EXPECT_EQ(std::memcmp(raw.data(), images.data<uint8_t>() + i * 6, 6), 0);
      EXPECT_EQ(e.features().at("label").int64s()[0], i % 10);
      ++i;
    }
  }
}

TEST(ImageShardsTest, GzipAndZlibShardsReadBackTheSameRecords) {
  for (CompressionType c : {CompressionType::kGzip, CompressionType::kZlib}) {
    MemEnv env;
    ASSERT_TRUE(env.CreateDir("/out").ok());
    PendingFiles pending(env);
    ImageShardOptions options;
    options.writer.compression = c;
    auto paths = WriteImageShards(env, Images(5, 2, 2, 3), Labels(5), "/out/x",
                                  options, pending);
    ASSERT_TRUE(paths.ok()) << paths.status();
    ASSERT_TRUE(pending.Commit().ok());
    std::vector<Example> examples = ReadExamples(env, (*paths)[0], c);
    ASSERT_EQ(examples.size(), 5u);
    EXPECT_EQ(examples[4].features().at("depth").int64s()[0], 3);
    EXPECT_EQ(examples[4].features().at("image_raw").bytes()[0].size(), 12u);
    EXPECT_EQ(examples[4].features().at("label").int64s()[0], 4);
  }
}

TEST(ImageShardsTest, BadShapesDtypesAndShardCountsAreInvalidArgument) {
  MemEnv env;
  PendingFiles pending(env);
  ImageShardOptions options;
  auto flat = WriteImageShards(env, Tensor(DType::kUInt8, TensorShape({4, 9})),
                               Labels(4), "/o", options, pending);
  EXPECT_TRUE(IsInvalidArgument(flat.status())) << flat.status();
  EXPECT_THAT(flat.status().message(), HasSubstr("[4, 9]"));
  auto float_labels = WriteImageShards(
      env, Images(2, 1, 1), Tensor(DType::kFloat32, TensorShape({2})), "/o",
      options, pending);
  EXPECT_THAT(float_labels.status().message(), HasSubstr("integers"));
  auto mismatch =
      WriteImageShards(env, Images(3, 1, 1), Labels(2), "/o", options, pending);
  EXPECT_THAT(mismatch.status().message(), HasSubstr("3 images"));
  options.num_shards = 0;
  auto zero =
      WriteImageShards(env, Images(3, 1, 1), Labels(3), "/o", options, pending);
  EXPECT_TRUE(IsInvalidArgument(zero.status())) << zero.status();
}

TEST(ImageShardsTest, WriteErrorNamesTheTemporaryFile) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("/out").ok());
  const std::string final_path = ShardFileName("/out/t", 0, 1);
  const std::string tmp = PendingFiles::TemporaryPath(final_path);
  env.InjectWriteError(tmp, 100, UnavailableError("disk gone"));
  {
    PendingFiles pending(env);
    auto paths = WriteImageShards(env, Images(10, 4, 4), Labels(10), "/out/t",
                                  {}, pending);
    ASSERT_FALSE(paths.ok());
    EXPECT_THAT(paths.status().message(), HasSubstr(tmp));
    EXPECT_THAT(paths.status().message(), HasSubstr("disk gone"));
  }
  EXPECT_TRUE(env.GetChildren("/out")->empty());
}

}  // namespace
}  // namespace inflow
