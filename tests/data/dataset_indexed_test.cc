// Copyright 2026 The inflow Authors.
//
// TFRecord read by record number (TFRecordOptions::index, shuffle_records):
// the same records as a sequential read; a shard reads only its own
// records; shuffle_records is a seeded permutation of every record, new
// each pass; a restore at any position gives exactly the rest; the
// options that cannot go with it are refused.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/data/dataset.h"
#include "inflow/io/env.h"
#include "inflow/io/record_index.h"
#include "inflow/io/record_writer.h"

namespace inflow::data {
namespace {

// Files of 7, 0, 12 and 5 records "f<file>r<record>".
std::vector<std::string> Files(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> names;
  const int sizes[] = {7, 0, 12, 5};
  for (int f = 0; f < 4; ++f) {
    names.push_back(dir + "/part-" + std::to_string(f) + ".tfrecord");
    auto w = RecordWriter::Create(Env::Default(), names.back());
    EXPECT_TRUE(w.ok()) << w.status();
    for (int i = 0; i < sizes[f]; ++i) {
      const std::string r = "f" + std::to_string(f) + "r" + std::to_string(i);
      EXPECT_TRUE((*w)->WriteRecord(r).ok());
    }
    EXPECT_TRUE((*w)->Close().ok());
  }
  return names;
}

// Every element's string, and the error that ended it (OK: the end).
std::vector<std::string> Strings(const Dataset& d, Status* error = nullptr) {
  std::vector<std::string> out;
  Result<Iterator> it = d.MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  for (;;) {
    Result<Tuple> e = it->Next();
    if (!e.ok()) {
      if (error != nullptr) {
        *error = IsOutOfRange(e.status()) ? OkStatus() : e.status();
      } else {
        EXPECT_TRUE(IsOutOfRange(e.status())) << e.status();
      }
      return out;
    }
    out.push_back((*e)[0].flat<std::string>()[0]);
  }
}

TFRecordOptions Indexed() {
  TFRecordOptions o;
  o.index = RecordIndexMode::kInMemory;
  return o;
}

TEST(DatasetIndexedTest, IndexedReadsGiveTheSequentialRecordsAndCount) {
  const std::vector<std::string> files = Files("indexed_same");
  const std::vector<std::string> want = Strings(Dataset::TFRecord(files));
  ASSERT_EQ(want.size(), 24u);
  const Dataset indexed = Dataset::TFRecord(files, Indexed());
  EXPECT_EQ(Strings(indexed), want);
  EXPECT_EQ(indexed.Cardinality(), 24);
  // Through the string path (shuffle and batch over records) too.
  EXPECT_EQ(Strings(indexed.Shuffle(5, 3)),
            Strings(Dataset::TFRecord(files).Shuffle(5, 3)));
}

TEST(DatasetIndexedTest, AShardReadsOnlyItsOwnRecords) {
  const std::vector<std::string> files = Files("indexed_shard");
  for (int n = 1; n <= 6; ++n) {
    for (int i = 0; i < n; ++i) {
      const Dataset direct = Dataset::TFRecord(files, Indexed()).Shard(n, i);
      EXPECT_EQ(Strings(direct), Strings(Dataset::TFRecord(files).Shard(n, i)))
          << n << " " << i;
      EXPECT_EQ(direct.Cardinality(), (24 - i + n - 1) / n);
      // A shard of a shard: the composition.
      EXPECT_EQ(Strings(direct.Shard(2, 1)),
                Strings(Dataset::TFRecord(files).Shard(n, i).Shard(2, 1)));
    }
  }
  // Record 3 of part-2 (global record 10) damaged after the indexes were
  // written, as bit rot would (the modification time kept, so the index
  // stays fresh): the shard of 2 that does not hold it never reads it; a
  // sequential shard reads every record.
  for (const std::string& f : files) {
    ASSERT_TRUE(WriteRecordIndex(Env::Default(), f).ok());
  }
  {
    const auto mtime = std::filesystem::last_write_time(files[2]);
    std::FILE* f = std::fopen(files[2].c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 3 * (12 + 4 + 4) + 12 + 1, SEEK_SET);
    std::fputc('X', f);
    std::fclose(f);
    std::filesystem::last_write_time(files[2], mtime);
  }
  TFRecordOptions o;
  o.index = RecordIndexMode::kRequire;
  Status error;
  EXPECT_EQ(Strings(Dataset::TFRecord(files, o).Shard(2, 1), &error).size(),
            12u);
  EXPECT_TRUE(error.ok()) << error;
  Strings(Dataset::TFRecord(files).Shard(2, 1), &error);
  EXPECT_TRUE(IsDataLoss(error)) << error;
  std::vector<std::string> got =
      Strings(Dataset::TFRecord(files, o).Shard(2, 0), &error);
  EXPECT_TRUE(IsDataLoss(error)) << error;
  EXPECT_NE(error.message().find(files[2]), std::string::npos) << error;
  EXPECT_NE(error.message().find("offset 60"), std::string::npos) << error;
  EXPECT_EQ(got.size(), 5u);  // records 0, 2, ..., 8 before it
}

TEST(DatasetIndexedTest, ShuffleRecordsIsASeededPermutationNewEachPass) {
  const std::vector<std::string> files = Files("indexed_shuffle");
  std::vector<std::string> sorted = Strings(Dataset::TFRecord(files));
  std::sort(sorted.begin(), sorted.end());
  TFRecordOptions o;
  o.shuffle_records = true;
  o.seed = 42;
  const std::vector<std::string> two =
      Strings(Dataset::TFRecord(files, o).Repeat(2));
  ASSERT_EQ(two.size(), 48u);
  std::vector<std::string> first(two.begin(), two.begin() + 24);
  std::vector<std::string> second(two.begin() + 24, two.end());
  EXPECT_NE(first, second);  // reshuffled
  EXPECT_NE(first, Strings(Dataset::TFRecord(files)));
  for (auto* pass : {&first, &second}) {
    std::vector<std::string> s = *pass;
    std::sort(s.begin(), s.end());
    EXPECT_EQ(s, sorted);  // every record once
  }
  EXPECT_EQ(Strings(Dataset::TFRecord(files, o).Repeat(2)), two);
  o.reshuffle_each_iteration = false;
  const std::vector<std::string> fixed =
      Strings(Dataset::TFRecord(files, o).Repeat(2));
  EXPECT_EQ(std::vector(fixed.begin(), fixed.begin() + 24),
            std::vector(fixed.begin() + 24, fixed.end()));
  o.seed = 43;
  EXPECT_NE(Strings(Dataset::TFRecord(files, o)), first);
  // The shards of a shuffled source split one permutation.
  o.seed = 42;
  std::set<std::string> shards;
  for (int i = 0; i < 3; ++i) {
    for (const std::string& r :
         Strings(Dataset::TFRecord(files, o).Shard(3, i))) {
      EXPECT_TRUE(shards.insert(r).second) << r;
    }
  }
  EXPECT_EQ(shards.size(), 24u);
}

TEST(DatasetIndexedTest, ARestoreAtAnyPositionGivesTheRest) {
  const std::vector<std::string> files = Files("indexed_restore");
  TFRecordOptions o;
  o.shuffle_records = true;
  o.seed = 7;
  const Dataset d = Dataset::TFRecord(files, o).Shard(2, 1).Repeat(3);
  const std::vector<std::string> want = Strings(d);
  ASSERT_EQ(want.size(), 36u);
  for (size_t at = 0; at <= want.size(); ++at) {
    Result<Iterator> it = d.MakeIterator();
    ASSERT_TRUE(it.ok());
    for (size_t k = 0; k < at; ++k) ASSERT_TRUE(it->Next().ok());
    Result<std::string> state = it->Save();
    ASSERT_TRUE(state.ok());
    EXPECT_LT(state->size(), 64u);
    Result<Iterator> restored =
        Dataset::TFRecord(files, o).Shard(2, 1).Repeat(3).MakeIterator();
    ASSERT_TRUE(restored.ok());
    ASSERT_TRUE(restored->Restore(*state).ok());
    std::vector<std::string> rest;
    for (;;) {
      Result<Tuple> e = restored->Next();
      if (!e.ok()) {
        ASSERT_TRUE(IsOutOfRange(e.status())) << e.status();
        break;
      }
      rest.push_back((*e)[0].flat<std::string>()[0]);
    }
    EXPECT_EQ(rest, std::vector(want.begin() + at, want.end())) << at;
  }
}

TEST(DatasetIndexedTest, OptionsThatCannotGoWithIndexedReadsAreRefused) {
  const std::vector<std::string> files = Files("indexed_refused");
  TFRecordOptions o = Indexed();
  o.compression = CompressionType::kGzip;
  Status s = Dataset::TFRecord(files, o).status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("plain files only"), std::string::npos) << s;
  o = Indexed();
  o.num_parallel_reads = 2;
  EXPECT_TRUE(IsInvalidArgument(Dataset::TFRecord(files, o).status()));
  // A missing file: NOT_FOUND once, then the end.
  Status error;
  EXPECT_TRUE(
      Strings(Dataset::TFRecord({files[0], files[0] + ".none"}, Indexed()),
              &error)
          .empty());
  EXPECT_TRUE(IsNotFound(error)) << error;
  EXPECT_EQ(Dataset::TFRecord({files[0] + ".none"}, Indexed()).Cardinality(),
            kUnknown);
  // kRequire without FILE.index: NOT_FOUND; with it, the records.
  o = Indexed();
  o.index = RecordIndexMode::kRequire;
  Strings(Dataset::TFRecord(files, o), &error);
  EXPECT_TRUE(IsNotFound(error)) << error;
  for (const std::string& f : files) {
    ASSERT_TRUE(WriteRecordIndex(Env::Default(), f).ok());
  }
  EXPECT_EQ(Strings(Dataset::TFRecord(files, o)),
            Strings(Dataset::TFRecord(files)));
}

}  // namespace
}  // namespace inflow::data
