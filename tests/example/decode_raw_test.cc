// Copyright 2026 The inflow Authors.

#include "inflow/example/decode_raw.h"

#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/example/feature_view.h"

namespace inflow {
namespace {

using ::testing::ElementsAre;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto flat = t.flat<T>();
  return std::vector<T>(flat.begin(), flat.end());
}

TEST(DecodeRawTest, LittleAndBigEndian) {
  const std::string bytes("\x01\x02\x03\x04", 4);
  Result<Tensor> le = DecodeRaw(bytes, DType::kUInt16);
  ASSERT_TRUE(le.ok());
  EXPECT_THAT(Values<uint16_t>(*le), ElementsAre(0x0201, 0x0403));
  Result<Tensor> be = DecodeRaw(bytes, DType::kUInt16, /*little_endian=*/false);
  ASSERT_TRUE(be.ok());
  EXPECT_THAT(Values<uint16_t>(*be), ElementsAre(0x0102, 0x0304));
  Result<Tensor> u8 = DecodeRaw(bytes, DType::kUInt8, false);
  EXPECT_THAT(Values<uint8_t>(*u8), ElementsAre(1, 2, 3, 4));
  float f = 1.5f;
  Result<Tensor> fl = DecodeRaw(
      std::string_view(reinterpret_cast<char*>(&f), 4), DType::kFloat32);
  EXPECT_THAT(Values<float>(*fl), ElementsAre(1.5f));
}

// uint32 and uint64 decode like the other integer types, in both orders.
TEST(DecodeRawTest, UnsignedThirtyTwoAndSixtyFourBitInBothByteOrders) {
  const std::string bytes("\x01\x00\x00\x80\xff\xff\xff\xff", 8);
  Result<Tensor> le32 = DecodeRaw(bytes, DType::kUInt32);
  ASSERT_TRUE(le32.ok()) << le32.status();
  EXPECT_EQ(le32->dtype(), DType::kUInt32);
  EXPECT_THAT(Values<uint32_t>(*le32), ElementsAre(0x80000001u, 0xffffffffu));
  Result<Tensor> be32 = DecodeRaw(bytes, DType::kUInt32, false);
  ASSERT_TRUE(be32.ok()) << be32.status();
  EXPECT_THAT(Values<uint32_t>(*be32), ElementsAre(0x01000080u, 0xffffffffu));
  const std::string eight("\x01\x02\x03\x04\x05\x06\x07\x88", 8);
  Result<Tensor> le64 = DecodeRaw(eight, DType::kUInt64);
  ASSERT_TRUE(le64.ok()) << le64.status();
  EXPECT_EQ(le64->dtype(), DType::kUInt64);
  EXPECT_THAT(Values<uint64_t>(*le64), ElementsAre(0x8807060504030201u));
  Result<Tensor> be64 = DecodeRaw(eight, DType::kUInt64, false);
  ASSERT_TRUE(be64.ok()) << be64.status();
  EXPECT_THAT(Values<uint64_t>(*be64), ElementsAre(0x0102030405060788u));
  EXPECT_EQ(DecodeRaw(bytes.substr(0, 6), DType::kUInt32).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeRaw(bytes.substr(0, 4), DType::kUInt64).status().code(),
            StatusCode::kInvalidArgument);
  Tensor rows = Tensor::FromVector(std::vector<std::string>{eight, eight});
  Result<Tensor> batch = DecodeRaw(rows, DType::kUInt64, false);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(batch->shape(), TensorShape({2, 1}));
  EXPECT_THAT(Values<uint64_t>(*batch),
              ElementsAre(0x0102030405060788u, 0x0102030405060788u));
}

TEST(DecodeRawTest, LengthNotAMultipleIsInvalidArgument) {
  EXPECT_EQ(DecodeRaw("abc", DType::kInt32).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeRaw("ab", DType::kString).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DecodeRawTest, StringTensorGetsAnExtraDimension) {
  Tensor in = Tensor::FromVector(std::vector<std::string>{"ab", "cd", "ef"});
  Result<Tensor> out = DecodeRaw(in, DType::kUInt8);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values<uint8_t>(*out), ElementsAre('a', 'b', 'c', 'd', 'e', 'f'));
  Tensor ragged = Tensor::FromVector(std::vector<std::string>{"ab", "c"});
  EXPECT_EQ(DecodeRaw(ragged, DType::kUInt8).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DecodeRawTest, SharedDecodeViewsTheRecordWithoutCopying) {
  std::string pixels(784, '\0');
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<char>(i);
  auto record = std::make_shared<const std::string>(
      Example().Set("image", Feature::Bytes({pixels})).Serialize());
  ExampleView view;
  ASSERT_TRUE(view.Parse(*record).ok());
  std::string_view image;
  view.Find("image")->ForEachBytes([&](std::string_view v) { image = v; });
  Result<Tensor> t = DecodeRawShared(record, image, DType::kUInt8);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), TensorShape({784}));
  EXPECT_EQ(static_cast<const void*>(t->data<uint8_t>()),
            static_cast<const void*>(image.data()));
  EXPECT_EQ(t->data<uint8_t>()[200], 200);
  // The tensor keeps the record alive.
  std::weak_ptr<const std::string> weak = record;
  record.reset();
  EXPECT_FALSE(weak.expired());
  Tensor keep = *t;
  t = Tensor();
  EXPECT_FALSE(weak.expired());
  keep = Tensor();
  EXPECT_TRUE(weak.expired());
}

