// Copyright 2026 The inflow Authors.
//
// libprotobuf as an oracle for the hand-written index codec: what we
// encode parses to the same fields and serializes back to the same bytes,
// and what libprotobuf encodes we decode.

#include <string>

#include <gtest/gtest.h>

#include "bundle_messages.pb.h"
#include "checkpoint/bundle_proto.h"

namespace inflow::internal {
namespace {

StoredEntry Entry(DType dtype, TensorShape shape, int32_t shard, int64_t offset,
                  int64_t size, uint32_t crc) {
  StoredEntry e;
  e.entry.dtype = dtype;
  e.dtype_enum = static_cast<int32_t>(dtype);
  e.entry.shape = std::move(shape);
  e.entry.shard_id = shard;
  e.entry.offset = offset;
  e.entry.size = size;
  e.entry.masked_crc32c = crc;
  return e;
}

TEST(BundleProtobufTest, OurEntriesParseToTheSameFieldsAndBytes) {
  const StoredEntry cases[] = {
      Entry(DType::kFloat32, {}, 0, 0, 4, 0x2bdaa581),
      Entry(DType::kString, {0}, 0, 0, 4, 0xa282ead8),
      Entry(DType::kInt64, {3, 1 << 20, 0}, 12, int64_t{1} << 40, 0, 0),
      Entry(DType::kUInt64, {1000000007}, 2147483647, 5, 300, 0xffffffff),
      Entry(DType::kBool, {1, 1, 1, 1, 1, 1, 1}, 1, 127, 128, 1),
  };
  for (const StoredEntry& e : cases) {
    const std::string ours = EncodeBundleEntry(e);
    inflow_test::BundleEntryProto proto;
    ASSERT_TRUE(proto.ParseFromString(ours));
    EXPECT_EQ(proto.dtype(), e.dtype_enum);
    ASSERT_TRUE(proto.has_shape());
    ASSERT_EQ(proto.shape().dim_size(), e.entry.shape.rank());
    for (int i = 0; i < e.entry.shape.rank(); ++i) {
      EXPECT_EQ(proto.shape().dim(i).size(), e.entry.shape.dim(i));
    }
    EXPECT_EQ(proto.shard_id(), e.entry.shard_id);
    EXPECT_EQ(proto.offset(), e.entry.offset);
    EXPECT_EQ(proto.size(), e.entry.size);
    EXPECT_EQ(proto.crc32c(), e.entry.masked_crc32c);
    std::string theirs;
    ASSERT_TRUE(proto.SerializeToString(&theirs));
    EXPECT_EQ(theirs, ours);
  }
}

TEST(BundleProtobufTest, OurHeaderParsesToTheSameFieldsAndBytes) {
  BundleHeader h = BundleHeader();
  h.num_shards = 3;
  h.producer = 1;
  h.min_consumer = 0;
  h.bad_consumers = {2, -1, 7};
  const std::string ours = EncodeBundleHeader(h);
  inflow_test::BundleHeaderProto proto;
  ASSERT_TRUE(proto.ParseFromString(ours));
  EXPECT_EQ(proto.num_shards(), 3);
  EXPECT_EQ(proto.endianness(), inflow_test::BundleHeaderProto::LITTLE);
  EXPECT_EQ(proto.version().producer(), 1);
  ASSERT_EQ(proto.version().bad_consumers_size(), 3);
  EXPECT_EQ(proto.version().bad_consumers(1), -1);
  std::string theirs;
  ASSERT_TRUE(proto.SerializeToString(&theirs));
  EXPECT_EQ(theirs, ours);
}

TEST(BundleProtobufTest, WeDecodeWhatLibprotobufEncodes) {
  inflow_test::BundleEntryProto proto;
  proto.set_dtype(9);
  proto.mutable_shape()->add_dim()->set_size(4);
  auto* named = proto.mutable_shape()->add_dim();
  named->set_size(2);
  named->set_name("columns");
  proto.set_shard_id(-3);
  proto.set_offset(-1);
  proto.set_size(64);
  proto.set_crc32c(0x12345678);
  proto.add_slices()->add_extent()->set_length(4);
  std::string bytes;
  ASSERT_TRUE(proto.SerializeToString(&bytes));
  StoredEntry e;
  ASSERT_TRUE(DecodeBundleEntry(bytes, &e).ok());
  EXPECT_EQ(e.entry.dtype, DType::kInt64);
  EXPECT_EQ(e.entry.shape, TensorShape({4, 2}));
  EXPECT_EQ(e.entry.shard_id, -3);
  EXPECT_EQ(e.entry.offset, -1);
  EXPECT_EQ(e.entry.size, 64);
  EXPECT_EQ(e.entry.masked_crc32c, 0x12345678u);
  ASSERT_EQ(e.slices.size(), 1u);
  EXPECT_EQ(e.slices[0], proto.slices(0).SerializeAsString());
  EXPECT_TRUE(e.entry.partitioned);

  inflow_test::BundleHeaderProto header;
  header.set_num_shards(2);
  header.set_endianness(inflow_test::BundleHeaderProto::BIG);
  header.mutable_version()->set_producer(4);
  header.mutable_version()->set_min_consumer(1);
  header.mutable_version()->add_bad_consumers(9);
  BundleHeader h;
  ASSERT_TRUE(DecodeBundleHeader(header.SerializeAsString(), &h).ok());
  EXPECT_EQ(h.num_shards, 2);
  EXPECT_EQ(h.endianness, kBundleBigEndian);
  EXPECT_EQ(h.producer, 4);
  EXPECT_EQ(h.min_consumer, 1);
  EXPECT_EQ(h.bad_consumers, std::vector<int32_t>{9});
}

}  // namespace
}  // namespace inflow::internal
