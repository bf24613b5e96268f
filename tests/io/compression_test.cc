// Copyright 2026 The inflow Authors.

#include "inflow/io/compression.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

namespace inflow {
namespace {

TEST(CompressionTest, FileNameSuffixesPickTheCompressionReadingUses) {
  EXPECT_EQ(CompressionFromFileName("out.tfrecord.gz"), CompressionType::kGzip);
  EXPECT_EQ(CompressionFromFileName("a/b.gzip"), CompressionType::kGzip);
  EXPECT_EQ(CompressionFromFileName("out.zz"), CompressionType::kZlib);
  EXPECT_EQ(CompressionFromFileName("out.zlib"), CompressionType::kZlib);
  EXPECT_EQ(CompressionFromFileName("out.tfrecord"), CompressionType::kNone);
  EXPECT_EQ(CompressionFromFileName("gz"), CompressionType::kNone);
  EXPECT_EQ(CompressionFromFileName("out.gz.tfrecord"), CompressionType::kNone);
  // Reading without decisive first bytes falls back to the same rule.
  for (const char* name : {"x.gz", "x.gzip", "x.zz", "x.zlib", "x.tfrecord"}) {
    EXPECT_EQ(DetectCompression(name, "??"), CompressionFromFileName(name))
        << name;
  }
}

TEST(CompressionTest, ParsesTensorFlowSpellingsInAnyCase) {
  for (const char* name : {"GZIP", "gzip", "Gzip"}) {
    EXPECT_EQ(*ParseCompressionType(name), CompressionType::kGzip) << name;
  }
  for (const char* name : {"ZLIB", "zlib", "Zlib"}) {
    EXPECT_EQ(*ParseCompressionType(name), CompressionType::kZlib) << name;
  }
  for (const char* name : {"", "NONE", "none", "None"}) {
    EXPECT_EQ(*ParseCompressionType(name), CompressionType::kNone) << name;
  }
  for (const char* name : {"gz", "auto", "snappy", " GZIP"}) {
    EXPECT_EQ(ParseCompressionType(name).status().code(),
              StatusCode::kInvalidArgument)
        << name;
  }
}

// The offset in "near compressed offset N" of a DATA_LOSS message.
int64_t NoticedOffset(const Status& s) {
  const std::string key = "near compressed offset ";
  const size_t at = s.message().find(key);
  if (at == std::string::npos) return -1;
  return std::stoll(std::string(s.message().substr(at + key.size())));
}

std::string GzipOf(const std::vector<std::string>& records) {
  MemEnv env;
  RecordWriterOptions options;
  options.compression = CompressionType::kGzip;
  auto writer = RecordWriter::Create(env, "member", options);
  EXPECT_TRUE(writer.ok()) << writer.status();
  for (const std::string& r : records) {
    EXPECT_TRUE((*writer)->WriteRecord(r).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return *env.Contents("member");
}

// Reads `bytes` as gzip until the first error; returns the record count.
std::pair<size_t, Status> ReadGzip(const std::string& bytes) {
  MemEnv env;
  EXPECT_TRUE(WriteStringToFile(env, "f", bytes).ok());
  RecordReaderOptions options;
  options.compression = CompressionType::kGzip;
  auto reader = RecordReader::Open(env, "f", options);
  if (!reader.ok()) return {0, reader.status()};
  size_t n = 0;
  while (true) {
    Result<std::string_view> r = (*reader)->Next();
    if (!r.ok()) return {n, r.status()};
    ++n;
  }
}

TEST(GzipDamageTest, BadBlockTypeIsReportedAtThatMember) {
  // Six gzip members of 40 records each, one after another (read as one
  // stream). Member k's first deflate byte (after its 10-byte gzip header)
  // set to 0xff asks for block type 3, which does not exist: zlib notices
  // it there, after the records of the members before it.
  std::mt19937 rng(5);
  std::string file;
  std::vector<size_t> starts;
  for (int m = 0; m < 6; ++m) {
    std::vector<std::string> records;
    for (int i = 0; i < 40; ++i) {
      std::string r(rng() % 300, '\0');
      for (char& c : r) c = static_cast<char>('a' + rng() % 4);
      records.push_back(std::move(r));
    }
    starts.push_back(file.size());
    file += GzipOf(records);
  }
  ASSERT_EQ(ReadGzip(file).first, 240u);
  for (size_t k = 1; k < starts.size(); ++k) {
    std::string bytes = file;
    const size_t block = starts[k] + 10;
    bytes[block] = static_cast<char>(0xff);
    auto [read, end] = ReadGzip(bytes);
    EXPECT_EQ(end.code(), StatusCode::kDataLoss) << end;
    EXPECT_NE(end.message().find("invalid block type"), std::string::npos);
    EXPECT_EQ(read, 40 * k) << "member " << k;
    const int64_t noticed = NoticedOffset(end);
    EXPECT_GE(noticed, static_cast<int64_t>(block)) << end;
    EXPECT_LE(noticed, static_cast<int64_t>(block) + 2) << end;
  }
}

TEST(GzipDamageTest, DamagedDeflateDataIsReportedAtOrAfterTheDamage) {
  // One member; a run of 0xff bytes at several positions. zlib cannot
  // notice damage before it starts. Where it notices depends on the data:
  // in the first block's code tables at once; further on, the damaged
  // bits may decode as valid codes until the CRC at the member's end.
  std::mt19937 rng(9);
  std::vector<std::string> records;
  for (int i = 0; i < 400; ++i) {
    std::string r(rng() % 500, '\0');
    for (char& c : r) c = static_cast<char>(rng() % 7);
    records.push_back(std::move(r));
  }
  const std::string file = GzipOf(records);
  ASSERT_GT(file.size(), 40000u);
  for (size_t pos :
       {size_t{30}, file.size() / 4, file.size() / 2, file.size() * 3 / 4}) {
    std::string bytes = file;
    for (size_t i = pos; i < pos + 64; ++i) bytes[i] = static_cast<char>(0xff);
    auto [read, end] = ReadGzip(bytes);
    ASSERT_EQ(end.code(), StatusCode::kDataLoss) << "damage at " << pos;
    const int64_t at = NoticedOffset(end);
    EXPECT_GE(at, static_cast<int64_t>(pos)) << end;
    EXPECT_LE(at, static_cast<int64_t>(file.size())) << end;
    if (pos == 30) {
      EXPECT_LT(at, 1024) << end;  // in the code tables
    }
  }
}

}  // namespace
}  // namespace inflow
