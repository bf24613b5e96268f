// Copyright 2026 The inflow Authors.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/crc32c.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

namespace inflow {
namespace {

std::string Hex(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

void WriteRecords(Env& env, const std::string& path,
                  const std::vector<std::string>& records,
                  CompressionType compression = CompressionType::kNone) {
  RecordWriterOptions options;
  options.compression = compression;
  auto writer = RecordWriter::Create(env, path, options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& r : records) {
    ASSERT_TRUE((*writer)->WriteRecord(r).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

// Reads until the first error; returns the records and that error.
std::pair<std::vector<std::string>, Status> ReadAll(
    Env& env, const std::string& path, RecordReaderOptions options = {}) {
  std::vector<std::string> out;
  auto reader = RecordReader::Open(env, path, options);
  if (!reader.ok()) return {out, reader.status()};
  while (true) {
    Result<std::string_view> r = (*reader)->Next();
    if (!r.ok()) return {out, r.status()};
    out.emplace_back(*r);
  }
}

std::vector<std::string> RandomRecords(std::mt19937& rng, int n,
                                       size_t max_len) {
  std::uniform_int_distribution<size_t> len(0, max_len);
  std::vector<std::string> records;
  for (int i = 0; i < n; ++i) {
    std::string r(len(rng), '\0');
    for (char& c : r) c = static_cast<char>(rng() % 7);  // compressible
    records.push_back(std::move(r));
  }
  return records;
}

TEST(RecordWriterTest, WritesTheSpecVectors) {
  MemEnv env;
  WriteRecords(env, "empty", {""});
  EXPECT_EQ(Hex(*env.Contents("empty")),
            "00 00 00 00 00 00 00 00 29 03 98 07 d8 ea 82 a2");
  WriteRecords(env, "hello", {"hello"});
  EXPECT_EQ(Hex(*env.Contents("hello")),
            "05 00 00 00 00 00 00 00 ea b2 04 3e 68 65 6c 6c 6f bb 1f 1c 19");
}

TEST(RecordWriterTest, WriteAfterCloseIsFailedPrecondition) {
  MemEnv env;
  auto writer = RecordWriter::Create(env, "f");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteRecord("a").ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->WriteRecord("b").code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ((*writer)->Flush().code(), StatusCode::kFailedPrecondition);
}

TEST(RecordWriterTest, WriteErrorIsReturnedAndSticky) {
  MemEnv env;
  env.InjectWriteError("f", 20, UnavailableError("disk gone"));
  auto writer = RecordWriter::Create(env, "f");
  ASSERT_TRUE(writer.ok());
  EXPECT_TRUE((*writer)->WriteRecord("a").ok());  // 17 bytes
  EXPECT_EQ((*writer)->WriteRecord("b").code(), StatusCode::kUnavailable);
  EXPECT_EQ((*writer)->WriteRecord("c").code(), StatusCode::kUnavailable);
  EXPECT_EQ((*writer)->Close().code(), StatusCode::kUnavailable);
}

TEST(RecordWriterTest, DestructorClosesACompressedStream) {
  MemEnv env;
  {
    RecordWriterOptions options;
    options.compression = CompressionType::kGzip;
    auto writer = RecordWriter::Create(env, "f.gz", options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteRecord("abc").ok());
  }
  RecordReaderOptions options;
  options.compression = CompressionType::kGzip;
  auto [records, end] = ReadAll(env, "f.gz", options);
  EXPECT_EQ(records, std::vector<std::string>{"abc"});
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange);
}

class RecordRoundTripTest : public ::testing::TestWithParam<CompressionType> {};

TEST_P(RecordRoundTripTest, RandomRecordsReadBackIdentically) {
  std::mt19937 rng(static_cast<unsigned>(GetParam()) + 1);
  MemEnv env;
  for (size_t buffer_size : {size_t{64}, size_t{4096}, size_t{256} << 10}) {
    for (int trial = 0; trial < 2; ++trial) {
      // Mostly small records, some larger than the buffer.
      std::vector<std::string> records = RandomRecords(rng, 40, 300);
      for (const auto& big : RandomRecords(rng, 2, 300 << 10)) {
        records.insert(records.begin() + (rng() % records.size()), big);
      }
      records.push_back("");
      WriteRecords(env, "f", records, GetParam());
      RecordReaderOptions options;
      options.compression = GetParam();
      options.buffer_size = buffer_size;
      auto [read, end] = ReadAll(env, "f", options);
      EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << end;
      ASSERT_EQ(read.size(), records.size());
      for (size_t i = 0; i < records.size(); ++i) {
        ASSERT_EQ(read[i], records[i]) << "record " << i;
      }
    }
  }
}

TEST_P(RecordRoundTripTest, ShortReadsDoNotChangeWhatIsRead) {
  std::mt19937 rng(3);
  MemEnv env;
  const std::vector<std::string> records = RandomRecords(rng, 30, 2000);
  WriteRecords(env, "f", records, GetParam());
  env.SetMaxReadChunk(3);
  RecordReaderOptions options;
  options.compression = GetParam();
  options.buffer_size = 1024;
  options.zlib.input_buffer_size = 100;
  auto [read, end] = ReadAll(env, "f", options);
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << end;
  EXPECT_EQ(read, records);
}

TEST_P(RecordRoundTripTest, ReadRecordAtAnyOffsetInAnyOrder) {
  std::mt19937 rng(5);
  MemEnv env;
  const std::vector<std::string> records = RandomRecords(rng, 20, 5000);
  WriteRecords(env, "f", records, GetParam());
  RecordReaderOptions options;
  options.compression = GetParam();
  options.buffer_size = 4096;
  auto reader = RecordReader::Open(env, "f", options);
  ASSERT_TRUE(reader.ok());
  std::vector<uint64_t> offsets;
  uint64_t offset = 0;
  std::string record;
  for (size_t i = 0; i < records.size(); ++i) {
    offsets.push_back(offset);
    ASSERT_TRUE((*reader)->ReadRecord(&offset, &record).ok());
    EXPECT_EQ(record, records[i]);
  }
  EXPECT_EQ((*reader)->ReadRecord(&offset, &record).code(),
            StatusCode::kOutOfRange);
  for (size_t i = records.size(); i-- > 0;) {
    uint64_t at = offsets[i];
    ASSERT_TRUE((*reader)->ReadRecord(&at, &record).ok()) << "record " << i;
    EXPECT_EQ(record, records[i]);
    EXPECT_EQ(at, i + 1 < offsets.size() ? offsets[i + 1] : offset);
  }
}

TEST_P(RecordRoundTripTest, EmptyFileIsACleanEndEveryTime) {
  MemEnv env;
  WriteRecords(env, "f", {}, GetParam());
  RecordReaderOptions options;
  options.compression = GetParam();
  auto reader = RecordReader::Open(env, "f", options);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Next().status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*reader)->Next().status().code(), StatusCode::kOutOfRange);
}

TEST_P(RecordRoundTripTest, FlushMakesWrittenRecordsReadable) {
  MemEnv env;
  RecordWriterOptions woptions;
  woptions.compression = GetParam();
  auto writer = RecordWriter::Create(env, "f", woptions);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->WriteRecord("one").ok());
  ASSERT_TRUE((*writer)->WriteRecord("two").ok());
  ASSERT_TRUE((*writer)->Flush().ok());
  RecordReaderOptions options;
  options.compression = GetParam();
  auto [read, end] = ReadAll(env, "f", options);
  EXPECT_EQ(read, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange);
  ASSERT_TRUE((*writer)->Close().ok());
}

INSTANTIATE_TEST_SUITE_P(AllCompressions, RecordRoundTripTest,
                         ::testing::Values(CompressionType::kNone,
                                           CompressionType::kZlib,
                                           CompressionType::kGzip),
                         [](const auto& info) {
                           switch (info.param) {
                             case CompressionType::kZlib:
                               return std::string("Zlib");
                             case CompressionType::kGzip:
                               return std::string("Gzip");
                             default:
                               return std::string("None");
                           }
                         });

// Three records "alpha", "", "gamma-gamma" at offsets 0, 21, 37; 64 bytes.
class DamagedRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteRecords(env_, "f", {"alpha", "", "gamma-gamma"});
    original_ = *env_.Contents("f");
    ASSERT_EQ(original_.size(), 64u);
  }
  void Damage(std::string bytes) {
    ASSERT_TRUE(WriteStringToFile(env_, "f", bytes).ok());
  }

