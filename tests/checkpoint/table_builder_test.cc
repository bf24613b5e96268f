// Copyright 2026 The inflow Authors.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

#include "checkpoint/block_builder.h"
#include "checkpoint/block_reader.h"
#include "checkpoint/table.h"
#include "checkpoint/table_format.h"
#include "proto/wire.h"
#include "table_test_util.h"

namespace inflow::internal {
namespace {

using testing::BuildTable;
using testing::Entries;
using testing::FooterOf;
using testing::FromHex;
using ::testing::HasSubstr;
using testing::IndexOf;
using testing::IndexRestartCount;
using testing::OpenTableBytes;
using testing::ReadAll;

// docs/formats.md, "The .index file": the index of a bundle holding one
// float32 scalar v = 1.0 (header entry under "", then "v").
constexpr std::string_view kWorkedExampleHex =
    "00 00 06 08 01 1a 02 08 01 00 01 0b 76 08 01 12"
    "00 28 04 35 81 a5 da 2b 00 00 00 00 01 00 00 00"
    "00 95 ce d3 f3 00 00 00 00 01 00 00 00 00 c0 f2"
    "a1 b0 00 01 02 77 00 20 00 00 00 00 01 00 00 00"
    "00 3e 1e a4 62 25 08 32 0e 00 00 00 00 00 00 00"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 57 fb 80"
    "8b 24 75 47 db";

TEST(TableBuilderTest, WorkedExampleIsByteExact) {
  const std::string expected = FromHex(kWorkedExampleHex);
  ASSERT_EQ(expected.size(), 117u);
  const std::string header = FromHex("08 01 1a 02 08 01");
  const std::string entry = FromHex("08 01 12 00 28 04 35 81 a5 da 2b");
  EXPECT_EQ(BuildTable({{"", header}, {"v", entry}}), expected);
}

TEST(TableBuilderTest, FileSizeAndNumEntriesCountWhatWasWritten) {
  MemEnv env;
  auto file = env.NewWritableFile("/f").value();
  TableBuilder builder({}, file.get());
  ASSERT_TRUE(builder.Add("a", "1").ok());
  ASSERT_TRUE(builder.Add("b", "2").ok());
  EXPECT_EQ(builder.num_entries(), 2u);
  ASSERT_TRUE(builder.Finish().ok());
  ASSERT_TRUE(file->Close().ok());
  EXPECT_EQ(builder.file_size(), env.Contents("/f")->size());
}

TEST(TableBuilderTest, KeyOutOfOrderIsInvalidArgumentNamingBothKeys) {
  MemEnv env;
  auto file = env.NewWritableFile("/f").value();
  TableBuilder builder({}, file.get());
  ASSERT_TRUE(builder.Add("dense/kernel", "x").ok());
  const Status s = builder.Add("dense/bias", "y");
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"dense/bias\""));
  EXPECT_THAT(std::string(s.message()), HasSubstr("\"dense/kernel\""));
  // The builder still takes keys that do sort after the last one.
  EXPECT_TRUE(builder.Add("dense/l", "z").ok());
}

TEST(TableBuilderTest, DuplicateKeyIsInvalidArgumentNamingBothKeys) {
  MemEnv env;
  auto file = env.NewWritableFile("/f").value();
  TableBuilder builder({}, file.get());
  ASSERT_TRUE(builder.Add("", "header").ok());
  ASSERT_TRUE(builder.Add(std::string("w\xff", 2), "x").ok());
  const Status s = builder.Add(std::string("w\xff", 2), "y");
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("\"w\\xff\" added twice (previous key \"w\\xff\")"));
}

TEST(TableBuilderTest, EmptyKeyTwiceIsDuplicate) {
  MemEnv env;
  auto file = env.NewWritableFile("/f").value();
  TableBuilder builder({}, file.get());
  ASSERT_TRUE(builder.Add("", "a").ok());
  EXPECT_TRUE(IsInvalidArgument(builder.Add("", "b")));
}

TEST(TableBuilderTest, AddAfterFinishIsFailedPrecondition) {
  MemEnv env;
  auto file = env.NewWritableFile("/f").value();
  TableBuilder builder({}, file.get());
  ASSERT_TRUE(builder.Finish().ok());
  EXPECT_TRUE(IsFailedPrecondition(builder.Add("a", "b")));
  EXPECT_TRUE(IsFailedPrecondition(builder.Finish()));
}

TEST(TableBuilderTest, WriteErrorIsReturnedByThatCallAndEveryLaterOne) {
  MemEnv env;
  env.InjectWriteError("/f", 10, UnavailableError("disk gone"));
  auto file = env.NewWritableFile("/f").value();
  TableOptions options;
  options.block_size = 64;
  TableBuilder builder(options, file.get());
  Status first;
  int i = 0;
  for (; i < 100 && first.ok(); ++i) {
    first = builder.Add("key" + std::to_string(1000 + i), std::string(20, 'v'));
  }
  EXPECT_TRUE(IsUnavailable(first)) << first;
  EXPECT_LT(i, 100);
  EXPECT_TRUE(IsUnavailable(builder.Add("zzz", "v")));
  EXPECT_TRUE(IsUnavailable(builder.Finish()));
}

