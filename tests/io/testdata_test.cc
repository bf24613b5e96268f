// Copyright 2026 The inflow Authors.
//
// Every TFRecord and event file TensorFlow wrote in tests/testdata/tf
// reads with the counts, lengths and hashes listed in expected.json, and
// rewriting the records with TF's settings gives the same bytes back.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/compression.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

#include "io/sha256.h"
#include "tf_testdata.h"

namespace inflow {
namespace {

using testing::ReadTfExpected;
using testing::ReadTfTestFile;
using testing::TfTestDataDir;

// Every record of the file at `name` (under tests/testdata/tf), and the
// reader's offset at the end. Fails, naming the file, when it does not open,
// a record does not read, or there is no record.
void ReadRecords(const std::string& name, CompressionType compression,
                 std::vector<std::string>* records, uint64_t* end_offset) {
  const std::string path = (TfTestDataDir() / name).string();
  RecordReaderOptions options;
  options.compression = compression;
  auto reader = RecordReader::Open(Env::Default(), path, options);
  ASSERT_TRUE(reader.ok()) << reader.status();
  while (true) {
    Result<std::string_view> r = (*reader)->Next();
    if (!r.ok()) {
      ASSERT_EQ(r.status().code(), StatusCode::kOutOfRange) << r.status();
      break;
    }
    records->emplace_back(*r);
  }
  *end_offset = (*reader)->offset();
  ASSERT_FALSE(records->empty()) << path << " holds no record";
}

TEST(TfTestDataTest, EveryRecordFileMatchesExpectedJson) {
  nlohmann::json expected;
  ASSERT_TRUE(ReadTfExpected(&expected));
  int files = 0;
  for (const auto& [name, facts] : expected["files"].items()) {
    if (facts["kind"] != "tfrecord" && facts["kind"] != "events") continue;
    SCOPED_TRACE(name);
    ++files;
    const std::string path = (TfTestDataDir() / name).string();
    Result<CompressionType> compression =
        ParseCompressionType(facts["compression"] == "NONE"
                                 ? ""
                                 : facts["compression"].get<std::string>());
    ASSERT_TRUE(compression.ok());
    Result<CompressionType> detected =
        DetectFileCompression(Env::Default(), path);
    ASSERT_TRUE(detected.ok()) << detected.status();
    EXPECT_EQ(*detected, *compression);

    uint64_t end = 0;
    std::vector<std::string> records;
    ASSERT_NO_FATAL_FAILURE(ReadRecords(name, *compression, &records, &end));
    ASSERT_EQ(records.size(), facts["records"].get<size_t>());
    EXPECT_EQ(end, facts["uncompressed_bytes"].get<uint64_t>());
    size_t total = 0;
    for (const std::string& r : records) total += r.size();
    EXPECT_EQ(total, facts["record_bytes_total"].get<size_t>());
    const auto& lengths = facts["record_lengths_first"];
    ASSERT_LE(lengths.size(), records.size());
    for (size_t i = 0; i < lengths.size(); ++i) {
      EXPECT_EQ(records[i].size(), lengths[i].get<size_t>()) << "record " << i;
    }
    EXPECT_EQ(testing::Sha256Hex(records.front()),
              facts["first_record_sha256"].get<std::string>());
    EXPECT_EQ(testing::Sha256Hex(records.back()),
              facts["last_record_sha256"].get<std::string>());
  }
  // The six TFRecord files and the two event files.
  EXPECT_EQ(files, 8);
}

TEST(TfTestDataTest, FoxRecordIsTheText) {
  uint64_t end = 0;
  std::vector<std::string> records;
  ASSERT_NO_FATAL_FAILURE(ReadRecords("tfrecord/fox.tfrecord",
                                      CompressionType::kNone, &records, &end));
  EXPECT_EQ(records, std::vector<std::string>{"The Quick Brown Fox"});
}

TEST(TfTestDataTest, RewritingWithTfSettingsGivesTfsCompressedBytes) {
  uint64_t end = 0;
  std::vector<std::string> records;
  ASSERT_NO_FATAL_FAILURE(ReadRecords("tfrecord/images.tfrecord",
                                      CompressionType::kNone, &records, &end));
  ASSERT_EQ(records.size(), 50u);
  // TF wrote the same 50 records with its GZIP and ZLIB options: writing
  // them again with ours gives TF's compressed bytes.
  for (const auto& [file, compression] :
       {std::pair{"tfrecord/images.tfrecord.gz", CompressionType::kGzip},
        std::pair{"tfrecord/images.tfrecord.zlib", CompressionType::kZlib}}) {
    SCOPED_TRACE(file);
    std::vector<std::string> tf_records;
    ASSERT_NO_FATAL_FAILURE(ReadRecords(file, compression, &tf_records, &end));
    EXPECT_EQ(tf_records, records);
    std::string tf_bytes;
    ASSERT_TRUE(ReadTfTestFile(file, &tf_bytes));
    MemEnv env;
    RecordWriterOptions options;
    options.compression = compression;
    auto writer = RecordWriter::Create(env, "out", options);
    ASSERT_TRUE(writer.ok());
    for (const std::string& r : tf_records) {
      ASSERT_TRUE((*writer)->WriteRecord(r).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
    EXPECT_TRUE(*env.Contents("out") == tf_bytes);
  }
}

}  // namespace
}  // namespace inflow