// The shared path's view is read-only: a write is refused (in every
// build) and the record keeps its bytes; a Clone is writable.
TEST(DecodeRawTest, SharedDecodeViewIsReadOnly) {
  // std::string's buffer is at least 8-byte aligned, so this is a view.
  auto record = std::make_shared<const std::string>(std::string(16, '\x02'));
  Result<Tensor> t = DecodeRawShared(record, *record, DType::kUInt64);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(static_cast<const void*>(t->raw_data()),
            static_cast<const void*>(record->data()));
  EXPECT_TRUE(t->read_only());
  EXPECT_EQ(t->mutable_flat<uint64_t>().status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(t->mutable_raw_data().status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(*record, std::string(16, '\x02'));
  Tensor copy = t->Clone();
  ASSERT_TRUE(copy.mutable_flat<uint64_t>().ok());
  (*copy.mutable_flat<uint64_t>())[0] = 7;
  EXPECT_EQ(*record, std::string(16, '\x02'));
  // A copy made because the address is misaligned is the caller's own.
  Result<Tensor> copied = DecodeRawShared(
      record, std::string_view(record->data() + 1, 8), DType::kUInt64);
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_FALSE(copied->read_only());
}

TEST(DecodeRawTest, SharedDecodeCopiesWhenMisalignedOrForeignOrder) {
  auto record = std::make_shared<const std::string>(std::string(9, '\x01'));
  std::string_view odd(record->data() + 1, 8);
  Result<Tensor> t = DecodeRawShared(record, odd, DType::kInt32);
  ASSERT_TRUE(t.ok());
  EXPECT_NE(static_cast<const void*>(t->raw_data()),
            static_cast<const void*>(odd.data()));
  EXPECT_THAT(Values<int32_t>(*t), ElementsAre(0x01010101, 0x01010101));
  std::string_view outside("abcd");
  EXPECT_EQ(DecodeRawShared(record, outside, DType::kUInt8).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace inflow

namespace inflow {
namespace {

TEST(DecodeRawToFloatTest, BytesBecomeFloatsTimesTheScaleWithAnExtraDimension) {
  Tensor bytes(DType::kString, TensorShape({2}));
  auto in = bytes.mutable_flat<std::string>().value();
  in[0] = std::string("\x00\x01\xff", 3);
  in[1] = std::string("\x80\x02\x10", 3);
  Result<Tensor> f = DecodeRawToFloat(bytes, 1.0f / 255);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->dtype(), DType::kFloat32);
  EXPECT_EQ(f->shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<float>(*f),
              ElementsAre(0.0f, 1.0f / 255, 255.0f / 255, 128.0f / 255,
                          2.0f / 255, 16.0f / 255));
}

TEST(DecodeRawToFloatTest, ViewsGiveTheSameAsAStringTensor) {
  const std::string a(784, '\x7b'), b(784, '\xfe');
  const std::string_view views[] = {a, b};
  Result<Tensor> f = DecodeRawToFloat(views, 0.5f);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->shape(), TensorShape({2, 784}));
  EXPECT_EQ(f->flat<float>()[783], 123 * 0.5f);
  EXPECT_EQ(f->flat<float>()[784], 254 * 0.5f);
}

TEST(DecodeRawToFloatTest, UnequalLengthsAndNonStringInputAreInvalidArgument) {
  const std::string a(4, 'a'), b(5, 'b');
  const std::string_view views[] = {a, b};
  Result<Tensor> f = DecodeRawToFloat(views, 1.0f);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(f.status().message()),
              ::testing::HasSubstr("element 1 has size 5 != 4"));
  Result<Tensor> g =
      DecodeRawToFloat(Tensor(DType::kInt64, TensorShape({2})), 1.0f);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace inflow
