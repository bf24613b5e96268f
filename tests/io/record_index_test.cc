// Copyright 2026 The inflow Authors.

#include "inflow/io/record_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/crc32c.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"

#include "io/record_format.h"

namespace inflow {
namespace {

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

const std::vector<std::string> kRecords = {"first", "", std::string(3000, 'x'),
                                           "last one"};

// MemEnv's modification times come from the wall clock: make the next
// write's differ from the last one's.
void NextTick() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

TEST(RecordIndexTest, BuildRecordsEachOffsetAndLength) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  Result<RecordIndex> index = RecordIndex::Build(env, "f");
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_EQ(index->size(), 4);
  uint64_t offset = 0;
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(index->offset(i), offset);
    EXPECT_EQ(index->length(i), kRecords[i].size());
    offset += kRecords[i].size() + 16;
  }
  EXPECT_EQ(index->file_size(), offset);
  EXPECT_EQ(index->FramedBytes(1, 2), 16 + 3016u);
  EXPECT_EQ(index->FramedBytes(0, 4), offset);
  EXPECT_EQ(index->FramedBytes(2, 0), 0u);
}

TEST(RecordIndexTest, AnEmptyFileHasNoRecords) {
  MemEnv env;
  WriteRecords(env, "f", {});
  Result<RecordIndex> index = RecordIndex::Build(env, "f");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->size(), 0);
  Result<RecordIndex> parsed = RecordIndex::Parse(index->Serialize(), "i");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, *index);
}

TEST(RecordIndexTest, SerializeParseRoundTrip) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  const RecordIndex index = *RecordIndex::Build(env, "f");
  const std::string bytes = index.Serialize();
  EXPECT_EQ(bytes.size(), 40 + 8 * 4 + 4u);
  EXPECT_EQ(bytes.substr(0, 8), "IFRECIDX");
  Result<RecordIndex> parsed = RecordIndex::Parse(bytes, "f.index");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, index);
  EXPECT_EQ(parsed->file_mtime_ns(), index.file_mtime_ns());
}

TEST(RecordIndexTest, WriteThenLoadUsesTheIndexFile) {
  MemEnv env;
  WriteRecords(env, "d/f", kRecords);
  Result<RecordIndex> written = WriteRecordIndex(env, "d/f");
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*env.Contents("d/f.index"), written->Serialize());
  // No temporary left beside it.
  EXPECT_EQ(*env.GetChildren("d"), (std::vector<std::string>{"f", "f.index"}));
  // kRequire reads the file only; a damaged data file would fail a build.
  Result<RecordIndex> loaded =
      LoadRecordIndex(env, "d/f", RecordIndexMode::kRequire);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(*loaded, *written);
}

TEST(RecordIndexTest, InMemoryNeverTouchesTheIndexFile) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  ASSERT_TRUE(WriteStringToFile(env, "f.index", "garbage").ok());
  Result<RecordIndex> index =
      LoadRecordIndex(env, "f", RecordIndexMode::kInMemory);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->size(), 4);
  EXPECT_EQ(*env.Contents("f.index"), "garbage");
}

TEST(RecordIndexTest, MissingIndexIsBuiltAndWrittenOnlyWithReadWrite) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  Result<RecordIndex> read = LoadRecordIndex(env, "f", RecordIndexMode::kRead);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(IsNotFound(env.FileExists("f.index")));
  Result<RecordIndex> required =
      LoadRecordIndex(env, "f", RecordIndexMode::kRequire);
  EXPECT_TRUE(IsNotFound(required.status())) << required.status();
  EXPECT_NE(required.status().message().find("inflow records index"),
            std::string::npos);
  Result<RecordIndex> written =
      LoadRecordIndex(env, "f", RecordIndexMode::kReadWrite);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, *read);
  EXPECT_EQ(*env.Contents("f.index"), read->Serialize());
}

TEST(RecordIndexTest, StaleIndexAfterAnAppendIsRebuilt) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  const RecordIndex old = *WriteRecordIndex(env, "f");
  NextTick();
  {
    auto writer = RecordWriter::Create(*env.NewAppendableFile("f"));
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->WriteRecord("appended").ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  Status fresh = old.IsFreshFor(env, "f");
  EXPECT_TRUE(IsFailedPrecondition(fresh)) << fresh;
  EXPECT_NE(fresh.message().find("stale record index of f"), std::string::npos)
      << fresh;

  Result<RecordIndex> required =
      LoadRecordIndex(env, "f", RecordIndexMode::kRequire);
  EXPECT_TRUE(IsFailedPrecondition(required.status())) << required.status();

  Result<RecordIndex> read = LoadRecordIndex(env, "f", RecordIndexMode::kRead);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->size(), 5);
  EXPECT_EQ(read->length(4), 8u);
  EXPECT_EQ(*env.Contents("f.index"), old.Serialize());  // left alone

  Result<RecordIndex> rewritten =
      LoadRecordIndex(env, "f", RecordIndexMode::kReadWrite);
  ASSERT_TRUE(rewritten.ok()) << rewritten.status();
  EXPECT_EQ(*env.Contents("f.index"), rewritten->Serialize());
  EXPECT_TRUE(LoadRecordIndex(env, "f", RecordIndexMode::kRequire).ok());
}

