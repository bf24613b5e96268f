// Copyright 2026 The inflow Authors.

#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/table.h"
#include "table_test_util.h"

namespace inflow::internal {
namespace {

using testing::BuildTable;
using testing::Entries;
using testing::IndexOf;
using testing::OpenTableBytes;
using testing::ReadAll;

// Sorted, unique keys of every shape the format must carry: long shared
// prefixes, bytes 0x00 and 0xff, the empty key; values empty, short and
// larger than a block.
Entries VariedEntries(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::map<std::string, std::string> m;
  m[""] = "header";
  const std::string prefix(300, 'p');
  for (int i = 0; i < n; ++i) {
    std::string key;
    switch (i % 4) {
      case 0:
        key = "dense/layer_" + std::to_string(i) + "/kernel";
        break;
      case 1:
        key = prefix + std::to_string(rng());
        break;
      case 2:
        key = std::string("\x00\xff", 2) + std::to_string(i) +
              std::string(1, '\0');
        break;
      default:
        key = std::string(1 + i % 5, '\xff') + std::to_string(i);
    }
    std::string value;
    switch (i % 5) {
      case 0:
        break;  // empty
      case 1:
        value = std::string(3000 + rng() % 3000, static_cast<char>(i));
        break;
      default:
        value = "v" + std::to_string(rng());
    }
    m[key] = value;
  }
  return Entries(m.begin(), m.end());
}

TEST(TableReaderTest, RoundTripKeepsEveryKeyAndValueAcrossManyBlocks) {
  for (const bool snappy : {false, true}) {
    TableOptions options;
    options.block_size = 1024;
    options.snappy = snappy;
    const Entries entries = VariedEntries(500, 7);
    const std::string bytes = BuildTable(entries, options);
    ASSERT_GT(IndexOf(bytes).size(), 50u);
    auto table = OpenTableBytes(bytes);
    ASSERT_TRUE(table.ok()) << table.status();
    auto all = ReadAll(**table);
    ASSERT_TRUE(all.ok()) << all.status();
    EXPECT_EQ(*all, entries) << "snappy " << snappy;
  }
}

TEST(TableReaderTest, RestartIntervalOfOneAndOfManyReadTheSame) {
  const Entries entries = VariedEntries(200, 3);
  for (int interval : {1, 2, 16, 1000}) {
    TableOptions options;
    options.block_size = 4096;
    options.restart_interval = interval;
    auto table = OpenTableBytes(BuildTable(entries, options)).value();
    EXPECT_EQ(ReadAll(*table).value(), entries) << interval;
  }
}

TEST(TableReaderTest, SeekFindsTheFirstKeyAtOrAfterTheTarget) {
  TableOptions options;
  options.block_size = 512;
  const Entries entries = VariedEntries(300, 11);
  auto table = OpenTableBytes(BuildTable(entries, options)).value();
  std::unique_ptr<TableIterator> it = table->NewIterator();
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, value] = entries[i];
    it->Seek(key);
    ASSERT_TRUE(it->Valid()) << i;
    EXPECT_EQ(it->key(), key);
    EXPECT_EQ(it->value(), value);
    // Just after the key: the next entry, or the end.
    it->Seek(key + std::string(1, '\0'));
    if (i + 1 < entries.size()) {
      ASSERT_TRUE(it->Valid()) << i;
      EXPECT_EQ(it->key(), entries[i + 1].first);
      it->Next();
      EXPECT_EQ(it->Valid(), i + 2 < entries.size());
    } else {
      EXPECT_FALSE(it->Valid());
      EXPECT_TRUE(it->status().ok());
    }
  }
  // Past the last key: the end, no error.
  it->Seek(std::string(10, '\xff'));
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok()) << it->status();
}

TEST(TableReaderTest, IteratorKeepsWorkingAfterTheTableIsDestroyed) {
  const Entries entries = VariedEntries(50, 5);
  auto table = OpenTableBytes(BuildTable(entries)).value();
  std::unique_ptr<TableIterator> it = table->NewIterator();
  table.reset();
  it->SeekToFirst();
  size_t n = 0;
  for (; it->Valid(); it->Next()) ++n;
  EXPECT_EQ(n, entries.size());
}

TEST(TableReaderTest, IteratorsOnSeveralThreadsReadTheSameEntries) {
  TableOptions options;
  options.block_size = 256;
  const Entries entries = VariedEntries(200, 9);
  auto table = OpenTableBytes(BuildTable(entries, options)).value();
  std::vector<Result<Entries>> results(4, Entries{});
  {
    std::vector<std::jthread> threads;
    for (auto& result : results) {
      threads.emplace_back([&] { result = ReadAll(*table); });
    }
  }
  for (const auto& result : results) EXPECT_EQ(result.value(), entries);
}

TEST(TableReaderTest, NameIsTheFileName) {
  auto table = OpenTableBytes(BuildTable({{"a", "b"}}), "/dir/m.index");
  EXPECT_EQ(table.value()->name(), "/dir/m.index");
}

}  // namespace
}  // namespace inflow::internal
