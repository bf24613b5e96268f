// Copyright 2026 The inflow Authors.
//
// The index messages and the data encoding, byte for byte, without files.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/crc32c.h"

#include "checkpoint/bundle_proto.h"
#include "checkpoint/tensor_bytes.h"

namespace inflow::internal {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

BundleHeader Header(int32_t num_shards, int32_t producer) {
  BundleHeader h;
  h.num_shards = num_shards;
  h.producer = producer;
  return h;
}

StoredEntry FloatScalarEntry() {
  StoredEntry stored;
  stored.entry.dtype = DType::kFloat32;
  stored.dtype_enum = 1;
  stored.entry.size = 4;
  stored.entry.masked_crc32c = 0x2bdaa581;
  return stored;
}

TEST(BundleProtoTest, HeaderIsTheBytesTensorFlowWrites) {
  EXPECT_EQ(EncodeBundleHeader(Header(1, 1)),
            Bytes({0x08, 0x01, 0x1a, 0x02, 0x08, 0x01}));
}

TEST(BundleProtoTest, ScalarEntryWritesAnEmptyShapeAndOmitsZeroFields) {
  // Worked example: v = 1.0 at offset 0 of shard 0.
  EXPECT_EQ(EncodeBundleEntry(FloatScalarEntry()),
            Bytes({0x08, 0x01, 0x12, 0x00, 0x28, 0x04, 0x35, 0x81, 0xa5, 0xda,
                   0x2b}));
}

TEST(BundleProtoTest, EntryRoundTripsEveryField) {
  StoredEntry in = FloatScalarEntry();
  in.entry.shape = TensorShape({0, 3, 1 << 20});
  in.entry.shard_id = 7;
  in.entry.offset = int64_t{1} << 40;
  in.entry.size = 0;
  in.entry.masked_crc32c = 0xffffffff;
  StoredEntry out;
  ASSERT_TRUE(DecodeBundleEntry(EncodeBundleEntry(in), &out).ok());
  EXPECT_EQ(out.entry.dtype, DType::kFloat32);
  EXPECT_EQ(out.entry.shape, in.entry.shape);
  EXPECT_EQ(out.entry.shard_id, 7);
  EXPECT_EQ(out.entry.offset, in.entry.offset);
  EXPECT_EQ(out.entry.size, 0);
  EXPECT_EQ(out.entry.masked_crc32c, 0xffffffffu);
  EXPECT_FALSE(out.entry.partitioned);
}

TEST(BundleProtoTest, ZeroDimensionIsWrittenAsAnEmptyDimMessage) {
  StoredEntry in = FloatScalarEntry();
  in.entry.shape = TensorShape({0});
  const std::string bytes = EncodeBundleEntry(in);
  EXPECT_EQ(bytes.substr(2, 4), Bytes({0x12, 0x02, 0x12, 0x00}));
}

TEST(BundleProtoTest, NegativeInt32IsTenBytesNotZigzag) {
  BundleHeader header = Header(-1, 0);
  const std::string bytes = EncodeBundleHeader(header);
  ASSERT_GE(bytes.size(), 11u);
  EXPECT_EQ(bytes.substr(0, 11), Bytes({0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0x01}));
  BundleHeader back;
  ASSERT_TRUE(DecodeBundleHeader(bytes, &back).ok());
  EXPECT_EQ(back.num_shards, -1);
}

TEST(BundleProtoTest, UnknownFieldsAndWrongWireTypesAreSkipped) {
  // field 9 varint, field 10 fixed64, field 11 group, dtype as fixed32
  // (wrong wire type: skipped), then the real dtype.
  std::string bytes =
      Bytes({0x48, 0x05, 0x51, 1,    2,    3, 4, 5, 6, 7,    8,
             0x5b, 0x08, 0x01, 0x5c, 0x0d, 9, 9, 9, 9, 0x08, 0x03});
  StoredEntry out;
  ASSERT_TRUE(DecodeBundleEntry(bytes, &out).ok());
  EXPECT_EQ(out.entry.dtype, DType::kInt32);
}

TEST(BundleProtoTest, LastScalarWinsAndShapesMerge) {
  // Two whole entries back to back parse as one message.
  StoredEntry a = FloatScalarEntry();
  a.entry.shape = TensorShape({2});
  StoredEntry b = FloatScalarEntry();
  b.entry.shape = TensorShape({3});
  b.dtype_enum = 9;
  const std::string bytes = EncodeBundleEntry(a) + EncodeBundleEntry(b);
  StoredEntry out;
  ASSERT_TRUE(DecodeBundleEntry(bytes, &out).ok());
  EXPECT_EQ(out.entry.dtype, DType::kInt64);
  EXPECT_EQ(out.entry.shape, TensorShape({2, 3}));
}

TEST(BundleProtoTest, SlicesMakeAnEntryPartitionedAndAreKept) {
  StoredEntry in = FloatScalarEntry();
  in.slices = {Bytes({0x0a, 0x02, 0x10, 0x05}), ""};
  StoredEntry out;
  ASSERT_TRUE(DecodeBundleEntry(EncodeBundleEntry(in), &out).ok());
  EXPECT_TRUE(out.entry.partitioned);
  EXPECT_EQ(out.slices, in.slices);
}

TEST(BundleProtoTest, DataTypeInflowLacksDecodesAsInvalidKeepingTheNumber) {
  StoredEntry in = FloatScalarEntry();
  in.dtype_enum = 20;  // DT_RESOURCE
  StoredEntry out;
  ASSERT_TRUE(DecodeBundleEntry(EncodeBundleEntry(in), &out).ok());
  EXPECT_EQ(out.entry.dtype, DType::kInvalid);
  EXPECT_EQ(out.dtype_enum, 20);
}

TEST(BundleProtoTest, NegativeDimensionIsDataLoss) {
  // shape { dim { size: -1 } }
  std::string dim = Bytes({0x08});
  dim += Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  std::string shape = Bytes({0x12, static_cast<int>(dim.size())}) + dim;
  std::string bytes =
      Bytes({0x08, 0x01, 0x12, static_cast<int>(shape.size())}) + shape;
  StoredEntry out;
  EXPECT_TRUE(IsDataLoss(DecodeBundleEntry(bytes, &out)));
}

TEST(BundleProtoTest, UnknownRankIsDataLoss) {
  StoredEntry out;
  EXPECT_TRUE(IsDataLoss(
      DecodeBundleEntry(Bytes({0x08, 0x01, 0x12, 0x02, 0x18, 0x01}), &out)));
}

TEST(BundleProtoTest, TooManyElementsIsDataLoss) {
  StoredEntry in = FloatScalarEntry();
  in.entry.shape = TensorShape({int64_t{1} << 40, int64_t{1} << 40});
  StoredEntry out;
  EXPECT_TRUE(IsDataLoss(DecodeBundleEntry(EncodeBundleEntry(in), &out)));
}

TEST(BundleProtoTest, EveryTruncationOfAnEntryIsDataLossOrAShorterEntry) {
  StoredEntry in = FloatScalarEntry();
  in.entry.shape = TensorShape({300, 2});
  in.entry.offset = 1000;
  const std::string bytes = EncodeBundleEntry(in);
  for (size_t n = 0; n < bytes.size(); ++n) {
    StoredEntry out;
    Status s = DecodeBundleEntry(bytes.substr(0, n), &out);
    EXPECT_TRUE(s.ok() || IsDataLoss(s)) << n << ": " << s;
  }
}

TEST(BundleProtoTest, VersionRules) {
  BundleHeader h = Header(1, 1);
  EXPECT_TRUE(CheckBundleVersion(h).ok());
  h.producer = -1;
  EXPECT_TRUE(IsInvalidArgument(CheckBundleVersion(h)));
  h.producer = 5;
  h.min_consumer = 1;
  EXPECT_TRUE(CheckBundleVersion(h).ok());
  h.min_consumer = 2;
  EXPECT_TRUE(IsInvalidArgument(CheckBundleVersion(h)));
  h.min_consumer = 0;
  h.bad_consumers = {0, 1};
  EXPECT_TRUE(IsInvalidArgument(CheckBundleVersion(h)));
  h.bad_consumers = {0, 2};
  EXPECT_TRUE(CheckBundleVersion(h).ok());
}

TEST(BundleProtoTest, BadConsumersDecodePackedAndUnpacked) {
  // version { bad_consumers: 4 (unpacked)  bad_consumers: [5, 1] (packed) }
  const std::string version = Bytes({0x18, 0x04, 0x1a, 0x02, 0x05, 0x01});
  const std::string bytes =
      Bytes({0x1a, static_cast<int>(version.size())}) + version;
  BundleHeader h;
  ASSERT_TRUE(DecodeBundleHeader(bytes, &h).ok());
  EXPECT_EQ(h.bad_consumers, (std::vector<int32_t>{4, 5, 1}));
  EXPECT_TRUE(IsInvalidArgument(CheckBundleVersion(h)));
  BundleHeader back;
  ASSERT_TRUE(DecodeBundleHeader(EncodeBundleHeader(h), &back).ok());
  EXPECT_EQ(back.bad_consumers, h.bad_consumers);
}

TEST(BundleProtoTest, MalformedHeaderIsDataLoss) {
  BundleHeader h;
  EXPECT_TRUE(IsDataLoss(DecodeBundleHeader(Bytes({0x08}), &h)));
  EXPECT_TRUE(IsDataLoss(DecodeBundleHeader(Bytes({0x1a, 0x05, 0x08}), &h)));
  EXPECT_TRUE(IsDataLoss(DecodeBundleHeader(Bytes({0x00, 0x01}), &h)));
  EXPECT_TRUE(IsDataLoss(DecodeBundleHeader(Bytes({0x0c}), &h)));  // end group
}

// --- Data encoding. ---

TEST(TensorBytesTest, StringVectorIsTheSpecifiedBytesAndCrc) {
  uint32_t crc;
  const std::string bytes =
      EncodeStringTensor(Tensor::FromVector<std::string>({"ab", ""}), &crc);
  EXPECT_EQ(bytes, Bytes({0x02, 0x00, 0x78, 0x27, 0x0b, 0x34, 0x61, 0x62}));
  EXPECT_EQ(crc32c::Mask(crc), 0x4db08891u);
}

TEST(TensorBytesTest, EmptyStringTensorIsTheMaskOfNothing) {
  uint32_t crc;
  const std::string bytes =
      EncodeStringTensor(Tensor(DType::kString, TensorShape({0})), &crc);
  EXPECT_EQ(bytes, Bytes({0xd8, 0xea, 0x82, 0xa2}));
}

TEST(TensorBytesTest, LengthChecksumCoversU32LengthsNotVarints) {
  const std::string s(200, 'x');  // varint c8 01, u32le c8 00 00 00
  uint32_t crc;
  const std::string bytes =
      EncodeStringTensor(Tensor::FromVector<std::string>({s}), &crc);
  ASSERT_EQ(bytes.size(), 2u + 4u + 200u);
  EXPECT_EQ(bytes.substr(0, 2), Bytes({0xc8, 0x01}));
  const std::string u32 = Bytes({0xc8, 0, 0, 0});
  const uint32_t lengths = crc32c::Value(u32);
  const std::string stored = bytes.substr(2, 4);
  uint32_t stored_value = 0;
  for (int i = 0; i < 4; ++i) {
    stored_value |= uint32_t{static_cast<uint8_t>(stored[i])} << (8 * i);
  }
  EXPECT_EQ(stored_value, crc32c::Mask(lengths));
  uint32_t expected = crc32c::Extend(lengths, stored.data(), 4);
  expected = crc32c::Extend(expected, s.data(), s.size());
  EXPECT_EQ(crc, expected);
}

TEST(TensorBytesTest, StringDecodeRoundTrips) {
  const Tensor in = Tensor::FromVector<std::string>(
      {"", std::string(300, 'y'), std::string("\xff\x00\xc3", 3), "z"});
  uint32_t crc;
  const std::string bytes = EncodeStringTensor(in, &crc);
  Tensor out(DType::kString, in.shape());
  uint32_t back;
  ASSERT_TRUE(DecodeStringTensor(bytes, &out, &back).ok());
  EXPECT_EQ(out, in);
  EXPECT_EQ(back, crc);
}

TEST(TensorBytesTest, StringDecodeDamageIsDataLoss) {
  const Tensor in = Tensor::FromVector<std::string>({"ab", "cde"});
  uint32_t crc;
  const std::string bytes = EncodeStringTensor(in, &crc);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit : {0x01, 0x80}) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ bit);
      Tensor out(DType::kString, in.shape());
      uint32_t got = 0;
      Status s = DecodeStringTensor(bad, &out, &got);
      // Damage to the string bytes passes here and is caught by the CRC.
      EXPECT_TRUE(IsDataLoss(s) || (s.ok() && got != crc)) << i << " " << s;
    }
  }
  Tensor out(DType::kString, in.shape());
  uint32_t got;
  EXPECT_TRUE(IsDataLoss(DecodeStringTensor(bytes + "x", &out, &got)));
  EXPECT_TRUE(IsDataLoss(
      DecodeStringTensor(bytes.substr(0, bytes.size() - 1), &out, &got)));
}

}  // namespace
}  // namespace inflow::internal