TEST(TableBuilderTest, EmptyTableHasEmptyIndexAndReadsAsNoEntries) {
  const std::string bytes = BuildTable({});
  // Empty metaindex and index blocks (8 bytes + trailer each) and footer.
  EXPECT_EQ(bytes.size(), 2 * (8 + 5) + 48u);
  auto table = OpenTableBytes(bytes);
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(ReadAll(**table).value(), Entries{});
}

TEST(TableBuilderTest, IndexKeysAreShortestSeparatorsAndShortSuccessor) {
  TableOptions options;
  options.block_size = 1;  // every entry closes its block
  const std::string bytes = BuildTable({{"the quick brown fox", "1"},
                                        {"the who", "2"},
                                        {"the whp", "3"},
                                        {"the whpa", "4"},
                                        {"\xff\xff", "5"},
                                        {"\xff\xff\xff", "6"}},
                                       options);
  const auto index = IndexOf(bytes);
  ASSERT_EQ(index.size(), 6u);
  // TF's index block restarts at every entry.
  EXPECT_EQ(IndexRestartCount(bytes), 6u);
  // 'q' + 1 = 'r' < 'w': cut after it.
  EXPECT_EQ(index[0].first, "the r");
  // 'o' + 1 == 'p': no shorter separator, the last key itself.
  EXPECT_EQ(index[1].first, "the who");
  // "the whp" is a prefix of "the whpa": kept.
  EXPECT_EQ(index[2].first, "the whp");
  // 't' + 1 = 'u' < 0xff.
  EXPECT_EQ(index[3].first, "u");
  EXPECT_EQ(index[4].first, "\xff\xff");
  // The short successor of a key of 0xff bytes is the key.
  EXPECT_EQ(index[5].first, "\xff\xff\xff");
  uint64_t offset = 0;
  for (const auto& [key, handle] : index) {
    EXPECT_EQ(handle.offset, offset) << key;
    offset += handle.size + kBlockTrailerSize;
  }
}

TEST(TableBuilderTest, DataBlocksCloseWhenTheirEstimateReachesBlockSize) {
  TableOptions options;
  options.block_size = 100;
  Entries entries;
  for (int i = 0; i < 30; ++i) {
    entries.emplace_back(std::to_string(100 + i), std::string(10, 'x'));
  }
  const std::string bytes = BuildTable(entries, options);
  const auto index = IndexOf(bytes);
  ASSERT_GT(index.size(), 3u);
  // Each entry is 3 + 3 + 10 bytes less the shared prefix; a block closes
  // at the first entry that brings buffer + restarts + count to >= 100.
  for (size_t i = 0; i + 1 < index.size(); ++i) {
    EXPECT_GE(index[i].second.size, 100u - 17) << i;
    EXPECT_LT(index[i].second.size, 100u + 17) << i;
  }
  EXPECT_EQ(ReadAll(*OpenTableBytes(bytes).value()).value(), entries);
}

TEST(TableBuilderTest, OverlyLargeEntryStartsABlockOfItsOwn) {
  TableOptions options;
  options.block_size = 1000;
  const std::string big(2000, 'b');
  const std::string bytes =
      BuildTable({{"a", "small"}, {"b", big}, {"c", "small"}}, options);
  const auto index = IndexOf(bytes);
  // "a" alone (flushed before "b"), "b" alone (its size closes it), "c".
  ASSERT_EQ(index.size(), 3u);
  EXPECT_EQ(index[0].first, "a");
  EXPECT_EQ(index[1].first, "b");
  EXPECT_EQ(index[2].first, "d");
}

TEST(TableBuilderTest, DataBlocksRestartEveryRestartIntervalEntries) {
  BlockBuilder builder(16);
  for (int i = 0; i < 40; ++i) {
    builder.Add("key" + std::to_string(100 + i), "v");
  }
  const std::string block(builder.Finish());
  // 40 entries: restarts at 0, 16, 32.
  EXPECT_EQ(DecodeFixed32(block.data() + block.size() - 4), 3u);
  // The second entry shares "key10" with the first; entry 16 nothing.
  EXPECT_EQ(block[3 + 6 + 1], 5);
  const uint32_t restart1 =
      DecodeFixed32(block.data() + block.size() - 4 - 2 * 4);
  EXPECT_EQ(block[restart1], 0);
}

TEST(TableBuilderTest, SnappyOptionCompressesBlocksThatShrinkByAnEighth) {
  TableOptions options;
  options.snappy = true;
  Entries entries;
  for (int i = 0; i < 200; ++i) {
    entries.emplace_back("tensor/" + std::to_string(1000 + i),
                         std::string(50, 'z'));
  }
  const std::string bytes = BuildTable(entries, options);
  const auto index = IndexOf(bytes);
  ASSERT_EQ(index.size(), 1u);
  const BlockHandle data = index[0].second;
  EXPECT_EQ(bytes[data.offset + data.size],
            static_cast<char>(BlockCompression::kSnappy));
  // The empty metaindex (8 bytes) does not shrink and stays uncompressed.
  const Footer footer = FooterOf(bytes);
  EXPECT_EQ(bytes[footer.metaindex.offset + footer.metaindex.size],
            static_cast<char>(BlockCompression::kNone));
  EXPECT_EQ(ReadAll(*OpenTableBytes(bytes).value()).value(), entries);
}

}  // namespace
}  // namespace inflow::internal
