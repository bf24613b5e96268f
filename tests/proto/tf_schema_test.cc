// Copyright 2026 The inflow Authors.
//
// The shared TensorFlow messages (TensorShapeProto, VersionDef, DataType
// names) against libprotobuf's classes for the same field numbers.

#include "proto/tf_schema.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/dtype.h"

#include "tf_schema.pb.h"

namespace inflow::internal {
namespace {

using std::string_literals::operator""s;

TEST(ShapeProtoTest, WritesLibprotobufsBytes) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {784}, {0}, {3, 0, 5}, {1, 1 << 20, int64_t{1} << 40}};
  for (const std::vector<int64_t>& dims : shapes) {
    inflow_test::TensorShapeProto proto;
    for (const int64_t d : dims) proto.add_dim()->set_size(d);
    std::string theirs;
    ASSERT_TRUE(proto.SerializeToString(&theirs));
    EXPECT_EQ(ShapeProto(PartialShape(dims)).SerializeAsString(), theirs);
  }
  EXPECT_EQ(ShapeProto(PartialShape({784})).SerializeAsString(),
            "\x12\x03\x08\x90\x06"s);
}

TEST(ShapeProtoTest, UnknownDimsAndRankAsLibprotobufWritesThem) {
  inflow_test::TensorShapeProto dims;
  dims.add_dim()->set_size(-1);
  dims.add_dim()->set_size(3);
  EXPECT_EQ(ShapeProto(PartialShape({-1, 3})).SerializeAsString(),
            dims.SerializeAsString());
  EXPECT_EQ(ShapeProto(PartialShape({-1, 3})).ToText(),
            "dim {\n  size: -1\n}\ndim {\n  size: 3\n}\n");
  inflow_test::TensorShapeProto rank;
  rank.set_unknown_rank(true);
  EXPECT_EQ(ShapeProto(PartialShape::UnknownRank()).SerializeAsString(),
            rank.SerializeAsString());
  // A zero size is omitted, as proto3's text form omits it.
  EXPECT_EQ(ShapeProto(PartialShape({0})).ToText(), "dim {\n}\n");
}

TEST(ShapeProtoTest, DecodesWhatLibprotobufWritesAndMergesRepeats) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    inflow_test::TensorShapeProto proto;
    const int rank = static_cast<int>(rng() % 6);
    for (int d = 0; d < rank; ++d) {
      auto* dim = proto.add_dim();
      dim->set_size(static_cast<int64_t>(rng() >> (rng() % 64)) - 1);
      if (rng() % 4 == 0) dim->set_name("n");
    }
    if (rng() % 5 == 0) proto.set_unknown_rank(true);
    std::string bytes = proto.SerializeAsString();
    // Twice over: a message seen twice is merged.
    if (rng() % 3 == 0) bytes += bytes;
    inflow_test::TensorShapeProto oracle;
    ASSERT_TRUE(oracle.ParseFromString(bytes));
    ShapeFields ours;
    ASSERT_TRUE(MergeShapeProto(bytes, &ours));
    ASSERT_EQ(static_cast<int>(ours.dims.size()), oracle.dim_size());
    for (int d = 0; d < oracle.dim_size(); ++d) {
      EXPECT_EQ(ours.dims[static_cast<size_t>(d)], oracle.dim(d).size());
    }
    EXPECT_EQ(ours.unknown_rank, oracle.unknown_rank());
  }
  ShapeFields bad;
  EXPECT_FALSE(MergeShapeProto("\x12\x05\x08"s, &bad));
}

TEST(VersionDefTest, WritesAndReadsAsLibprotobuf) {
  const std::vector<VersionDef> cases = {
      {}, {1, 0, {}}, {27, 1, {}}, {1, 1, {5, -1, 0x7fffffff}}};
  for (const VersionDef& v : cases) {
    inflow_test::VersionDef proto;
    proto.set_producer(v.producer);
    proto.set_min_consumer(v.min_consumer);
    for (const int32_t b : v.bad_consumers) proto.add_bad_consumers(b);
    EXPECT_EQ(VersionDefProto(v).SerializeAsString(),
              proto.SerializeAsString());
    VersionDef back;
    ASSERT_TRUE(MergeVersionDef(proto.SerializeAsString(), &back));
    EXPECT_EQ(back.producer, v.producer);
    EXPECT_EQ(back.min_consumer, v.min_consumer);
    EXPECT_EQ(back.bad_consumers, v.bad_consumers);
  }
  EXPECT_EQ(VersionDefProto({27, 0, {}}).ToText(), "producer: 27\n");
  // Unpacked bad_consumers (an older writer's form) read the same.
  std::string unpacked = "\x18\x05\x18\x07"s;
  VersionDef v;
  ASSERT_TRUE(MergeVersionDef(unpacked, &v));
  EXPECT_EQ(v.bad_consumers, (std::vector<int32_t>{5, 7}));
}

TEST(TfTypeTest, NamesAreTypesProtosAndMatchInflowsDTypeNumbers) {
  EXPECT_EQ(TfTypeName(kDtFloat), "DT_FLOAT");
  EXPECT_EQ(TfTypeName(kDtQInt8), "DT_QINT8");
  EXPECT_EQ(TfTypeName(kDtUInt64), "DT_UINT64");
  EXPECT_EQ(TfTypeName(12), "DT_INVALID");
  EXPECT_EQ(static_cast<int>(DType::kFloat32), kDtFloat);
  EXPECT_EQ(static_cast<int>(DType::kString), kDtString);
  EXPECT_EQ(static_cast<int>(DType::kFloat16), kDtHalf);
  EXPECT_EQ(static_cast<int>(DType::kUInt64), kDtUInt64);
}

}  // namespace
}  // namespace inflow::internal
