// Copyright 2026 The inflow Authors.
//
// Dataset::Cache: the input is read by the first complete pass only; a
// pass that stops early keeps nothing; a cache file serves other Datasets
// (and processes) and is never left half written; a damaged one is an
// error naming the file and offset; checkpoints restore in both modes,
// also where the cache is gone.

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/data/dataset.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"

#include "dataset_test_util.h"

namespace inflow::data {
namespace {

using testing::All;
using testing::Drain;
using testing::Scalars;

// Range(n) through a map that counts its calls in *calls.
Dataset Counted(int64_t n, std::atomic<int>* calls) {
  return Dataset::Range(n).Map([calls](Tuple e) -> Result<Tuple> {
    calls->fetch_add(1);
    return e;
  });
}

std::vector<std::vector<int64_t>> Repeated(int64_t n, int times) {
  std::vector<std::vector<int64_t>> out;
  for (int t = 0; t < times; ++t) {
    for (int64_t i = 0; i < n; ++i) out.push_back({i});
  }
  return out;
}

// The names in `dir`, sorted.
std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string FreshDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(DatasetCacheTest, MemoryCacheReadsTheInputOnceForEveryEpochAndIterator) {
  std::atomic<int> calls{0};
  const Dataset cached = Counted(10, &calls).Cache();
  EXPECT_EQ(cached.Cardinality(), 10);
  EXPECT_NE(cached.DebugString().find("cache"), std::string::npos);
  EXPECT_EQ(All(cached.Repeat(3)), Repeated(10, 3));
  EXPECT_EQ(calls.load(), 10);
  EXPECT_EQ(All(cached), Repeated(10, 1));  // a new iterator: the cache
  EXPECT_EQ(calls.load(), 10);
  // Another Dataset over the same input has a cache of its own.
  EXPECT_EQ(All(Counted(10, &calls).Cache()), Repeated(10, 1));
  EXPECT_EQ(calls.load(), 20);
}

TEST(DatasetCacheTest, APassThatStopsEarlyKeepsNothing) {
  std::atomic<int> calls{0};
  const Dataset cached = Counted(10, &calls).Cache();
  {
    Result<Iterator> it = cached.MakeIterator();
    ASSERT_TRUE(it.ok());
    EXPECT_EQ(Drain(*it, 4), Scalars({0, 1, 2, 3}));
  }
  EXPECT_EQ(calls.load(), 4);
  EXPECT_EQ(All(cached), Repeated(10, 1));  // read from the input again
  EXPECT_EQ(calls.load(), 14);
  EXPECT_EQ(All(cached), Repeated(10, 1));
  EXPECT_EQ(calls.load(), 14);
}

TEST(DatasetCacheTest, AnEmptyInputIsCachedEmpty) {
  std::atomic<int> calls{0};
  const Dataset cached = Counted(0, &calls).Cache();
  EXPECT_TRUE(All(cached.Repeat(3)).empty());
  const std::string dir = FreshDir("cache_empty");
  EXPECT_TRUE(All(Counted(0, &calls).Cache(dir + "/c")).empty());
  EXPECT_EQ(Listing(dir), std::vector<std::string>{"c"});
  EXPECT_TRUE(All(Counted(0, &calls).Cache(dir + "/c")).empty());
}

TEST(DatasetCacheTest, AFileCacheServesAnotherDatasetWithoutItsInput) {
  const std::string dir = FreshDir("cache_file");
  const std::string path = dir + "/cache";
  std::atomic<int> calls{0};
  // Strings and a float matrix: each dtype's bytes go through the file.
  auto element = [&calls](Tuple e) -> Result<Tuple> {
    calls.fetch_add(1);
    const int64_t i = e[0].flat<int64_t>()[0];
    Tensor m(DType::kFloat32, TensorShape({2, 3}));
    std::span<float> f = m.mutable_flat<float>().value();
    for (int k = 0; k < 6; ++k) f[k] = static_cast<float>(i) + k / 8.0f;
    return Tuple{e[0], Tensor::Scalar(std::string(i, 'x')), m};
  };
  const Dataset first = Dataset::Range(20).Map(element).Cache(path);
  {
    // A pass that stops early leaves neither the file nor its temporary.
    Result<Iterator> it = first.MakeIterator();
    ASSERT_TRUE(it.ok());
    ASSERT_TRUE(it->Next().ok());
    EXPECT_EQ(Listing(dir).size(), 1u);  // the temporary, being written
  }
  EXPECT_TRUE(Listing(dir).empty());
  Result<Iterator> it = first.MakeIterator();
  ASSERT_TRUE(it.ok());
  std::vector<Tuple> want;
  for (;;) {
    Result<Tuple> e = it->Next();
    if (IsOutOfRange(e.status())) break;
    ASSERT_TRUE(e.ok()) << e.status();
    want.push_back(*e);
  }
  ASSERT_EQ(want.size(), 20u);
  EXPECT_EQ(Listing(dir), std::vector<std::string>{"cache"});
  EXPECT_EQ(calls.load(), 21);

  std::atomic<int> other_calls{0};
  const Dataset second = Dataset::Range(20)
                             .Map([&other_calls](Tuple e) -> Result<Tuple> {
                               other_calls.fetch_add(1);
                               return e;
                             })
                             .Cache(path);
  Result<Iterator> again = second.MakeIterator();
  ASSERT_TRUE(again.ok());
  for (const Tuple& w : want) {
    Result<Tuple> e = again->Next();
    ASSERT_TRUE(e.ok()) << e.status();
    ASSERT_EQ(e->size(), 3u);
    for (size_t c = 0; c < 3; ++c) EXPECT_EQ((*e)[c], w[c]);
  }
  EXPECT_TRUE(IsOutOfRange(again->Next().status()));
  EXPECT_EQ(other_calls.load(), 0);
}

TEST(DatasetCacheTest, ADamagedCacheFileNamesTheFileAndOffset) {
  const std::string dir = FreshDir("cache_damaged");
  const std::string path = dir + "/cache";
  ASSERT_TRUE(All(Dataset::Range(5).Cache(path)).size() == 5);
  // A record that is no element, after two good ones.
  {
    Result<std::unique_ptr<RecordWriter>> w =
        RecordWriter::Create(Env::Default(), path);
    ASSERT_TRUE(w.ok());
    // The same bytes a cache file holds for Range's elements 0 and 1: one
    // component, int64, rank 0, 8 bytes.
    for (int64_t v = 0; v < 2; ++v) {
      std::string rec = {1, 9, 0};
      rec.append(reinterpret_cast<const char*>(&v), 8);
      ASSERT_TRUE((*w)->WriteRecord(rec).ok());
    }
    ASSERT_TRUE((*w)->WriteRecord(std::string("\x01\x09\x00\x01", 4)).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  Result<Iterator> it = Dataset::Range(5).Cache(path).MakeIterator();
  ASSERT_TRUE(it.ok());
  EXPECT_EQ(Drain(*it, 2), Scalars({0, 1}));
  Status s = it->Next().status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("cache (stage 1)"), std::string::npos) << s;
  EXPECT_NE(s.message().find(path), std::string::npos) << s;
  EXPECT_NE(s.message().find("byte offset 54"), std::string::npos) << s;
  EXPECT_TRUE(IsOutOfRange(it->Next().status()));
  // A flipped byte: the record reader's checksum names it.
  {
    std::FILE* f = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 12 + 2, SEEK_SET);
    std::fputc('X', f);
    std::fclose(f);
  }
  Result<Iterator> flipped = Dataset::Range(5).Cache(path).MakeIterator();
  ASSERT_TRUE(flipped.ok());
  s = flipped->Next().status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(path), std::string::npos) << s;
}

// Saved at every position of cache().repeat(3), in the filling pass and
// the reading ones, and restored into an iterator of a new Dataset (whose
// memory cache is empty; a file cache that was deleted, present, or
// partly written by another iterator).
TEST(DatasetCacheTest, CheckpointsRestoreInEveryModeAndWhereTheCacheIsGone) {
  const std::string dir = FreshDir("cache_checkpoint");
  const std::string path = dir + "/cache";
  const auto want = Repeated(12, 3);
  for (const bool file : {false, true}) {
    auto make = [&](std::atomic<int>* calls) {
      return Counted(12, calls).Cache(file ? path : "").Repeat(3);
    };
    for (size_t at = 0; at <= want.size(); ++at) {
      SCOPED_TRACE((file ? "file, saved after " : "memory, saved after ") +
                   std::to_string(at));
      std::filesystem::remove(path);
      std::atomic<int> calls{0};
      Result<Iterator> first = make(&calls).MakeIterator();
      ASSERT_TRUE(first.ok());
      EXPECT_EQ(Drain(*first, at),
                std::vector(want.begin(), want.begin() + at));
      Result<std::string> state = first->Save();
      ASSERT_TRUE(state.ok()) << state.status();
      EXPECT_LT(state->size(), 64u);
      if (at % 2 == 1) std::filesystem::remove(path);  // the cache is gone
      std::atomic<int> restored_calls{0};
      Result<Iterator> second = make(&restored_calls).MakeIterator();
      ASSERT_TRUE(second.ok());
      Status s = second->Restore(*state);
      ASSERT_TRUE(s.ok()) << s;
      EXPECT_EQ(Drain(*second), std::vector(want.begin() + at, want.end()));
      // The input is read by one pass at most (less where a file serves).
      EXPECT_LE(restored_calls.load(), 12);
      EXPECT_EQ(Drain(*first), std::vector(want.begin() + at, want.end()));
    }
  }
}

}  // namespace
}  // namespace inflow::data
