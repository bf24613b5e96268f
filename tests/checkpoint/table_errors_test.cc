// Copyright 2026 The inflow Authors.
//
// Each reader error of docs/formats.md ("The .index file"), made by
// damaging one field of a small table (with its CRC fixed where the
// damage is inside a block): DATA_LOSS with the message, file and offset.

#include <memory>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

#include "checkpoint/table.h"
#include "checkpoint/table_format.h"
#include "proto/wire.h"
#include "table_test_util.h"

namespace inflow::internal {
namespace {

using testing::BuildTable;
using testing::FooterOf;
using ::testing::HasSubstr;
using testing::IndexOf;
using testing::OpenTableBytes;
using testing::ReadAll;

Status OpenError(const std::string& bytes) {
  auto table = OpenTableBytes(bytes, "/ckpt/m.index");
  if (!table.ok()) return table.status();
  return ReadAll(**table).status();
}

// The worked example's table: data block [0, 32), metaindex [37, 45),
// index [50, 64), footer [69, 117).
std::string SmallTable() {
  return BuildTable({{"", "header"}, {"v", "entry"}});
}

// Replaces the contents of the block at `h` with `contents` of the same
// size and rewrites its trailer, so that only the contents are damaged.
void RewriteBlock(std::string* bytes, const BlockHandle& h,
                  std::string_view contents,
                  BlockCompression type = BlockCompression::kNone) {
  ASSERT_EQ(contents.size(), h.size);
  bytes->replace(h.offset, h.size, contents);
  bytes->replace(h.offset + h.size, kBlockTrailerSize,
                 BlockTrailer(contents, type));
}

TEST(TableReaderTest, FileShorterThanAFooterIsDataLoss) {
  const Status s = OpenError(std::string(47, '\0'));
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("file is too short to be an sstable"));
  EXPECT_THAT(s.ToString(), HasSubstr("at offset 0 in /ckpt/m.index"));
}

TEST(TableReaderTest, BadMagicIsDataLossAtTheMagic) {
  std::string bytes = SmallTable();
  bytes.back() ^= 1;
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(
      s.ToString(),
      HasSubstr("not an sstable (bad magic number) at offset " +
                std::to_string(bytes.size() - 8) + " in /ckpt/m.index"));
}

TEST(TableReaderTest, UndecodableFooterHandleIsBadBlockHandle) {
  std::string bytes = SmallTable();
  // Eleven continuation bytes: no varint64.
  bytes.replace(bytes.size() - kFooterSize, 11, std::string(11, '\x80'));
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("bad block handle"));
}

TEST(TableReaderTest, HandlePastTheEndOfTheFileIsBadBlockHandle) {
  std::string bytes = SmallTable();
  Footer footer = FooterOf(bytes);
  footer.index.size = 1ull << 40;
  bytes.replace(bytes.size() - kFooterSize, kFooterSize, footer.Encode());
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("bad block handle (index block"));
  EXPECT_THAT(s.ToString(), HasSubstr("in /ckpt/m.index"));
}

TEST(TableReaderTest, DataBlockHandleIntoTheFooterIsBadBlockHandle) {
  std::string bytes = SmallTable();
  const Footer footer = FooterOf(bytes);
  std::string index_block;
  {
    BlockHandle bad{0, bytes.size()};
    std::string handle;
    bad.EncodeTo(&handle);
    // One entry "w" -> handle, restart array [0], count 1.
    index_block = std::string("\x00\x01", 2) +
                  static_cast<char>(handle.size()) + "w" + handle;
    PutFixed32(&index_block, 0);
    PutFixed32(&index_block, 1);
  }
  // Same size as the original index block is not needed: write a new
  // footer pointing at it.
  const uint64_t at = bytes.size() - kFooterSize;
  Footer moved = footer;
  moved.index = {at, index_block.size()};
  bytes.resize(at);
  bytes += index_block + BlockTrailer(index_block, BlockCompression::kNone);
  bytes += moved.Encode();
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("bad block handle (data block"));
}

TEST(TableReaderTest, ChecksumMismatchNamesTheBlockOffset) {
  std::string bytes = SmallTable();
  bytes[3] ^= 0x10;  // inside the data block at 0
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("block checksum mismatch (data block, "));
  EXPECT_THAT(s.ToString(), HasSubstr("at offset 0 in /ckpt/m.index"));
}

TEST(TableReaderTest, UnknownBlockTypeIsBadBlockType) {
  std::string bytes = SmallTable();
  const BlockHandle h = IndexOf(bytes)[0].second;
  const std::string contents = bytes.substr(h.offset, h.size);
  RewriteBlock(&bytes, h, contents, static_cast<BlockCompression>(2));
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("bad block type 2"));
}