  MemEnv env_;
  std::string original_;
  const std::vector<uint64_t> starts_ = {0, 21, 37, 64};
};

TEST_F(DamagedRecordTest, EachCorruptedFieldIsDataLossAtThatRecord) {
  // Record 2 starts at 37: length [37,45), length CRC [45,49), data
  // [49,60), data CRC [60,64).
  for (size_t pos : {37, 44, 45, 48, 49, 55, 59, 60, 63}) {
    std::string bytes = original_;
    bytes[pos] ^= 0x20;
    Damage(bytes);
    auto reader = RecordReader::Open(env_, "f");
    ASSERT_TRUE(reader.ok());
    EXPECT_EQ(*(*reader)->Next(), "alpha");
    EXPECT_EQ(*(*reader)->Next(), "");
    for (int attempt = 0; attempt < 2; ++attempt) {
      Status s = (*reader)->Next().status();
      EXPECT_EQ(s.code(), StatusCode::kDataLoss) << "byte " << pos;
      EXPECT_NE(s.message().find("at offset 37 in f"), std::string::npos) << s;
      EXPECT_EQ((*reader)->offset(), 37u);
    }
  }
}

TEST_F(DamagedRecordTest, NextInBufferLendsWholeIntactRecordsAndReadsNothing) {
  // 20 records of 1000 bytes (1016 framed) through a buffer of a few
  // KiB: after the read that fills it, some are lent whole, their views
  // valid together, until one is not whole; the reader has then not
  // moved, and Next goes on from there.
  MemEnv env;
  std::vector<std::string> records;
  for (int i = 0; i < 20; ++i) records.push_back(std::string(1000, 'a' + i));
  WriteRecords(env, "big", records, CompressionType::kNone);
  RecordReaderOptions options;
  options.buffer_size = 4096;
  auto reader = *RecordReader::Open(env, "big", options);
  EXPECT_FALSE(reader->HasWholeRecordBuffered());
  EXPECT_EQ(reader->NextInBuffer(), std::nullopt);
  size_t next = 0, lent_in_all = 0;
  while (next < records.size()) {
    EXPECT_EQ(*reader->Next(), records[next++]);  // may read
    std::vector<std::string_view> lent;
    while (reader->HasWholeRecordBuffered()) {
      const std::optional<std::string_view> view = reader->NextInBuffer();
      ASSERT_TRUE(view.has_value());
      lent.push_back(*view);
    }
    const uint64_t at = reader->offset();
    EXPECT_EQ(reader->NextInBuffer(), std::nullopt);
    EXPECT_EQ(reader->offset(), at);
    for (std::string_view v : lent) EXPECT_EQ(v, records[next++]);
    EXPECT_LT(lent.size(), records.size() - 1);
    lent_in_all += lent.size();
  }
  EXPECT_GE(lent_in_all, 10u);
  EXPECT_TRUE(IsOutOfRange(reader->Next().status()));

  // In a buffer that holds them all, "" is lent after "alpha".
  auto whole = *RecordReader::Open(env_, "f");
  EXPECT_EQ(*whole->Next(), "alpha");
  const std::optional<std::string_view> second = whole->NextInBuffer();
  const std::optional<std::string_view> third = whole->NextInBuffer();
  ASSERT_TRUE(second.has_value() && third.has_value());
  EXPECT_EQ(*second, "");
  EXPECT_EQ(*third, "gamma-gamma");

  // A corrupt record is not lent; Next reports it, at its offset.
  std::string bytes = original_;
  bytes[55] ^= 0x20;
  Damage(bytes);
  auto damaged = *RecordReader::Open(env_, "f");
  EXPECT_EQ(*damaged->Next(), "alpha");
  EXPECT_EQ(*damaged->NextInBuffer(), "");
  EXPECT_TRUE(damaged->HasWholeRecordBuffered());
  EXPECT_EQ(damaged->NextInBuffer(), std::nullopt);
  EXPECT_EQ(damaged->offset(), 37u);
  EXPECT_TRUE(IsDataLoss(damaged->Next().status()));
}

