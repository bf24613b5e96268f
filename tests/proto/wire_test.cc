// Copyright 2026 The inflow Authors.
//
// The one wire reader and writer set, held against libprotobuf's
// CodedInputStream / CodedOutputStream / WireFormatLite on edge cases and
// on random bytes: the same values, the same failures, the same bytes.

#include "proto/wire.h"

#include <google/protobuf/empty.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace inflow::internal {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;
using std::string_literals::operator""s;

// libprotobuf's reading of one varint at the front of `bytes`: the value
// and the bytes it took, or nothing.
struct OracleVarint {
  bool ok = false;
  uint64_t value = 0;
  size_t taken = 0;
};
OracleVarint OracleReadVarint(const std::string& bytes) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  OracleVarint out;
  out.ok = in.ReadVarint64(&out.value);
  out.taken = static_cast<size_t>(in.CurrentPosition());
  return out;
}

std::string OracleVarintBytes(uint64_t v) {
  std::string out;
  {
    StringOutputStream stream(&out);
    CodedOutputStream coded(&stream);
    coded.WriteVarint64(v);
  }
  return out;
}

TEST(WireReaderTest, VarintsOfEveryLengthReadAsLibprotobufReadsThem) {
  std::vector<uint64_t> values = {
      0,           1, 127, 128, 16383, 16384, 0xffffffffu, uint64_t{1} << 63,
      ~uint64_t{0}};
  for (int bits = 1; bits <= 64; ++bits) {
    values.push_back((uint64_t{1} << (bits - 1)) | 1);
  }
  for (const uint64_t v : values) {
    std::string ours;
    PutVarint(&ours, v);
    EXPECT_EQ(ours, OracleVarintBytes(v)) << v;
    EXPECT_EQ(VarintSize(v), ours.size()) << v;
    WireReader r(ours);
    uint64_t got = 0;
    ASSERT_TRUE(r.ReadVarint(&got)) << v;
    EXPECT_EQ(got, v);
    EXPECT_TRUE(r.done());
  }
}

TEST(WireReaderTest, TenthByteHighBitsAreDroppedAndAnEleventhByteIsMalformed) {
  // Ten bytes whose last carries bits beyond 64: libprotobuf drops them.
  const std::string ten = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"s;
  const OracleVarint oracle = OracleReadVarint(ten);
  WireReader r(ten);
  uint64_t v = 0;
  EXPECT_EQ(r.ReadVarint(&v), oracle.ok);
  EXPECT_EQ(v, oracle.value);
  EXPECT_EQ(v, ~uint64_t{0});
  // Eleven bytes: malformed for both.
  const std::string eleven = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s;
  EXPECT_FALSE(OracleReadVarint(eleven).ok);
  WireReader r11(eleven);
  EXPECT_FALSE(r11.ReadVarint(&v));
  // Cut short: malformed.
  const std::string short_bytes = "\x80\x80"s;
  WireReader cut(short_bytes);
  EXPECT_FALSE(cut.ReadVarint(&v));
}

TEST(WireReaderTest, RandomBytesReadAsLibprotobufReadsThem) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::string bytes(static_cast<size_t>(rng() % 13), '\0');
    for (char& c : bytes) {
      // Mostly continuation bytes, so that long varints are common.
      c = static_cast<char>(rng() % 4 != 0 ? (rng() | 0x80) : (rng() & 0x7f));
    }
    const OracleVarint oracle = OracleReadVarint(bytes);
    WireReader r(bytes);
    uint64_t v = 0;
    ASSERT_EQ(r.ReadVarint(&v), oracle.ok) << testing::PrintToString(bytes);
    if (oracle.ok) {
      ASSERT_EQ(v, oracle.value);
      ASSERT_EQ(r.offset(), oracle.taken);
    }
  }
}

TEST(WireReaderTest, Int32KeepsTheLowBitsAsLibprotobufDoes) {
  std::string bytes;
  PutVarint(&bytes, static_cast<uint64_t>(int64_t{-5}));
  PutVarint(&bytes, uint64_t{0x1'0000'0007});
  WireReader r(bytes);
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  for (int k = 0; k < 2; ++k) {
    int32_t ours = 0;
    int32_t theirs = 0;
    ASSERT_TRUE(r.ReadInt32(&ours));
    ASSERT_TRUE(
        (WireFormatLite::ReadPrimitive<int32_t, WireFormatLite::TYPE_INT32>(
            &in, &theirs)));
    EXPECT_EQ(ours, theirs);
  }
}