TEST(TableReaderTest, FileShorterThanItsGivenSizeIsTruncatedBlockRead) {
  auto env = std::make_shared<MemEnv>();
  const std::string bytes = SmallTable();
  ASSERT_TRUE(WriteStringToFile(*env, "/m.index", bytes).ok());
  auto table = Table::Open(env->NewRandomAccessFile("/m.index").value(),
                           bytes.size() + 10);
  ASSERT_FALSE(table.ok());
  EXPECT_TRUE(IsDataLoss(table.status())) << table.status();
  EXPECT_THAT(table.status().ToString(),
              HasSubstr("truncated block read (footer) at offset " +
                        std::to_string(bytes.size() + 10 - kFooterSize)));
  // A block cut short, read directly.
  ASSERT_TRUE(WriteStringToFile(*env, "/cut.index", bytes.substr(0, 30)).ok());
  auto block = ReadBlock(*env->NewRandomAccessFile("/cut.index").value(),
                         {0, 32}, "data block");
  ASSERT_FALSE(block.ok());
  EXPECT_TRUE(IsDataLoss(block.status()));
  EXPECT_THAT(block.status().ToString(),
              HasSubstr("truncated block read (data block, 32 bytes) at "
                        "offset 0 in /cut.index"));
}

TEST(TableReaderTest, RestartCountTooLargeForTheBlockIsBadBlockContents) {
  std::string bytes = SmallTable();
  const BlockHandle h = IndexOf(bytes)[0].second;
  std::string contents = bytes.substr(h.offset, h.size);
  EncodeFixed32(contents.data() + contents.size() - 4, 1000);
  RewriteBlock(&bytes, h, contents);
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("bad block contents (restart count"));
  // The count's own offset in the file.
  EXPECT_THAT(s.ToString(),
              HasSubstr("at offset " + std::to_string(h.offset + h.size - 4)));
}

TEST(TableReaderTest, SharedPrefixLongerThanThePreviousKeyIsBadEntry) {
  std::string bytes = SmallTable();
  const BlockHandle h = IndexOf(bytes)[0].second;
  std::string contents = bytes.substr(h.offset, h.size);
  // Entry 0: "" -> "header" (9 bytes); entry 1 at byte 9: shared = 5.
  ASSERT_EQ(contents[9], 0);
  contents[9] = 5;
  RewriteBlock(&bytes, h, contents);
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("bad entry in block (shares 5 bytes"));
  EXPECT_THAT(s.ToString(), HasSubstr("at offset 9 in /ckpt/m.index"));
}

TEST(TableReaderTest, ValueRunningPastTheEntriesIsBadEntry) {
  std::string bytes = SmallTable();
  const BlockHandle h = IndexOf(bytes)[0].second;
  std::string contents = bytes.substr(h.offset, h.size);
  contents[2] = 100;  // entry 0's value length
  RewriteBlock(&bytes, h, contents);
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("run past the entries' end"));
}

TEST(TableReaderTest, KeysOutOfOrderInABlockAreBadEntry) {
  std::string bytes = BuildTable({{"a", "1"}, {"b", "2"}});
  const BlockHandle h = IndexOf(bytes)[0].second;
  std::string contents = bytes.substr(h.offset, h.size);
  // Entries "a"->"1" at 0 and "b"->"2" at 5: swap the keys.
  ASSERT_EQ(contents[3], 'a');
  ASSERT_EQ(contents[8], 'b');
  std::swap(contents[3], contents[8]);
  RewriteBlock(&bytes, h, contents);
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("key not after the previous key"));
}

TEST(TableReaderTest, KeyBeyondItsIndexKeyIsBadEntry) {
  std::string bytes = BuildTable({{"a", "1"}, {"b", "2"}});
  const BlockHandle h = IndexOf(bytes)[0].second;
  std::string contents = bytes.substr(h.offset, h.size);
  contents[8] = 'x';  // "b" -> "x", after the index key "c"
  RewriteBlock(&bytes, h, contents);
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("key outside the range the index"));
}

TEST(TableReaderTest, DamagedSnappyBlockIsCorruptedCompressedContents) {
  TableOptions options;
  options.snappy = true;
  std::string bytes =
      BuildTable({{"a", std::string(100, 'x')}, {"b", "y"}}, options);
  const BlockHandle h = IndexOf(bytes)[0].second;
  ASSERT_EQ(bytes[h.offset + h.size],
            static_cast<char>(BlockCompression::kSnappy));
  std::string contents = bytes.substr(h.offset, h.size);
  contents[0] = '\x7f';  // a claimed length that the copies cannot reach
  RewriteBlock(&bytes, h, contents, BlockCompression::kSnappy);
  const Status s = OpenError(bytes);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("corrupted compressed block contents"));
  EXPECT_THAT(s.ToString(), HasSubstr("in /ckpt/m.index"));
}

TEST(TableReaderTest, ReadErrorIsReturnedWithTheFileAndOffset) {
  auto env = std::make_shared<MemEnv>();
  const std::string bytes = SmallTable();
  ASSERT_TRUE(WriteStringToFile(*env, "/m.index", bytes).ok());
  env->InjectReadError("/m.index", 0, UnavailableError("gone"));
  auto table =
      Table::Open(env->NewRandomAccessFile("/m.index").value(), bytes.size());
  ASSERT_TRUE(table.ok()) << table.status();  // the data block is read later
  const Status s = ReadAll(**table).status();
  EXPECT_TRUE(IsUnavailable(s)) << s;
  EXPECT_THAT(s.ToString(), HasSubstr("data block at offset 0 of /m.index"));
}

}  // namespace
}  // namespace inflow::internal
