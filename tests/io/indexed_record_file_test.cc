// Copyright 2026 The inflow Authors.

#include "inflow/io/indexed_record_file.h"

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"
#include "inflow/io/record_reader.h"
#include "inflow/io/record_writer.h"

namespace inflow {
namespace {

void WriteRecords(Env& env, const std::string& path,
                  const std::vector<std::string>& records) {
  auto writer = RecordWriter::Create(env, path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const std::string& r : records) {
    ASSERT_TRUE((*writer)->WriteRecord(r).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

std::vector<std::string> RandomRecords(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> records;
  for (int i = 0; i < n; ++i) {
    // Mostly small, some empty, a few larger than a read buffer.
    const size_t len = i % 17 == 0 ? 0 : i % 23 == 0 ? 300000 : rng() % 200;
    std::string r(len, '\0');
    for (char& c : r) c = static_cast<char>(rng());
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<std::string> ReadSequentially(Env& env, const std::string& path) {
  std::vector<std::string> out;
  auto reader = RecordReader::Open(env, path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  for (;;) {
    Result<std::string_view> r = (*reader)->Next();
    if (!r.ok()) {
      EXPECT_TRUE(IsOutOfRange(r.status())) << r.status();
      return out;
    }
    out.emplace_back(*r);
  }
}

TEST(IndexedRecordFileTest, RecordsByNumberEqualSequentialReads) {
  MemEnv env;
  WriteRecords(env, "f", RandomRecords(100, 1));
  const std::vector<std::string> expected = ReadSequentially(env, "f");
  ASSERT_EQ(expected.size(), 100u);
  auto file = IndexedRecordFile::Open(env, "f");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ((*file)->size(), 100);
  // Backwards, so that no read follows the one before it.
  for (int64_t i = 99; i >= 0; --i) {
    Result<std::string> record = (*file)->Read(i);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(*record, expected[i]) << i;
  }
}

TEST(IndexedRecordFileTest, ReadRangeViewsEachRecordInOneBuffer) {
  MemEnv env;
  WriteRecords(env, "f", RandomRecords(30, 2));
  const std::vector<std::string> expected = ReadSequentially(env, "f");
  auto file = IndexedRecordFile::Open(env, "f");
  ASSERT_TRUE(file.ok()) << file.status();
  const uint64_t bytes = (*file)->index().FramedBytes(5, 20);
  std::string scratch(bytes, '\0');
  std::vector<std::string_view> records = {"kept"};
  ASSERT_TRUE((*file)->ReadRange(5, 20, scratch.data(), &records).ok());
  ASSERT_EQ(records.size(), 21u);
  EXPECT_EQ(records[0], "kept");
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(records[1 + i], expected[5 + i]) << i;
    if (!records[1 + i].empty()) {
      EXPECT_GE(records[1 + i].data(), scratch.data());
      EXPECT_LE(records[1 + i].data() + records[1 + i].size(),
                scratch.data() + scratch.size());
    }
  }
  EXPECT_TRUE((*file)->ReadRange(30, 0, nullptr, &records).ok());
  EXPECT_TRUE(IsOutOfRange((*file)->ReadRange(25, 6, nullptr, &records)));
  EXPECT_TRUE(IsOutOfRange((*file)->ReadRange(-1, 1, nullptr, &records)));
}

TEST(IndexedRecordFileTest, RecordOutsideTheFileIsOutOfRange) {
  MemEnv env;
  WriteRecords(env, "f", {"a", "b"});
  auto file = IndexedRecordFile::Open(env, "f");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(IsOutOfRange((*file)->Read(2).status()));
  EXPECT_TRUE(IsOutOfRange((*file)->Read(-1).status()));
}

// Opens `f` (indexed), then rewrites its bytes with `damage` applied, as a
// disk or a careless writer would, behind the index's back.
class DamagedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteRecords(env_, "f", {"first", "second", "third"});
    auto file = IndexedRecordFile::Open(env_, "f");
    ASSERT_TRUE(file.ok()) << file.status();
    file_ = std::move(*file);
    bytes_ = *env_.Contents("f");
  }
  void Rewrite(const std::string& bytes) {
    ASSERT_TRUE(WriteStringToFile(env_, "f", bytes).ok());
  }
  void ExpectDataLoss(int64_t record, const std::string& message) {
    Result<std::string> r = file_->Read(record);
    EXPECT_TRUE(IsDataLoss(r.status())) << r.status();
    EXPECT_EQ(r.status().message(), message);
    std::vector<std::string_view> records;
    std::string scratch(file_->index().FramedBytes(0, 3), '\0');
    EXPECT_EQ(file_->ReadRange(0, 3, scratch.data(), &records), r.status());
    EXPECT_TRUE(records.empty());
  }

  MemEnv env_;
  std::unique_ptr<IndexedRecordFile> file_;
  std::string bytes_;  // record 1 at offset 21, record 2 at 43
};

TEST_F(DamagedFileTest, PayloadDamageIsDataLossNamingFileAndOffset) {
  bytes_[43 + 12 + 2] ^= 0x20;
  Rewrite(bytes_);
  ExpectDataLoss(2, "corrupted record (data checksum) at offset 43 in f");
  EXPECT_EQ(*file_->Read(1), "second");
}

TEST_F(DamagedFileTest, LengthDamageIsDataLoss) {
  bytes_[21] ^= 1;
  Rewrite(bytes_);
  ExpectDataLoss(1, "corrupted record (length checksum) at offset 21 in f");
}

TEST_F(DamagedFileTest, DataChecksumDamageIsDataLoss) {
  bytes_[bytes_.size() - 1] ^= 1;
  Rewrite(bytes_);
  ExpectDataLoss(2, "corrupted record (data checksum) at offset 43 in f");
}

TEST_F(DamagedFileTest, TruncationIsDataLoss) {
  Rewrite(bytes_.substr(0, 43 + 5));
  ExpectDataLoss(2, "truncated record (partial header) at offset 43 in f");
  Rewrite(bytes_.substr(0, 43 + 14));
  ExpectDataLoss(2, "truncated record at offset 43 in f");
  Rewrite(bytes_.substr(0, 30));
  ExpectDataLoss(1, "truncated record (partial header) at offset 21 in f");
  Rewrite(bytes_.substr(0, 21));
  ExpectDataLoss(1, "truncated record at offset 21 in f");
}

TEST_F(DamagedFileTest, OtherLengthsThanTheIndexsAreDataLoss) {
  std::string other;
  {
    MemEnv scratch;
    WriteRecords(scratch, "g", {"first", "secon", "dthird"});
    other = *scratch.Contents("g");
  }
  ASSERT_EQ(other.size(), bytes_.size());
  Rewrite(other);
  ExpectDataLoss(1,
                 "record at offset 21 in f is 5 bytes long, its index says 6: "
                 "the file changed since it was indexed");
}

TEST(IndexedRecordFileTest, OpenWithAStaleIndexIsFailedPrecondition) {
  MemEnv env;
  WriteRecords(env, "f", {"a", "b"});
  RecordIndex index = *RecordIndex::Build(env, "f");
  EXPECT_TRUE(IndexedRecordFile::Open(env, "f", index).ok());
  WriteRecords(env, "f", {"a", "b", "c"});
  auto file = IndexedRecordFile::Open(env, "f", index);
  EXPECT_TRUE(IsFailedPrecondition(file.status())) << file.status();
}

TEST(IndexedRecordFileTest, ThreadsReadOneFileAtOnce) {
  MemEnv env;
  WriteRecords(env, "f", RandomRecords(200, 3));
  const std::vector<std::string> expected = ReadSequentially(env, "f");
  auto file = IndexedRecordFile::Open(env, "f");
  ASSERT_TRUE(file.ok()) << file.status();
  const IndexedRecordFile& shared = **file;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int n = 0; n < 300; ++n) {
        const int64_t i = rng() % 200;
        Result<std::string> r = shared.Read(i);
        if (!r.ok() || *r != expected[i]) mismatches.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace inflow