TEST(WireReaderTest, TagsFieldZeroAndMissingWireTypesAreMalformed) {
  uint32_t field = 0;
  int wire_type = -1;
  EXPECT_TRUE(WireReader("\x08"s).ReadTag(&field, &wire_type));
  EXPECT_EQ(field, 1u);
  EXPECT_EQ(wire_type, kWireVarint);
  EXPECT_TRUE(WireReader("\xfa\xff\xff\xff\x0f"s).ReadTag(&field, &wire_type));
  EXPECT_EQ(field, (uint32_t{1} << 29) - 1);
  EXPECT_EQ(wire_type, kWireLen);
  EXPECT_FALSE(WireReader("\x00"s).ReadTag(&field, &wire_type));  // field 0
  EXPECT_FALSE(WireReader("\x0e"s).ReadTag(&field, &wire_type));  // type 6
  EXPECT_FALSE(WireReader("\x0f"s).ReadTag(&field, &wire_type));  // type 7
  // Five bytes at most, bits past 32 dropped, as libprotobuf's parser
  // reads tags: here field 1, varint.
  EXPECT_TRUE(WireReader("\x88\x80\x80\x80\x70"s).ReadTag(&field, &wire_type));
  EXPECT_EQ(field, 1u);
  EXPECT_EQ(wire_type, kWireVarint);
  EXPECT_FALSE(WireReader("\x80\x80\x80\x80\x10"s)  // field 0
                   .ReadTag(&field, &wire_type));
  EXPECT_FALSE(WireReader("\x88\x80\x80\x80\x80\x00"s)  // six bytes
                   .ReadTag(&field, &wire_type));
}

TEST(WireReaderTest, FixedWidthAndLengthDelimitedStayInsideTheBuffer) {
  std::string bytes;
  PutFixed32(&bytes, 0xdeadbeef);
  PutFixed64(&bytes, 0x0123456789abcdefu);
  PutLengthDelimited(&bytes, 3, "abc");
  WireReader r(bytes);
  uint32_t f32 = 0;
  uint64_t f64 = 0;
  ASSERT_TRUE(r.ReadFixed32(&f32));
  ASSERT_TRUE(r.ReadFixed64(&f64));
  EXPECT_EQ(f32, 0xdeadbeefu);
  EXPECT_EQ(f64, 0x0123456789abcdefu);
  uint32_t field = 0;
  int wire_type = 0;
  ASSERT_TRUE(r.ReadTag(&field, &wire_type));
  std::string_view payload;
  ASSERT_TRUE(r.ReadLengthDelimited(&payload));
  EXPECT_EQ(payload, "abc");
  EXPECT_TRUE(r.done());

  EXPECT_FALSE(WireReader("\x01\x02\x03"s).ReadFixed32(&f32));
  EXPECT_FALSE(WireReader("\x01\x02\x03\x04\x05\x06\x07"s).ReadFixed64(&f64));
  EXPECT_FALSE(WireReader("\x04"
                          "abc"s)
                   .ReadLengthDelimited(&payload));
  // A length near 2^64 must not wrap around the end pointer.
  EXPECT_FALSE(WireReader("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s)
                   .ReadLengthDelimited(&payload));
}

// A group of `depth` nested groups (field 1), each closed.
std::string NestedGroups(int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) PutTag(&out, 1, kWireStartGroup);
  for (int i = 0; i < depth; ++i) PutTag(&out, 1, kWireEndGroup);
  return out;
}

// Whether libprotobuf's parser accepts `bytes` as a message of unknown
// fields (each skipped, groups included).
bool OracleSkipAll(const std::string& bytes) {
  google::protobuf::Empty empty;
  return empty.ParseFromString(bytes);
}

bool OursSkipAll(const std::string& bytes) {
  return WalkFields(bytes, [](uint32_t, int, WireReader&) { return true; });
}

TEST(WireReaderTest, GroupsNestAsDeepAsLibprotobufAllows) {
  for (const int depth : {1, 2, 50, kMaxGroupDepth - 1, kMaxGroupDepth,
                          kMaxGroupDepth + 1, kMaxGroupDepth + 2, 300}) {
    const std::string bytes = NestedGroups(depth);
    EXPECT_EQ(OursSkipAll(bytes), OracleSkipAll(bytes)) << "depth " << depth;
  }
  EXPECT_TRUE(OursSkipAll(NestedGroups(kMaxGroupDepth)));
  EXPECT_FALSE(OursSkipAll(NestedGroups(kMaxGroupDepth + 1)));
}

TEST(WireReaderTest, StrayAndMismatchedEndGroupsAreMalformed) {
  std::string stray;
  PutTag(&stray, 1, kWireEndGroup);
  EXPECT_FALSE(OursSkipAll(stray));
  std::string mismatched;
  PutTag(&mismatched, 1, kWireStartGroup);
  PutTag(&mismatched, 2, kWireEndGroup);
  EXPECT_FALSE(OursSkipAll(mismatched));
  EXPECT_FALSE(OracleSkipAll(mismatched));
  std::string unterminated;
  PutTag(&unterminated, 1, kWireStartGroup);
  PutVarintField(&unterminated, 2, 5);
  EXPECT_FALSE(OursSkipAll(unterminated));
  EXPECT_FALSE(OracleSkipAll(unterminated));
}