TEST(RecordIndexTest, StaleIndexAfterASameSizeRewriteIsRebuilt) {
  MemEnv env;
  WriteRecords(env, "f", {"aa", "bbbb"});
  const RecordIndex old = *WriteRecordIndex(env, "f");
  NextTick();
  WriteRecords(env, "f", {"aaaa", "bb"});  // same size, other offsets
  ASSERT_EQ(*env.GetFileSize("f"), old.file_size());
  EXPECT_TRUE(IsFailedPrecondition(old.IsFreshFor(env, "f")));
  Result<RecordIndex> index = LoadRecordIndex(env, "f");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->length(0), 4u);
  EXPECT_EQ(index->offset(1), 20u);
}

TEST(RecordIndexTest, StaleByModificationTimeOnARealFile) {
  char dir_template[] = "/tmp/inflow_index_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string path = dir + "/f.tfrecord";
  Env& env = Env::Default();
  WriteRecords(env, path, kRecords);
  ASSERT_TRUE(WriteRecordIndex(env, path).ok());
  EXPECT_TRUE(LoadRecordIndex(env, path, RecordIndexMode::kRequire).ok());
  // Only the modification time moves (by one microsecond).
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  times[1].tv_nsec = (times[1].tv_nsec + 1000) % 1000000000;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  Result<RecordIndex> required =
      LoadRecordIndex(env, path, RecordIndexMode::kRequire);
  EXPECT_TRUE(IsFailedPrecondition(required.status())) << required.status();
  EXPECT_TRUE(LoadRecordIndex(env, path, RecordIndexMode::kReadWrite).ok());
  EXPECT_TRUE(LoadRecordIndex(env, path, RecordIndexMode::kRequire).ok());
  ASSERT_TRUE(env.DeleteFile(path).ok());
  ASSERT_TRUE(env.DeleteFile(path + ".index").ok());
  ASSERT_EQ(::rmdir(dir.c_str()), 0);
}

TEST(RecordIndexTest, CorruptIndexFileIsDataLossNamingIt) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  const std::string good = WriteRecordIndex(env, "f")->Serialize();
  // Every single-bit flip and every truncation is caught: by the magic,
  // the version, or the checksum.
  auto expect_rejected = [&](const std::string& bytes, const std::string& why) {
    ASSERT_TRUE(WriteStringToFile(env, "f.index", bytes).ok());
    for (RecordIndexMode mode :
         {RecordIndexMode::kRead, RecordIndexMode::kReadWrite,
          RecordIndexMode::kRequire}) {
      Result<RecordIndex> index = LoadRecordIndex(env, "f", mode);
      ASSERT_FALSE(index.ok()) << why;
      const Status& s = index.status();
      if (IsFailedPrecondition(s)) {
        EXPECT_NE(s.message().find("record index f.index has format version"),
                  std::string::npos)
            << why << ": " << s;
      } else {
        EXPECT_TRUE(IsDataLoss(s)) << why << ": " << s;
        EXPECT_NE(s.message().find("corrupt record index f.index: "),
                  std::string::npos)
            << why << ": " << s;
      }
    }
    // Not rewritten behind the caller's back.
    EXPECT_EQ(*env.Contents("f.index"), bytes) << why;
  };
  for (size_t bit = 0; bit < good.size() * 8; ++bit) {
    std::string bad = good;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    expect_rejected(bad, "bit " + std::to_string(bit));
  }
  for (size_t n = 0; n < good.size(); ++n) {
    expect_rejected(good.substr(0, n), "first " + std::to_string(n));
  }
  expect_rejected(good + "x", "one byte more");
  // WriteRecordIndex replaces it.
  ASSERT_TRUE(WriteRecordIndex(env, "f").ok());
  EXPECT_TRUE(LoadRecordIndex(env, "f", RecordIndexMode::kRequire).ok());
}

// An index file with a valid checksum over `offsets` (and the header
// fields given), to reach the checks behind the checksum.
std::string IndexBytes(uint64_t file_size, std::vector<uint64_t> offsets,
                       uint32_t version = 1, uint32_t reserved = 0) {
  std::string out(40 + 8 * offsets.size() + 4, '\0');
  char* p = out.data();
  std::copy_n("IFRECIDX", 8, p);
  internal::EncodeFixed32(p + 8, version);
  internal::EncodeFixed32(p + 12, reserved);
  internal::EncodeFixed64(p + 16, file_size);
  internal::EncodeFixed64(p + 24, 12345);
  internal::EncodeFixed64(p + 32, offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) {
    internal::EncodeFixed64(p + 40 + 8 * i, offsets[i]);
  }
  const size_t body = out.size() - 4;
  internal::EncodeFixed32(p + body, crc32c::Mask(crc32c::Value(p, body)));
  return out;
}

