// Copyright 2026 The inflow Authors.
//
// LevelDB's own table code as the oracle: tables inflow writes open with
// leveldb::Table and hold the same entries; tables leveldb::TableBuilder
// writes (with and without Snappy) read back identically through inflow.

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "inflow/io/env.h"

#include "checkpoint/table.h"
#include "table_test_util.h"

namespace inflow::internal {
namespace {

using testing::BuildTable;
using testing::DataBlockTypes;
using testing::Entries;
using testing::IndexOf;
using testing::ReadAll;

class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("inflow_table_leveldb_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Keys with long shared prefixes, 0x00 and 0xff bytes, the empty key;
// values empty, small and larger than a block.
Entries OracleEntries() {
  std::mt19937 rng(42);
  std::map<std::string, std::string> m;
  m[""] = "header";
  const std::string shared(200, 's');
  for (int i = 0; i < 2000; ++i) {
    std::string key;
    switch (i % 4) {
      case 0:
        key = shared + std::to_string(rng());
        break;
      case 1:
        key = std::string("\x00", 1) + std::to_string(i);
        break;
      case 2:
        key = std::string(1 + i % 3, '\xff') + std::to_string(i) +
              std::string("\x00\xff", 2);
        break;
      default:
        key = "model/layer_" + std::to_string(i) + "/kernel";
    }
    std::string value;
    if (i % 7 == 1) value = std::string(20000 + rng() % 50000, 'a' + i % 26);
    if (i % 7 >= 3) value = std::to_string(rng());
    m[key] = value;
  }
  return Entries(m.begin(), m.end());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  ASSERT_TRUE(WriteStringToFile(Env::Default(), path, bytes).ok());
}

// Every entry through leveldb::Table, checking block CRCs.
Entries ReadWithLevelDb(const std::string& path) {
  leveldb::Env* env = leveldb::Env::Default();
  uint64_t size = 0;
  EXPECT_TRUE(env->GetFileSize(path, &size).ok());
  leveldb::RandomAccessFile* raw = nullptr;
  EXPECT_TRUE(env->NewRandomAccessFile(path, &raw).ok());
  std::unique_ptr<leveldb::RandomAccessFile> file(raw);
  leveldb::Options options;
  options.paranoid_checks = true;
  leveldb::Table* table_raw = nullptr;
  const leveldb::Status s =
      leveldb::Table::Open(options, file.get(), size, &table_raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  std::unique_ptr<leveldb::Table> table(table_raw);
  leveldb::ReadOptions read;
  read.verify_checksums = true;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read));
  Entries out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

void WriteWithLevelDb(const std::string& path, const Entries& entries,
                      leveldb::CompressionType compression) {
  leveldb::WritableFile* raw = nullptr;
  ASSERT_TRUE(leveldb::Env::Default()->NewWritableFile(path, &raw).ok());
  std::unique_ptr<leveldb::WritableFile> file(raw);
  leveldb::Options options;
  options.compression = compression;
  options.block_size = 4096;
  leveldb::TableBuilder builder(options, file.get());
  for (const auto& [key, value] : entries) builder.Add(key, value);
  ASSERT_TRUE(builder.Finish().ok());
  ASSERT_TRUE(file->Close().ok());
}

Result<Entries> ReadWithInflow(const std::string& path) {
  Env& env = Env::Default();
  INFLOW_ASSIGN_OR_RETURN(uint64_t size, env.GetFileSize(path));
  INFLOW_ASSIGN_OR_RETURN(auto file, env.NewRandomAccessFile(path));
  INFLOW_ASSIGN_OR_RETURN(auto table, Table::Open(std::move(file), size));
  return ReadAll(*table);
}

TEST(TableLevelDbTest, TablesInflowWritesReadTheSameThroughLevelDb) {
  TempDir dir;
  const Entries entries = OracleEntries();
  for (const bool snappy : {false, true}) {
    for (size_t block_size : {size_t{256}, size_t{4096}, size_t{262144}}) {
      TableOptions options;
      options.block_size = block_size;
      options.snappy = snappy;
      const std::string bytes = BuildTable(entries, options);
      if (block_size == 256) {
        ASSERT_GT(IndexOf(bytes).size(), 100u);
      }
      const std::string path = dir.File("ours.index");
      WriteFile(path, bytes);
      EXPECT_EQ(ReadWithLevelDb(path), entries)
          << "snappy " << snappy << " block_size " << block_size;
    }
  }
}

TEST(TableLevelDbTest, TheWorkedExampleReadsThroughLevelDb) {
  TempDir dir;
  const Entries entries = {
      {"", testing::FromHex("08 01 1a 02 08 01")},
      {"v", testing::FromHex("08 01 12 00 28 04 35 81 a5 da 2b")}};
  WriteFile(dir.File("v.index"), BuildTable(entries));
  EXPECT_EQ(ReadWithLevelDb(dir.File("v.index")), entries);
}

TEST(TableLevelDbTest, TablesLevelDbWritesReadTheSameThroughInflow) {
  TempDir dir;
  const Entries entries = OracleEntries();
  for (const auto compression :
       {leveldb::kNoCompression, leveldb::kSnappyCompression}) {
    const std::string path = dir.File("theirs.ldb");
    WriteWithLevelDb(path, entries, compression);
    auto got = ReadWithInflow(path);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, entries) << "compression " << compression;
    // LevelDB really compressed (this is no uncompressed table twice).
    const std::string bytes = ReadFileToString(Env::Default(), path).value();
    const auto types = DataBlockTypes(bytes);
    ASSERT_GT(types.size(), 10u);
    const auto snappy_blocks =
        std::count(types.begin(), types.end(), BlockCompression::kSnappy);
    if (compression == leveldb::kSnappyCompression) {
      EXPECT_GT(snappy_blocks, 0);
    } else {
      EXPECT_EQ(snappy_blocks, 0);
    }
  }
}

}  // namespace
}  // namespace inflow::internal
