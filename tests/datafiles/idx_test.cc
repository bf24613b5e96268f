// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/idx.h"

#include <cstring>
#include <numeric>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

#include "datafiles/dataset_bytes.h"

namespace inflow {
namespace {

using testing::Gzip;
using ::testing::HasSubstr;
using testing::IdxBytes;

constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist/";

class IdxTest : public ::testing::Test {
 protected:
  Result<Tensor> Read(const std::string& bytes,
                      const std::string& path = "/d/file.idx") {
    EXPECT_TRUE(WriteStringToFile(env_, path, bytes).ok());
    return ReadIdxFile(env_, path);
  }
  MemEnv env_;
};

TEST_F(IdxTest, ReadsUint8ImagesInRowMajorOrder) {
  std::string pixels(2 * 3 * 4, '\0');
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<char>(i);
  Result<Tensor> t = Read(IdxBytes(0x08, {2, 3, 4}, pixels));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kUInt8);
  EXPECT_EQ(t->shape().dims(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(std::memcmp(t->raw_data(), pixels.data(), pixels.size()), 0);
  EXPECT_TRUE(t->mutable_raw_data().ok()) << "the tensor owns its memory";
}

TEST_F(IdxTest, ConvertsBigEndianElementsToHostOrder) {
  // int32 258 and -2, big-endian.
  Result<Tensor> i32 = Read(
      IdxBytes(0x0C, {2}, std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)));
  ASSERT_TRUE(i32.ok()) << i32.status();
  EXPECT_EQ(i32->dtype(), DType::kInt32);
  EXPECT_EQ(i32->data<int32_t>()[0], 258);
  EXPECT_EQ(i32->data<int32_t>()[1], -2);
  // int16 -3; float32 1.5 (0x3fc00000); float64 -2.0; int8 -1.
  Result<Tensor> i16 = Read(IdxBytes(0x0B, {1}, std::string("\xff\xfd", 2)));
  ASSERT_TRUE(i16.ok()) << i16.status();
  EXPECT_EQ(i16->data<int16_t>()[0], -3);
  Result<Tensor> f32 =
      Read(IdxBytes(0x0D, {1}, std::string("\x3f\xc0\x00\x00", 4)));
  ASSERT_TRUE(f32.ok()) << f32.status();
  EXPECT_EQ(f32->data<float>()[0], 1.5f);
  Result<Tensor> f64 = Read(IdxBytes(
      0x0E, {1, 1}, std::string("\xc0\x00\x00\x00\x00\x00\x00\x00", 8)));
  ASSERT_TRUE(f64.ok()) << f64.status();
  EXPECT_EQ(f64->shape().dims(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(f64->data<double>()[0], -2.0);
  Result<Tensor> i8 = Read(IdxBytes(0x09, {1}, "\xff"));
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_EQ(i8->data<int8_t>()[0], -1);
}

TEST_F(IdxTest, GzipFileIsRecognisedByItsMagicNotItsName) {
  const std::string plain = IdxBytes(0x08, {3}, "abc");
  Result<Tensor> t = Read(Gzip(plain), "/d/no-suffix");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(std::string(static_cast<const char*>(t->raw_data()), 3), "abc");
  // And a plain file named .gz is read as plain.
  Result<Tensor> p = Read(plain, "/d/plain.gz");
  ASSERT_TRUE(p.ok()) << p.status();
}

TEST_F(IdxTest, BadMagicIsInvalidArgumentNamingTheFile) {
  Result<Tensor> t = Read(std::string("\x01\x00\x08\x01\x00\x00\x00\x00", 8));
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("/d/file.idx"));
  EXPECT_THAT(t.status().message(), HasSubstr("not an IDX file"));
  EXPECT_THAT(t.status().message(), HasSubstr("byte offset 0"));
}

TEST_F(IdxTest, UnknownTypeCodeIsInvalidArgumentAtOffset2) {
  Result<Tensor> t = Read(IdxBytes(0x0A, {1}, "x"));
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("type code 0x0a"));
  EXPECT_THAT(t.status().message(), HasSubstr("byte offset 2"));
}

TEST_F(IdxTest, NoDimensionsIsInvalidArgument) {
  Result<Tensor> t = Read(IdxBytes(0x08, {}, "x"));
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("no dimensions"));
}

TEST_F(IdxTest, BytesAfterTheDataAreInvalidArgument) {
  Result<Tensor> plain = Read(IdxBytes(0x08, {2}, "abc"));
  ASSERT_TRUE(IsInvalidArgument(plain.status())) << plain.status();
  EXPECT_THAT(plain.status().message(), HasSubstr("1 unexpected bytes"));
  EXPECT_THAT(plain.status().message(), HasSubstr("byte offset 10"));
  Result<Tensor> gz = Read(Gzip(IdxBytes(0x08, {2}, "abc")));
  ASSERT_TRUE(IsInvalidArgument(gz.status())) << gz.status();
  EXPECT_THAT(gz.status().message(), HasSubstr("decompressed"));
}

TEST_F(IdxTest, ShortDataIsDataLossNamingExpectedAndActualSize) {
  Result<Tensor> t = Read(IdxBytes(0x08, {2, 2}, "abc"));
  ASSERT_TRUE(IsDataLoss(t.status())) << t.status();
  EXPECT_THAT(t.status().message(),
              HasSubstr("/d/file.idx: truncated IDX data"));
  EXPECT_THAT(t.status().message(),
              HasSubstr("expected 4 bytes from byte offset 12"));
  EXPECT_THAT(t.status().message(), HasSubstr("ends at byte offset 15"));
}

TEST_F(IdxTest, HugeDimensionsFailWithoutAllocatingWhatTheHeaderPromises) {
  // 65535^3 bytes (2.8e14): plain and gzip both fail from what is there.
  const std::string bytes = IdxBytes(0x08, {65535, 65535, 65535}, "abc");
  Result<Tensor> plain = Read(bytes);
  EXPECT_TRUE(IsDataLoss(plain.status())) << plain.status();
  Result<Tensor> gz = Read(Gzip(bytes));
  EXPECT_TRUE(IsDataLoss(gz.status())) << gz.status();
  // A product past 2^63 is INVALID_ARGUMENT.
  Result<Tensor> overflow =
      Read(IdxBytes(0x0E, {0xffffffff, 0xffffffff, 0xffffffff}, ""));
  ASSERT_TRUE(IsInvalidArgument(overflow.status())) << overflow.status();
  EXPECT_THAT(overflow.status().message(), HasSubstr("overflow"));
}

TEST_F(IdxTest, GzipCutInsideItsTrailerIsDataLossThoughTheDataIsWhole) {
  const std::string gz = Gzip(IdxBytes(0x08, {3}, "abc"));
  Result<Tensor> t = Read(gz.substr(0, gz.size() - 4));
  ASSERT_TRUE(IsDataLoss(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("cut short"));
}

TEST_F(IdxTest, CorruptGzipChecksumIsDataLoss) {
  std::string gz = Gzip(IdxBytes(0x08, {3}, "abc"));
  gz[gz.size() - 6] ^= 0x55;  // inside the CRC-32 of the trailer
  Result<Tensor> t = Read(gz);
  ASSERT_TRUE(IsDataLoss(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("/d/file.idx"));
}

TEST_F(IdxTest, MissingFileIsNotFound) {
  Result<Tensor> t = ReadIdxFile(env_, "/d/missing");
  EXPECT_TRUE(IsNotFound(t.status())) << t.status();
}

TEST(FashionMnistIdxTest, TrainFilesHold60000ImagesWithTheKnownFirstLabels) {
  Env& env = Env::Default();
  const std::string dir = kFashionMnist;
  Result<Tensor> images = ReadIdxFile(env, dir + "train-images-idx3-ubyte.gz");
  ASSERT_TRUE(images.ok()) << images.status();
  EXPECT_EQ(images->dtype(), DType::kUInt8);
  EXPECT_EQ(images->shape().dims(), (std::vector<int64_t>{60000, 28, 28}));
  Result<Tensor> labels = ReadIdxFile(env, dir + "train-labels-idx1-ubyte.gz");
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(labels->shape().dims(), (std::vector<int64_t>{60000}));
  const uint8_t* l = labels->data<uint8_t>();
  EXPECT_EQ((std::vector<int>{l[0], l[1], l[2], l[3], l[4]}),
            (std::vector<int>{9, 0, 0, 3, 0}));
  // Image 0: its pixel sum and pixels 400..409 (numpy on the same file).
  const uint8_t* px = images->data<uint8_t>();
  EXPECT_EQ(std::accumulate(px, px + 784, 0), 76247);
  EXPECT_EQ(std::vector<int>(px + 400, px + 410),
            (std::vector<int>{0, 0, 0, 0, 237, 226, 217, 223, 222, 219}));
}

TEST(FashionMnistIdxTest, TestFilesHold10000ImagesWithTheKnownFirstLabels) {
  Env& env = Env::Default();
  const std::string dir = kFashionMnist;
  Result<Tensor> images = ReadIdxFile(env, dir + "t10k-images-idx3-ubyte.gz");
  ASSERT_TRUE(images.ok()) << images.status();
  EXPECT_EQ(images->shape().dims(), (std::vector<int64_t>{10000, 28, 28}));
  Result<Tensor> labels = ReadIdxFile(env, dir + "t10k-labels-idx1-ubyte.gz");
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_EQ(labels->shape().dims(), (std::vector<int64_t>{10000}));
  const uint8_t* l = labels->data<uint8_t>();
  EXPECT_EQ((std::vector<int>{l[0], l[1], l[2], l[3], l[4]}),
            (std::vector<int>{9, 2, 1, 1, 6}));
}

}  // namespace
}  // namespace inflow