TEST(RecordIndexTest, ParseChecksTheOffsetsBehindTheChecksum) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"first not at 0", IndexBytes(100, {4, 50}), "record 0's offset 4"},
      {"too close", IndexBytes(100, {0, 10}), "record 1's offset 10"},
      {"decreasing", IndexBytes(100, {0, 50, 40}), "record 2's offset 40"},
      {"past the end", IndexBytes(100, {0, 90}), "record 1's offset 90"},
      {"far past the end", IndexBytes(100, {0, ~uint64_t{0}}),
       "record 1's offset"},
      {"no records, some bytes", IndexBytes(16, {}), "no records for a file"},
      {"reserved", IndexBytes(16, {0}, 1, 7), "reserved header field"},
  };
  for (const Case& c : cases) {
    Result<RecordIndex> index = RecordIndex::Parse(c.bytes, "i");
    EXPECT_TRUE(IsDataLoss(index.status())) << c.name << ": " << index.status();
    EXPECT_NE(index.status().message().find(c.message), std::string::npos)
        << c.name << ": " << index.status();
  }
  EXPECT_TRUE(RecordIndex::Parse(IndexBytes(100, {0, 84}), "i").ok());
  Result<RecordIndex> future = RecordIndex::Parse(IndexBytes(16, {0}, 2), "i");
  EXPECT_TRUE(IsFailedPrecondition(future.status())) << future.status();
}

TEST(RecordIndexTest, ParseRejectsACountTheSizeCannotHold) {
  std::string bytes = IndexBytes(16, {0});
  internal::EncodeFixed64(bytes.data() + 32, uint64_t{1} << 61);
  Result<RecordIndex> index = RecordIndex::Parse(bytes, "i");
  EXPECT_TRUE(IsDataLoss(index.status())) << index.status();
  EXPECT_NE(index.status().message().find("does not match its record count"),
            std::string::npos)
      << index.status();
}

TEST(RecordIndexTest, CompressedFilesAreNotIndexed) {
  MemEnv env;
  for (CompressionType c : {CompressionType::kGzip, CompressionType::kZlib}) {
    WriteRecords(env, "f", kRecords, c);
    Result<RecordIndex> index = RecordIndex::Build(env, "f");
    EXPECT_TRUE(IsFailedPrecondition(index.status())) << index.status();
    EXPECT_NE(index.status().message().find("needs a plain TFRecord file"),
              std::string::npos)
        << index.status();
  }
}

TEST(RecordIndexTest, AnIndexFileIsNotIndexed) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  ASSERT_TRUE(WriteRecordIndex(env, "f").ok());
  Result<RecordIndex> index = RecordIndex::Build(env, "f.index");
  EXPECT_TRUE(IsFailedPrecondition(index.status())) << index.status();
  EXPECT_NE(index.status().message().find("f.index is a record index"),
            std::string::npos)
      << index.status();
}

TEST(RecordIndexTest, DamagedRecordFailsTheBuildWithDataLoss) {
  MemEnv env;
  WriteRecords(env, "f", kRecords);
  std::string bytes = *env.Contents("f");
  bytes[21 + 12 + 100] ^= 1;  // record 2's payload
  ASSERT_TRUE(WriteStringToFile(env, "f", bytes).ok());
  Result<RecordIndex> index = WriteRecordIndex(env, "f");
  EXPECT_TRUE(IsDataLoss(index.status())) << index.status();
  EXPECT_NE(index.status().message().find(
                "corrupted record (data checksum) at offset 37 in f"),
            std::string::npos)
      << index.status();
  EXPECT_TRUE(IsNotFound(env.FileExists("f.index")));
}

TEST(RecordIndexTest, MissingFileIsNotFound) {
  MemEnv env;
  EXPECT_TRUE(IsNotFound(LoadRecordIndex(env, "nope").status()));
  EXPECT_TRUE(IsNotFound(WriteRecordIndex(env, "nope").status()));
}

TEST(RecordIndexTest, FailedWriteLeavesNoIndexNorTemporary) {
  MemEnv env;
  WriteRecords(env, "d/f", kRecords);
  env.FailNext(MemEnvOp::kRenameFile, UnavailableError("injected"));
  Result<RecordIndex> index = WriteRecordIndex(env, "d/f");
  EXPECT_TRUE(IsUnavailable(index.status())) << index.status();
  EXPECT_EQ(*env.GetChildren("d"), std::vector<std::string>{"f"});
}

}  // namespace
}  // namespace inflow