// A random message of valid fields (groups included), sometimes cut or
// with one byte changed.
std::string RandomMessage(std::mt19937_64& rng, int depth = 0) {
  std::string out;
  const int fields = static_cast<int>(rng() % 6);
  for (int i = 0; i < fields; ++i) {
    const uint32_t field = 1 + static_cast<uint32_t>(rng() % 20);
    switch (rng() % (depth < 3 ? 5 : 4)) {
      case 0:
        PutTag(&out, field, kWireVarint);
        PutVarint(&out, rng() >> (rng() % 64));
        break;
      case 1:
        PutTag(&out, field, kWireFixed32);
        PutFixed32(&out, static_cast<uint32_t>(rng()));
        break;
      case 2:
        PutTag(&out, field, kWireFixed64);
        PutFixed64(&out, rng());
        break;
      case 3:
        PutLengthDelimited(&out, field, std::string(rng() % 5, 'x'));
        break;
      default:
        PutTag(&out, field, kWireStartGroup);
        out += RandomMessage(rng, depth + 1);
        PutTag(&out, field, kWireEndGroup);
        break;
    }
  }
  return out;
}

TEST(WalkFieldsTest, AcceptsAndRejectsWhatLibprotobufSkipsOnRandomMessages) {
  std::mt19937_64 rng(11);
  int rejected = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string bytes = RandomMessage(rng);
    if (!bytes.empty() && rng() % 2 == 0) {
      if (rng() % 2 == 0) {
        bytes.resize(rng() % bytes.size());
      } else {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
    }
    const bool oracle = OracleSkipAll(bytes);
    ASSERT_EQ(OursSkipAll(bytes), oracle) << testing::PrintToString(bytes);
    rejected += oracle ? 0 : 1;
  }
  // Both outcomes were exercised.
  EXPECT_GT(rejected, 1000);
  EXPECT_LT(rejected, 49000);
}

TEST(WalkFieldsTest, ReportsTheOffsetOfTheFieldThatFailed) {
  std::string bytes;
  PutVarintField(&bytes, 1, 300);       // 3 bytes
  PutLengthDelimited(&bytes, 2, "ok");  // 4 bytes
  bytes += "\x1a\x09short"s;            // field 3 claims 9 bytes, has 5
  size_t bad = 0;
  int seen = 0;
  EXPECT_FALSE(WalkFields(
      bytes, [&](uint32_t, int, WireReader&) { return ++seen, true; }, &bad));
  EXPECT_EQ(bad, 7u);
  EXPECT_EQ(seen, 3);
  // A callback's own refusal stops the walk at that field.
  EXPECT_FALSE(WalkFields(
      bytes, [](uint32_t field, int, WireReader&) { return field != 2; },
      &bad));
  EXPECT_EQ(bad, 3u);
}

TEST(WalkFieldsTest, AFieldTheCallbackLeavesIsSkipped) {
  std::string bytes;
  PutVarintField(&bytes, 1, 1);
  PutLengthDelimited(&bytes, 2, "skip me");
  PutFixed64Field(&bytes, 3, 42);
  std::vector<uint32_t> fields;
  uint64_t three = 0;
  ASSERT_TRUE(WalkFields(bytes, [&](uint32_t field, int, WireReader& r) {
    fields.push_back(field);
    return field == 3 ? r.ReadFixed64(&three) : true;
  }));
  EXPECT_EQ(fields, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(three, 42u);
}

TEST(WireWritersTest, Proto3FieldsOmitZeroAndWriteNegativesInTenBytes) {
  std::string out;
  PutVarintField(&out, 1, 0);
  PutFixed32Field(&out, 2, 0);
  PutFixed64Field(&out, 3, 0);
  EXPECT_EQ(out, "");
  PutVarintField(&out, 1, -1);
  EXPECT_EQ(out, "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"s);
  out.clear();
  PutLengthDelimited(&out, 2, "");
  EXPECT_EQ(out, "\x12\x00"s);
  EXPECT_EQ(Tag1(2, kWireLen), 0x12);
}

TEST(TableVarintsTest, GetVarint32RefusesValuesAboveThirtyTwoBits) {
  std::string bytes;
  PutVarint(&bytes, 0xffffffffu);
  PutVarint(&bytes, uint64_t{1} << 32);
  std::string_view in = bytes;
  uint32_t v = 0;
  ASSERT_TRUE(GetVarint32(&in, &v));
  EXPECT_EQ(v, 0xffffffffu);
  const std::string_view before = in;
  EXPECT_FALSE(GetVarint32(&in, &v));
  EXPECT_EQ(in, before);  // unchanged on failure
  uint64_t wide = 0;
  ASSERT_TRUE(GetVarint64(&in, &wide));
  EXPECT_EQ(wide, uint64_t{1} << 32);
  EXPECT_TRUE(in.empty());
}

}  // namespace
}  // namespace inflow::internal
