// Copyright 2026 The inflow Authors.
//
// Every byte of small tables damaged in turn (flipped, zeroed) and every
// truncation: the table opens and reads the right entries, or fails with
// DATA_LOSS naming the file and an offset. Never a crash or a read out of
// bounds (this runs under ASan/UBSan).

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/table.h"
#include "table_test_util.h"

namespace inflow::internal {
namespace {

using testing::BuildTable;
using testing::Entries;
using testing::OpenTableBytes;
using testing::ReadAll;

constexpr char kName[] = "/ckpt/model.index";

// Checks one damaged copy; returns true when it read OK.
bool CheckDamaged(const std::string& bytes, const Entries& want,
                  const std::string& what) {
  auto fails_cleanly = [&](const Status& s) {
    EXPECT_TRUE(IsDataLoss(s)) << what << ": " << s;
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(kName)) << what;
    EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr(" offset "))
        << what;
  };
  auto table = OpenTableBytes(bytes, kName);
  if (!table.ok()) {
    fails_cleanly(table.status());
    return false;
  }
  auto all = ReadAll(**table);
  if (!all.ok()) {
    fails_cleanly(all.status());
    return false;
  }
  EXPECT_EQ(*all, want) << what;
  // Seeks agree with the full read, or fail the same way.
  std::unique_ptr<TableIterator> it = (*table)->NewIterator();
  for (const auto& [key, value] : want) {
    it->Seek(key);
    if (!it->status().ok()) {
      fails_cleanly(it->status());
      return false;
    }
    EXPECT_TRUE(it->Valid() && it->key() == key && it->value() == value)
        << what << " seeking " << key;
  }
  return true;
}

void CheckEveryDamage(const Entries& entries, TableOptions options) {
  const std::string original = BuildTable(entries, options);
  ASSERT_FALSE(original.empty());
  int read_ok = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    for (const bool flip : {true, false}) {
      std::string bytes = original;
      const char before = bytes[i];
      bytes[i] = flip ? static_cast<char>(before ^ 0xff) : '\0';
      if (bytes[i] == before) continue;
      read_ok += CheckDamaged(
          bytes, entries,
          (flip ? "byte flipped at " : "byte zeroed at ") + std::to_string(i));
    }
  }
  for (size_t n = 0; n < original.size(); ++n) {
    read_ok += CheckDamaged(original.substr(0, n), entries,
                            "cut to " + std::to_string(n) + " bytes");
  }
  // Exactly the flips of the footer's zero padding read OK (TF and
  // LevelDB ignore it too).
  std::string handles;
  testing::FooterOf(original).metaindex.EncodeTo(&handles);
  testing::FooterOf(original).index.EncodeTo(&handles);
  EXPECT_EQ(read_ok, static_cast<int>(40 - handles.size()));
}

Entries SmallEntries() {
  return {{"", "header"},
          {"dense/bias", "0123"},
          {"dense/kernel", std::string(40, 'k')},
          {"global_step", ""},
          {std::string("w\x00\xff", 3), "x"}};
}

TEST(TableCorruptionTest, EveryDamagedByteOfAnUncompressedTable) {
  TableOptions options;
  options.block_size = 32;  // three data blocks
  options.restart_interval = 2;
  CheckEveryDamage(SmallEntries(), options);
}

TEST(TableCorruptionTest, EveryDamagedByteOfASnappyTable) {
  TableOptions options;
  options.snappy = true;
  Entries entries = SmallEntries();
  entries[2].second = std::string(200, 'k');  // compresses
  CheckEveryDamage(entries, options);
}

}  // namespace
}  // namespace inflow::internal