TEST_F(DamagedRecordTest, TruncationAtEveryOffsetIsDataLossUnlessAtABoundary) {
  for (size_t cut = 0; cut < original_.size(); ++cut) {
    Damage(original_.substr(0, cut));
    auto [read, end] = ReadAll(env_, "f");
    size_t whole = 0;
    while (starts_[whole + 1] <= cut) ++whole;
    EXPECT_EQ(read.size(), whole) << "cut at " << cut;
    if (cut == starts_[whole]) {
      EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << "cut at " << cut;
    } else {
      EXPECT_EQ(end.code(), StatusCode::kDataLoss) << "cut at " << cut;
      EXPECT_NE(end.message().find("truncated record"), std::string::npos);
      EXPECT_NE(end.message().find("at offset " +
                                   std::to_string(starts_[whole]) + " in f"),
                std::string::npos)
          << end;
    }
  }
}

TEST_F(DamagedRecordTest, HugeLengthWithValidCrcIsDataLossNotAnAllocation) {
  std::string bytes(12, '\0');
  const uint64_t len = uint64_t{1} << 50;
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(len >> (8 * i));
  const uint32_t crc = crc32c::Mask(crc32c::Value(bytes.data(), 8));
  for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<char>(crc >> (8 * i));
  Damage(bytes + "some bytes");
  auto [read, end] = ReadAll(env_, "f");
  EXPECT_TRUE(read.empty());
  EXPECT_EQ(end.code(), StatusCode::kDataLoss);

  bytes[7] = static_cast<char>(0xff);  // length near 2^64
  const uint32_t crc2 = crc32c::Mask(crc32c::Value(bytes.data(), 8));
  for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<char>(crc2 >> (8 * i));
  Damage(bytes);
  EXPECT_EQ(ReadAll(env_, "f").second.code(), StatusCode::kDataLoss);
}

TEST_F(DamagedRecordTest, ReadErrorSurfacesAtTheRecordThatCrossesIt) {
  env_.InjectReadError("f", 40, UnavailableError("bad sector"));
  RecordReaderOptions options;
  options.buffer_size = 64;
  auto [read, end] = ReadAll(env_, "f", options);
  EXPECT_EQ(read, (std::vector<std::string>{"alpha", ""}));
  EXPECT_EQ(end.code(), StatusCode::kUnavailable) << end;
}

TEST_F(DamagedRecordTest, TruncatedCompressedFilesNeverReturnWrongRecords) {
  std::mt19937 rng(11);
  const std::vector<std::string> records = RandomRecords(rng, 8, 200);
  for (CompressionType c : {CompressionType::kZlib, CompressionType::kGzip}) {
    WriteRecords(env_, "z", records, c);
    const std::string full = *env_.Contents("z");
    RecordReaderOptions options;
    options.compression = c;
    for (size_t cut = 0; cut < full.size(); ++cut) {
      ASSERT_TRUE(WriteStringToFile(env_, "z", full.substr(0, cut)).ok());
      auto [read, end] = ReadAll(env_, "z", options);
      ASSERT_LE(read.size(), records.size());
      for (size_t i = 0; i < read.size(); ++i) ASSERT_EQ(read[i], records[i]);
      EXPECT_TRUE(end.code() == StatusCode::kDataLoss ||
                  end.code() == StatusCode::kOutOfRange)
          << end;
    }
  }
}

TEST_F(DamagedRecordTest, CorruptCompressedBytesAreDataLoss) {
  std::mt19937 rng(13);
  const std::vector<std::string> records = RandomRecords(rng, 20, 500);
  WriteRecords(env_, "z", records, CompressionType::kGzip);
  std::string bytes = *env_.Contents("z");
  for (size_t i = 20; i < 60; ++i) bytes[i] = static_cast<char>(0xff);
  Damage(bytes);
  RecordReaderOptions options;
  options.compression = CompressionType::kGzip;
  auto [read, end] = ReadAll(env_, "f", options);
  EXPECT_EQ(end.code(), StatusCode::kDataLoss) << end;
}

TEST(RecordReaderTest, PlainBytesReadAsGzipAreDataLoss) {
  MemEnv env;
  WriteRecords(env, "f", {"some record", "another"});
  RecordReaderOptions options;
  options.compression = CompressionType::kGzip;
  EXPECT_EQ(ReadAll(env, "f", options).second.code(), StatusCode::kDataLoss);
  WriteRecords(env, "g", {"some record"}, CompressionType::kGzip);
  EXPECT_EQ(ReadAll(env, "g").second.code(), StatusCode::kDataLoss);
}

TEST(RecordReaderTest, ACompressedFileReadPlainSaysWhichCompression) {
  MemEnv env;
  WriteRecords(env, "g", {"some record"}, CompressionType::kGzip);
  WriteRecords(env, "z", {"some record"}, CompressionType::kZlib);
  const Status gzip = ReadAll(env, "g").second;
  EXPECT_EQ(gzip.code(), StatusCode::kDataLoss);
  EXPECT_NE(gzip.message().find("at offset 0 in g"), std::string::npos) << gzip;
  EXPECT_NE(gzip.message().find("the file looks GZIP-compressed (it starts "
                                "with gzip's magic 1f 8b): open it with "
                                "compression GZIP"),
            std::string::npos)
      << gzip;
  const Status zlib = ReadAll(env, "z").second;
  EXPECT_NE(zlib.message().find("looks ZLIB-compressed"), std::string::npos)
      << zlib;
  EXPECT_NE(zlib.message().find("open it with compression ZLIB"),
            std::string::npos)
      << zlib;
  // A plain file damaged at its first record gets no such hint.
  WriteRecords(env, "f", {"some record"});
  std::string bytes = *env.Contents("f");
  bytes[2] ^= 1;
  ASSERT_TRUE(WriteStringToFile(env, "f", bytes).ok());
  const Status plain = ReadAll(env, "f").second;
  EXPECT_EQ(plain.code(), StatusCode::kDataLoss);
  EXPECT_EQ(plain.message().find("compressed"), std::string::npos) << plain;
}

TEST(RecordReaderTest, MissingFileIsNotFound) {
  MemEnv env;
  EXPECT_EQ(RecordReader::Open(env, "nope").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace inflow
