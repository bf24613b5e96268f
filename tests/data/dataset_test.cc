// Copyright 2026 The inflow Authors.
//
// Each Dataset stage: its elements, their order, its cardinality, empty
// input, remainders, bad arguments, errors naming the stage and element.

#include "inflow/data/dataset.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/record_writer.h"

#include "dataset_test_util.h"
#include "io/zlib_source.h"

namespace inflow::data {
namespace {

using testing::All;
using testing::Scalars;
using testing::Values;

MapFn Times(int64_t k) {
  return [k](Tuple e) -> Result<Tuple> {
    return Tuple{Tensor::Scalar<int64_t>(e[0].flat<int64_t>()[0] * k)};
  };
}

TEST(DatasetTest, RangeCountsAndHasACardinality) {
  EXPECT_EQ(All(Dataset::Range(5)), Scalars({0, 1, 2, 3, 4}));
  EXPECT_EQ(All(Dataset::Range(2, 9, 3)), Scalars({2, 5, 8}));
  EXPECT_EQ(All(Dataset::Range(5, 0, -2)), Scalars({5, 3, 1}));
  EXPECT_EQ(All(Dataset::Range(3, 3)), Scalars({}));
  EXPECT_EQ(Dataset::Range(2, 9, 3).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(5, 0, -2).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(9, 2).Cardinality(), 0);
  EXPECT_TRUE(IsInvalidArgument(Dataset::Range(0, 5, 0).status()));
}

TEST(DatasetTest, FromTensorSlicesGivesRows) {
  Dataset d =
      Dataset::FromTensorSlices({Tensor::FromVector<int64_t>({1, 2, 3}),
                                 Tensor::FromVector<int64_t>({10, 20, 30})});
  EXPECT_EQ(All(d),
            (std::vector<std::vector<int64_t>>{{1, 10}, {2, 20}, {3, 30}}));
  EXPECT_EQ(d.Cardinality(), 3);
  Dataset bad = Dataset::FromTensorSlices(
      {Tensor::FromVector<int64_t>({1, 2}), Tensor::FromVector<int64_t>({1})});
  EXPECT_TRUE(IsInvalidArgument(bad.status()));
  EXPECT_NE(bad.status().message().find("from_tensor_slices (stage 0)"),
            std::string::npos)
      << bad.status();
  EXPECT_TRUE(IsInvalidArgument(bad.MakeIterator().status()));
}

TEST(DatasetTest, MapFilterTakeSkip) {
  EXPECT_EQ(All(Dataset::Range(4).Map(Times(10))), Scalars({0, 10, 20, 30}));
  Dataset even = Dataset::Range(10).Filter([](const Tuple& e) -> Result<bool> {
    return e[0].flat<int64_t>()[0] % 2 == 0;
  });
  EXPECT_EQ(All(even), Scalars({0, 2, 4, 6, 8}));
  EXPECT_EQ(even.Cardinality(), kUnknown);
  EXPECT_EQ(All(Dataset::Range(10).Take(3)), Scalars({0, 1, 2}));
  EXPECT_EQ(All(Dataset::Range(10).Skip(7)), Scalars({7, 8, 9}));
  EXPECT_EQ(All(Dataset::Range(3).Take(-1)), Scalars({0, 1, 2}));
  EXPECT_EQ(All(Dataset::Range(3).Skip(-1)), Scalars({}));
  EXPECT_EQ(Dataset::Range(10).Take(3).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(2).Take(3).Cardinality(), 2);
  EXPECT_EQ(Dataset::Range(10).Skip(7).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(10).Skip(70).Cardinality(), 0);
  EXPECT_EQ(Dataset::Range(10).Repeat().Take(4).Cardinality(), 4);
}

TEST(DatasetTest, BatchStacksWithAShortLastBatchUnlessDropped) {
  EXPECT_EQ(All(Dataset::Range(7).Batch(3)),
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(All(Dataset::Range(7).Batch(3, true)),
            (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(Dataset::Range(7).Batch(3).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(7).Batch(3, true).Cardinality(), 2);
  EXPECT_EQ(All(Dataset::Range(0).Batch(3)).size(), 0u);
  Result<Iterator> it = Dataset::Range(4).Batch(2).MakeIterator();
  ASSERT_TRUE(it.ok());
  Result<Tuple> first = it->Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)[0].shape(), TensorShape({2}));
  EXPECT_TRUE(IsInvalidArgument(Dataset::Range(4).Batch(0).status()));
  // Elements of different shapes: the stage and the batch named.
  Dataset ragged = Dataset::Range(4).Map([](Tuple e) -> Result<Tuple> {
    const int64_t n = e[0].flat<int64_t>()[0];
    return Tuple{
        Tensor::FromVector<int64_t>(std::vector<int64_t>(n % 2 + 1, n))};
  });
  Result<Iterator> r = ragged.Batch(2).MakeIterator();
  ASSERT_TRUE(r.ok());
  Status s = r->Next().status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("batch (stage 2), element 0"), std::string::npos)
      << s;
  // Elements with different numbers of components: every way of batching
  // names the stage, the batch and the element, and goes on after it.
  Dataset uneven = Dataset::Range(4).Map([](Tuple e) -> Result<Tuple> {
    if (e[0].flat<int64_t>()[0] == 1) e.push_back(e[0]);
    return e;
  });
  struct Way {
    Dataset batched;
    std::string stage;
  };
  for (const Way& way :
       {Way{uneven.Batch(2), "batch (stage 2), element 0"},
        Way{uneven.Batch(2, false, 2), "batch_gather (stage 2), element 0"},
        Way{uneven.RaggedBatch(2), "ragged_batch (stage 2), element 0"}}) {
    Result<Iterator> it = way.batched.MakeIterator();
    ASSERT_TRUE(it.ok());
    s = it->Next().status();
    EXPECT_TRUE(IsInvalidArgument(s)) << s;
    EXPECT_NE(s.message().find(way.stage), std::string::npos) << s;
    EXPECT_NE(s.message().find("element 1 of the batch has 2 components, "
                               "element 0 1"),
              std::string::npos)
        << s;
    EXPECT_TRUE(it->Next().ok()) << way.stage;  // the next batch
  }
}

TEST(DatasetTest, RepeatShardEnumerateZipConcatenate) {
  EXPECT_EQ(All(Dataset::Range(3).Repeat(2)), Scalars({0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(Dataset::Range(3).Repeat(2).Cardinality(), 6);
  EXPECT_EQ(Dataset::Range(3).Repeat().Cardinality(), kInfinite);
  EXPECT_EQ(All(Dataset::Range(3).Repeat(), 7), Scalars({0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(All(Dataset::Range(0).Repeat()).size(), 0u);  // ends, as tf.data
  EXPECT_EQ(Dataset::Range(0).Repeat().Cardinality(), 0);
  // Shards that do not divide evenly.
  EXPECT_EQ(All(Dataset::Range(10).Shard(3, 0)), Scalars({0, 3, 6, 9}));
  EXPECT_EQ(All(Dataset::Range(10).Shard(3, 2)), Scalars({2, 5, 8}));
  EXPECT_EQ(Dataset::Range(10).Shard(3, 0).Cardinality(), 4);
  EXPECT_EQ(Dataset::Range(10).Shard(3, 2).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(2).Shard(3, 2).Cardinality(), 0);
  EXPECT_TRUE(IsInvalidArgument(Dataset::Range(3).Shard(2, 2).status()));
  EXPECT_TRUE(IsInvalidArgument(Dataset::Range(3).Shard(0, 0).status()));
  EXPECT_EQ(All(Dataset::Range(3).Map(Times(5)).Enumerate(10)),
            (std::vector<std::vector<int64_t>>{{10, 0}, {11, 5}, {12, 10}}));
  Dataset zipped = Dataset::Zip({Dataset::Range(5), Dataset::Range(10, 13)});
  EXPECT_EQ(All(zipped),
            (std::vector<std::vector<int64_t>>{{0, 10}, {1, 11}, {2, 12}}));
  EXPECT_EQ(zipped.Cardinality(), 3);
  Dataset both = Dataset::Range(2).Concatenate(Dataset::Range(5, 7));
  EXPECT_EQ(All(both), Scalars({0, 1, 5, 6}));
  EXPECT_EQ(both.Cardinality(), 4);
  EXPECT_EQ(
      Dataset::Range(2).Repeat().Concatenate(Dataset::Range(1)).Cardinality(),
      kInfinite);
}

Result<Dataset> RangeOfItself(Tuple e) {
  const int64_t x = e[0].flat<int64_t>()[0];
  return Dataset::Range(x * 10, x * 10 + x);
}

TEST(DatasetTest, FlatMapInterleaveUnbatchPaddedBatch) {
  EXPECT_EQ(All(Dataset::Range(1, 4).FlatMap(RangeOfItself)),
            Scalars({10, 20, 21, 30, 31, 32}));
  // tf.data's order: an exhausted input's place is refilled when the cycle
  // comes back to it.
  EXPECT_EQ(All(Dataset::Range(1, 4).Interleave(
                RangeOfItself, {.cycle_length = 2, .block_length = 1})),
            Scalars({10, 20, 21, 30, 31, 32}));
  EXPECT_EQ(All(Dataset::Range(1, 5).Interleave(
                RangeOfItself, {.cycle_length = 3, .block_length = 2})),
            Scalars({10, 20, 21, 30, 31, 40, 41, 32, 42, 43}));
  EXPECT_EQ(All(Dataset::Range(7).Batch(3).Unbatch()),
            Scalars({0, 1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(
      IsInvalidArgument(Dataset::Range(3)
                            .Interleave(RangeOfItself, {.block_length = 0})
                            .status()));
  // Rows of lengths 1, 2, 3 padded to 3 with -1; then to a fixed 4.
  Dataset rows = Dataset::Range(1, 4).Map([](Tuple e) -> Result<Tuple> {
    const int64_t n = e[0].flat<int64_t>()[0];
    return Tuple{Tensor::FromVector<int64_t>(std::vector<int64_t>(n, n))};
  });
  Result<Iterator> it =
      rows.PaddedBatch(3, {.padding_values = {Tensor::Scalar<int64_t>(-1)}})
          .MakeIterator();
  ASSERT_TRUE(it.ok());
  Result<Tuple> b = it->Next();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0], *Tensor::FromVector<int64_t>(
                         {1, -1, -1, 2, 2, -1, 3, 3, 3}, TensorShape({3, 3})));
  Result<Iterator> fixed =
      rows.PaddedBatch(2, {.padded_shapes = {{4}}}).MakeIterator();
  ASSERT_TRUE(fixed.ok());
  b = fixed->Next();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0], *Tensor::FromVector<int64_t>({1, 0, 0, 0, 2, 2, 0, 0},
                                                  TensorShape({2, 4})));
  Result<Iterator> small =
      rows.PaddedBatch(3, {.padded_shapes = {{2}}}).MakeIterator();
  ASSERT_TRUE(small.ok());
  Status s = small->Next().status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("padded_batch (stage 2), element 0"),
            std::string::npos)
      << s;
  // An empty row first (lengths 0, 1, 2): the others' values still come.
  Dataset from_empty = Dataset::Range(3).Map([](Tuple e) -> Result<Tuple> {
    const int64_t n = e[0].flat<int64_t>()[0];
    return Tuple{Tensor::FromVector<int64_t>(std::vector<int64_t>(n, n + 1))};
  });
  Result<Iterator> empty_first = from_empty.PaddedBatch(3).MakeIterator();
  ASSERT_TRUE(empty_first.ok());
  b = empty_first->Next();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0], *Tensor::FromVector<int64_t>({0, 0, 2, 0, 3, 3},
                                                  TensorShape({3, 2})));
}

TEST(DatasetTest, FromGeneratorCallsItsFactoryEachPass) {
  int passes = 0;
  Dataset d = Dataset::FromGenerator([&passes]() -> Result<Generator> {
    ++passes;
    auto next = std::make_shared<int64_t>(0);
    return Generator([next]() -> Result<std::optional<Tuple>> {
      if (*next == 3) return std::optional<Tuple>();
      return std::optional<Tuple>(Tuple{Tensor::Scalar<int64_t>((*next)++)});
    });
  });
  EXPECT_EQ(All(d.Repeat(2)), Scalars({0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(passes, 2);
}

TEST(DatasetTest, ShuffleIsAPermutationReproducibleWithASeed) {
  const std::vector<std::vector<int64_t>> a =
      All(Dataset::Range(100).Shuffle(10, 7));
  ASSERT_EQ(a.size(), 100u);
  std::vector<int64_t> sorted;
  for (const auto& e : a) sorted.push_back(e[0]);
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
  EXPECT_EQ(All(Dataset::Range(100).Shuffle(10, 7)), a);
  EXPECT_NE(All(Dataset::Range(100).Shuffle(10, 8)), a);
  EXPECT_NE(a, All(Dataset::Range(100)));
  // A buffer of 10: no element moves earlier by more than 9 places.
  for (size_t k = 0; k < a.size(); ++k) EXPECT_LE(a[k][0], int64_t(k) + 9);
  // Each Repeat epoch in a new order, unless reshuffle_each_iteration is
  // off; either way the same for the same seed.
  const auto two = All(Dataset::Range(20).Shuffle(20, 3).Repeat(2));
  EXPECT_NE(std::vector(two.begin(), two.begin() + 20),
            std::vector(two.begin() + 20, two.end()));
  const auto same = All(Dataset::Range(20).Shuffle(20, 3, false).Repeat(2));
  EXPECT_EQ(std::vector(same.begin(), same.begin() + 20),
            std::vector(same.begin() + 20, same.end()));
  EXPECT_TRUE(IsInvalidArgument(Dataset::Range(3).Shuffle(0).status()));
}

TEST(DatasetTest, ParallelMapGivesTheSameOrderAtEveryParallelism) {
  const auto want = All(Dataset::Range(200).Map(Times(3)));
  for (int p = 1; p <= 8; ++p) {
    SCOPED_TRACE(p);
    EXPECT_EQ(All(Dataset::Range(200).Map(Times(3), {.num_parallel_calls = p})),
              want);
    EXPECT_EQ(All(Dataset::Range(200)
                      .Prefetch(p)
                      .Map(Times(3), {.num_parallel_calls = p})
                      .Prefetch(2)),
              want);
  }
  // Not deterministic: every element once, in some order.
  auto any = All(Dataset::Range(200).Map(
      Times(3), {.num_parallel_calls = 4, .deterministic = false}));
  std::sort(any.begin(), any.end());
  EXPECT_EQ(any, want);
}

TEST(DatasetTest, AMapErrorNamesTheStageAndElementAndTheIteratorGoesOn) {
  Dataset d = Dataset::Range(6).Map(Times(1)).Map(
      [](Tuple e) -> Result<Tuple> {
        if (e[0].flat<int64_t>()[0] == 3) return DataLossError("bad pixel");
        return e;
      },
      {.num_parallel_calls = 3});
  Result<Iterator> it = d.MakeIterator();
  ASSERT_TRUE(it.ok());
  std::vector<int64_t> got;
  for (int k = 0; k < 6; ++k) {
    Result<Tuple> e = it->Next();
    if (k == 3) {
      EXPECT_TRUE(IsDataLoss(e.status())) << e.status();
      EXPECT_EQ(e.status().message(), "map (stage 2), element 3: bad pixel");
      continue;
    }
    ASSERT_TRUE(e.ok()) << e.status();
    got.push_back(Values(*e)[0]);
  }
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2, 4, 5}));
  EXPECT_TRUE(IsOutOfRange(it->Next().status()));
  EXPECT_TRUE(IsOutOfRange(it->Next().status()));
}

// Writes n records "r<i>" to each of `files` files; returns their names.
std::vector<std::string> WriteFiles(const std::string& dir, int files, int n) {
  std::vector<std::string> names;
  for (int f = 0; f < files; ++f) {
    names.push_back(dir + "/part-" + std::to_string(f) + ".tfrecord");
    auto w = RecordWriter::Create(Env::Default(), names.back());
    EXPECT_TRUE(w.ok()) << w.status();
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(
          (*w)->WriteRecord("f" + std::to_string(f) + "r" + std::to_string(i))
              .ok());
    }
    EXPECT_TRUE((*w)->Close().ok());
  }
  return names;
}

std::vector<std::string> Strings(Iterator& it) {
  std::vector<std::string> out;
  for (;;) {
    Result<Tuple> e = it.Next();
    if (!e.ok()) {
      EXPECT_TRUE(IsOutOfRange(e.status())) << e.status();
      return out;
    }
    out.push_back((*e)[0].flat<std::string>()[0]);
  }
}

TEST(DatasetTest, TFRecordReadsTheFilesInOrderAndNamesADamagedRecord) {
  const std::string dir = ::testing::TempDir();
  std::vector<std::string> files = WriteFiles(dir, 2, 3);
  Result<Iterator> it = Dataset::TFRecord(files).MakeIterator();
  ASSERT_TRUE(it.ok());
  EXPECT_EQ(Strings(*it), (std::vector<std::string>{"f0r0", "f0r1", "f0r2",
                                                    "f1r0", "f1r1", "f1r2"}));
  // A flipped byte in the second file's second record.
  {
    std::FILE* f = std::fopen(files[1].c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 12 + 4 + 4 + 12 + 1, SEEK_SET);  // record 1's data
    std::fputc('X', f);
    std::fclose(f);
  }
  Result<Iterator> bad = Dataset::TFRecord(files).MakeIterator();
  ASSERT_TRUE(bad.ok());
  for (int k = 0; k < 4; ++k) ASSERT_TRUE(bad->Next().ok()) << k;
  Status s = bad->Next().status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("tfrecord (stage 0)"), std::string::npos) << s;
  EXPECT_NE(s.message().find(files[1]), std::string::npos) << s;
  EXPECT_NE(s.message().find("offset 20"), std::string::npos) << s;
  EXPECT_TRUE(IsNotFound(Dataset::TFRecord({dir + "/none.tfrecord"})
                             .MakeIterator()
                             .value()
                             .Next()
                             .status()));
}

TEST(DatasetTest, TFRecordNumParallelReadsGivesTFDataOrder) {
  // Files of 3, 5, 1 and 4 records; the orders tf.data's
  // TFRecordDataset(files, num_parallel_reads=N) gives (TF 2.18).
  const std::string dir = ::testing::TempDir() + "/parallel_reads_test";
  std::filesystem::create_directories(dir);
  std::vector<std::string> files;
  const int sizes[] = {3, 5, 1, 4};
  for (int f = 0; f < 4; ++f) {
    files.push_back(dir + "/f" + std::to_string(f) + ".tfrecord");
    auto w = RecordWriter::Create(Env::Default(), files.back());
    ASSERT_TRUE(w.ok());
    for (int i = 0; i < sizes[f]; ++i) {
      ASSERT_TRUE(
          (*w)->WriteRecord("f" + std::to_string(f) + "r" + std::to_string(i))
              .ok());
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto read = [&](int n) {
    Result<Iterator> it =
        Dataset::TFRecord(files, {.num_parallel_reads = n}).MakeIterator();
    EXPECT_TRUE(it.ok()) << it.status();
    return it.ok() ? Strings(*it) : std::vector<std::string>{};
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(read(1), (V{"f0r0", "f0r1", "f0r2", "f1r0", "f1r1", "f1r2", "f1r3",
                        "f1r4", "f2r0", "f3r0", "f3r1", "f3r2", "f3r3"}));
  EXPECT_EQ(read(2), (V{"f0r0", "f1r0", "f0r1", "f1r1", "f0r2", "f1r2", "f1r3",
                        "f2r0", "f1r4", "f3r0", "f3r1", "f3r2", "f3r3"}));
  EXPECT_EQ(read(3), (V{"f0r0", "f1r0", "f2r0", "f0r1", "f1r1", "f0r2", "f1r2",
                        "f3r0", "f1r3", "f3r1", "f1r4", "f3r2", "f3r3"}));
  EXPECT_EQ(read(8), (V{"f0r0", "f1r0", "f2r0", "f3r0", "f0r1", "f1r1", "f3r1",
                        "f0r2", "f1r2", "f3r2", "f1r3", "f3r3", "f1r4"}));
  // Saved in the middle, restored: the rest.
  const Dataset three = Dataset::TFRecord(files, {.num_parallel_reads = 3});
  Result<Iterator> first = three.MakeIterator();
  ASSERT_TRUE(first.ok());
  for (int k = 0; k < 6; ++k) ASSERT_TRUE(first->Next().ok());
  Result<std::string> state = first->Save();
  ASSERT_TRUE(state.ok());
  Result<Iterator> second = three.MakeIterator();
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->Restore(*state).ok());
  EXPECT_EQ(Strings(*second),
            (V{"f1r2", "f3r0", "f1r3", "f3r1", "f1r4", "f3r2", "f3r3"}));
  Status bad = Dataset::TFRecord(files, {.num_parallel_reads = 0})
                   .MakeIterator()
                   .status();
  EXPECT_TRUE(IsInvalidArgument(bad)) << bad;
  EXPECT_NE(bad.message().find("num_parallel_reads 0"), std::string::npos)
      << bad;
}

// Each batch's strings (a scalar element is a batch of one).
std::vector<std::vector<std::string>> Batches(Iterator& it,
                                              int64_t limit = 1 << 20) {
  std::vector<std::vector<std::string>> out;
  for (int64_t k = 0; k < limit; ++k) {
    Result<Tuple> e = it.Next();
    if (IsOutOfRange(e.status())) break;
    EXPECT_TRUE(e.ok()) << e.status();
    if (!e.ok()) break;
    const auto v = (*e)[0].flat<std::string>();
    out.emplace_back(v.begin(), v.end());
  }
  return out;
}

TEST(DatasetTest, RecordsTakeTheStringPathWithTheSameElementsAndStates) {
  // Over TFRecord (and Repeat), Shuffle and Batch move strings instead of
  // Tuples (NextString). An identity map before them hides the records
  // (the Tuple path): both must give the same elements, and states saved
  // on the string path restore there.
  const std::string dir = ::testing::TempDir() + "/records_path_test";
  std::filesystem::create_directories(dir);
  std::vector<std::string> files;
  for (int f = 0; f < 2; ++f) {
    files.push_back(dir + "/part-" + std::to_string(f) + ".tfrecord");
    auto w = RecordWriter::Create(Env::Default(), files.back());
    ASSERT_TRUE(w.ok()) << w.status();
    for (int i = 0; i < 23; ++i) {
      // 5 to 400 bytes: inline strings, and storage of every size.
      std::string r = "f" + std::to_string(f) + "r" + std::to_string(i);
      r.resize(r.size() + static_cast<size_t>((i * 37 + f * 11) % 396), 'x');
      ASSERT_TRUE((*w)->WriteRecord(r).ok());
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  const MapFn identity = [](Tuple e) -> Result<Tuple> { return e; };
  const std::vector<std::function<Dataset(Dataset)>> tails = {
      [](Dataset d) { return d.Repeat(2); },
      [](Dataset d) { return d.Shuffle(7, 3); },
      [](Dataset d) { return d.Repeat(3).Shuffle(9, 4).Batch(5); },
      [](Dataset d) { return d.Shuffle(64, 5).Batch(4, true); },
      [](Dataset d) { return d.Batch(8).Repeat(2); },
  };
  for (size_t t = 0; t < tails.size(); ++t) {
    SCOPED_TRACE("tail " + std::to_string(t));
    const Dataset strings = tails[t](Dataset::TFRecord(files));
    const Dataset tuples = tails[t](Dataset::TFRecord(files).Map(identity));
    Result<Iterator> a = strings.MakeIterator(), b = tuples.MakeIterator();
    ASSERT_TRUE(a.ok() && b.ok());
    const auto want = Batches(*b);
    ASSERT_GT(want.size(), 4u);
    EXPECT_EQ(Batches(*a), want);
    for (size_t at : {size_t{0}, size_t{1}, want.size() / 2, want.size()}) {
      Result<Iterator> first = strings.MakeIterator();
      ASSERT_TRUE(first.ok());
      EXPECT_EQ(Batches(*first, static_cast<int64_t>(at)),
                std::vector(want.begin(), want.begin() + at));
      Result<std::string> state = first->Save();
      ASSERT_TRUE(state.ok()) << state.status();
      Result<Iterator> second = strings.MakeIterator();
      ASSERT_TRUE(second.ok());
      ASSERT_TRUE(second->Restore(*state).ok());
      EXPECT_EQ(Batches(*second), std::vector(want.begin() + at, want.end()))
          << "restored after " << at;
    }
  }
  // A damaged record fails the string path as it fails a plain read.
  {
    std::FILE* f = std::fopen(files[1].c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::fseek(f, 12 + 2, SEEK_SET);  // record 0's data
    std::fputc('#', f);
    std::fclose(f);
  }
  Result<Iterator> bad =
      Dataset::TFRecord(files).Shuffle(4, 1).Batch(3).MakeIterator();
  ASSERT_TRUE(bad.ok());
  Status s;
  for (int k = 0; k < 20 && s.ok(); ++k) s = bad->Next().status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(files[1]), std::string::npos) << s;
}

TEST(DatasetTest, TextLineFixedLengthAndListFiles) {
  const std::string dir = ::testing::TempDir() + "/files_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/a.txt") << "first\nsecond\r\n\nlast";
    std::ofstream(dir + "/b.txt") << "b1\n";
    std::ofstream(dir + "/c.bin") << "HHabcdefFF";
    std::ofstream(dir + "/d.bin") << "HHabcdefgFF";
  }
  Result<Iterator> lines =
      Dataset::TextLine({dir + "/a.txt", dir + "/b.txt"}).MakeIterator();
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(Strings(*lines),
            (std::vector<std::string>{"first", "second", "", "last", "b1"}));
  Result<Iterator> fixed =
      Dataset::FixedLengthRecord({dir + "/c.bin"}, 3, 2, 2).MakeIterator();
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(Strings(*fixed), (std::vector<std::string>{"abc", "def"}));
  // A body that is not whole records: TF's INVALID_ARGUMENT, naming the
  // file.
  Result<Iterator> partial =
      Dataset::FixedLengthRecord({dir + "/d.bin"}, 3, 2, 2).MakeIterator();
  ASSERT_TRUE(partial.ok());
  Status s = partial->Next().status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("has body length 7 bytes, which is not an exact "
                             "multiple of the record length (3 bytes)"),
            std::string::npos)
      << s;
  Result<Iterator> names = Dataset::ListFiles({dir + "/*.txt"}).MakeIterator();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(Strings(*names),
            (std::vector<std::string>{dir + "/a.txt", dir + "/b.txt"}));
  Status none = Dataset::ListFiles({dir + "/*.csv"}).MakeIterator().status();
  EXPECT_TRUE(IsInvalidArgument(none)) << none;
  EXPECT_NE(none.message().find("no files match"), std::string::npos);
}

// `bytes` deflated into `path` (GZIP or ZLIB); `cut` bytes of the file's
// end dropped.
void WriteCompressed(const std::string& path, std::string_view bytes,
                     CompressionType type, size_t cut = 0) {
  {
    auto file = Env::Default().NewWritableFile(path);
    ASSERT_TRUE(file.ok());
    auto z = inflow::internal::ZlibWritableFile::Create(
        std::move(file).value(), type == CompressionType::kGzip, {});
    ASSERT_TRUE(z.ok());
    ASSERT_TRUE((*z)->Append(bytes).ok());
    ASSERT_TRUE((*z)->Close().ok());
  }
  if (cut > 0) {
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - cut);
  }
}

// Compressed text and fixed-length files (tf.data's results, checked in
// test_py_data.py too); a restore inflates again to the saved offset; a
// cut-short stream is DATA_LOSS naming the file (TF reads such a file as
// empty or short, silently).
TEST(DatasetTest, CompressedTextLineAndFixedLengthFiles) {
  const std::string dir = ::testing::TempDir() + "/compressed_files_test";
  std::filesystem::create_directories(dir);
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "line " + std::to_string(i) + "\n";
  WriteCompressed(dir + "/t.gz", text, CompressionType::kGzip);
  WriteCompressed(dir + "/t.zz", "a\r\nb", CompressionType::kZlib);
  TFRecordOptions gzip{.compression = CompressionType::kGzip,
                       .buffer_size = 1000};
  const Dataset lines = Dataset::TextLine({dir + "/t.gz"}, gzip);
  Result<Iterator> it = lines.MakeIterator();
  ASSERT_TRUE(it.ok());
  std::vector<std::string> got = Strings(*it);
  ASSERT_EQ(got.size(), 3000u);
  EXPECT_EQ(got[2999], "line 2999");
  Result<Iterator> z =
      Dataset::TextLine({dir + "/t.zz"},
                        {.compression = CompressionType::kZlib})
          .MakeIterator();
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(Strings(*z), (std::vector<std::string>{"a", "b"}));
  // Saved after 2000 lines, restored into a new iterator.
  Result<Iterator> first = lines.MakeIterator();
  ASSERT_TRUE(first.ok());
  for (int k = 0; k < 2000; ++k) ASSERT_TRUE(first->Next().ok());
  Result<std::string> state = first->Save();
  ASSERT_TRUE(state.ok());
  Result<Iterator> second = lines.MakeIterator();
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->Restore(*state).ok());
  EXPECT_EQ(Strings(*second), std::vector(got.begin() + 2000, got.end()));
  // Cut short: the lines it has, then DATA_LOSS naming the file, then the
  // end.
  WriteCompressed(dir + "/cut.gz", text, CompressionType::kGzip, 10);
  Result<Iterator> cut =
      Dataset::TextLine({dir + "/cut.gz"}, gzip).MakeIterator();
  ASSERT_TRUE(cut.ok());
  Status s;
  for (;;) {
    Result<Tuple> e = cut->Next();
    if (!e.ok()) {
      s = e.status();
      break;
    }
  }
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(dir + "/cut.gz"), std::string::npos) << s;
  EXPECT_TRUE(IsOutOfRange(cut->Next().status()));

  // Fixed-length: header 2, records of 3, footer 2.
  WriteCompressed(dir + "/f.gz", "HHabcdefghiFF", CompressionType::kGzip);
  const Dataset fixed =
      Dataset::FixedLengthRecord({dir + "/f.gz"}, 3, 2, 2, gzip);
  Result<Iterator> f = fixed.MakeIterator();
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->Next().ok());
  state = f->Save();
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(Strings(*f), (std::vector<std::string>{"def", "ghi"}));
  Result<Iterator> g = fixed.MakeIterator();
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(g->Restore(*state).ok());
  EXPECT_EQ(Strings(*g), (std::vector<std::string>{"def", "ghi"}));
  // A partial body: the whole records, then TF's DATA_LOSS.
  WriteCompressed(dir + "/p.gz", "HHabcdefgFF", CompressionType::kGzip);
  Result<Iterator> p =
      Dataset::FixedLengthRecord({dir + "/p.gz"}, 3, 2, 2, gzip).MakeIterator();
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->Next().ok());
  EXPECT_TRUE(p->Next().ok());
  s = p->Next().status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("has body length 7 bytes, which is not an exact "
                             "multiple of the record length (3 bytes)"),
            std::string::npos)
      << s;
}

TEST(DatasetTest, DestroyingAnIteratorMidStreamStopsItsThreads) {
  std::atomic<int> calls{0};
  Dataset d = Dataset::Range(1000000)
                  .Map(
                      [&calls](Tuple e) -> Result<Tuple> {
                        calls.fetch_add(1);
                        return e;
                      },
                      {.num_parallel_calls = 4})
                  .Prefetch(8);
  {
    Result<Iterator> it = d.MakeIterator();
    ASSERT_TRUE(it.ok());
    for (int k = 0; k < 10; ++k) ASSERT_TRUE(it->Next().ok());
  }  // joins every thread
  // Every thread joined: the calls made are bounded by the buffers (10
  // taken, 8 prefetched, 8 map chunks of up to 16 elements and the one
  // the prefetch thread took, one in the prefetch's hands).
  EXPECT_LE(calls.load(), 10 + 8 + 9 * 16 + 1);
}

TEST(DatasetTest, AStalledInputStillDeliversWhatItGave) {
  // The prefetch hands out computed elements several at a time; when its
  // input stalls, the ones it has must still come out (not wait for the
  // input to move). The generator's element 0 waits until the consumer
  // asks for it (so the consumer is most likely waiting when 0, 1 and 2
  // come), and after element 2 it blocks until released: by the test once
  // it has the three, or by a watchdog after 60 s.
  std::mutex mu;
  std::condition_variable cv;
  bool asking = false, got_three = false, released = false;
  Dataset d = Dataset::FromGenerator([&]() -> Result<Generator> {
    auto next = std::make_shared<int64_t>(0);
    return Generator([&, next]() -> Result<std::optional<Tuple>> {
      std::unique_lock<std::mutex> l(mu);
      if (*next == 0) cv.wait(l, [&] { return asking; });
      if (*next == 3) {
        cv.wait(l, [&] { return released; });
        return std::optional<Tuple>();
      }
      return std::optional<Tuple>(Tuple{Tensor::Scalar<int64_t>((*next)++)});
    });
  });
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> l(mu);
    cv.wait_for(l, std::chrono::seconds(60), [&] { return got_three; });
    released = true;
    cv.notify_all();
  });
  Result<Iterator> it = d.Prefetch(8).MakeIterator();
  ASSERT_TRUE(it.ok());
  for (int64_t k = 0; k < 3; ++k) {
    if (k == 0) {
      std::lock_guard<std::mutex> l(mu);
      asking = true;
      cv.notify_all();
    }
    Result<Tuple> e = it->Next();
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    EXPECT_EQ((*e)[0].flat<int64_t>()[0], k);
  }
  {
    std::lock_guard<std::mutex> l(mu);
    EXPECT_FALSE(released) << "the elements came out only once the input "
                              "moved on";
    got_three = true;
    released = true;
    cv.notify_all();
  }
  EXPECT_TRUE(IsOutOfRange(it->Next().status()));
  watchdog.join();
}

// Parallel interleave: the sequential order at 1..8 threads, with inner
// datasets of uneven cost and errors in their place; a dataset that is
// blocked holds the rest back only when deterministic (a Next waiting for
// it times out and loses nothing), and not deterministic the others'
// elements come out meanwhile.
TEST(DatasetTest,
     AParallelInterleaveKeepsTheOrderAndABlockedDatasetOnlyWhenDeterministic) {
  auto inner = [](Tuple e) -> Result<Dataset> {
    const int64_t x = e[0].flat<int64_t>()[0];
    return Dataset::Range(x * 100, x * 100 + x % 7)
        .Map([](Tuple v) -> Result<Tuple> {
          const int64_t y = v[0].flat<int64_t>()[0];
          if (y == 1304) return InvalidArgumentError("1304 is bad");
          volatile int64_t spin = (y % 5) * 2000;
          while (spin > 0) spin = spin - 1;
          return v;
        });
  };
  auto run = [&](int p) {
    Result<Iterator> it = Dataset::Range(1, 30)
                              .Interleave(inner, {.cycle_length = 4,
                                                  .block_length = 3,
                                                  .num_parallel_calls = p})
                              .MakeIterator();
    EXPECT_TRUE(it.ok());
    std::vector<std::string> out;
    for (;;) {
      Result<Tuple> e = it->Next();
      if (IsOutOfRange(e.status())) break;
      out.push_back(e.ok() ? std::to_string((*e)[0].flat<int64_t>()[0])
                           : e.status().ToString());
    }
    return out;
  };
  const std::vector<std::string> want = run(1);
  ASSERT_GT(want.size(), 50u);
  EXPECT_NE(
      std::find(want.begin(), want.end(),
                "INVALID_ARGUMENT: map (stage 1), element 4: 1304 is bad"),
      want.end());
  for (int p = 2; p <= 8; ++p) EXPECT_EQ(run(p), want) << p;

  // Element 0's dataset waits for `gate`; element 1's does not.
  for (const bool deterministic : {true, false}) {
    std::promise<void> open;
    std::shared_future<void> gate = open.get_future().share();
    auto gated = [gate](Tuple e) -> Result<Dataset> {
      const int64_t x = e[0].flat<int64_t>()[0];
      Dataset d = Dataset::Range(x * 10, x * 10 + 3);
      if (x != 0) return d;
      return d.Map([gate](Tuple v) -> Result<Tuple> {
        gate.wait();
        return v;
      });
    };
    Result<Iterator> it =
        Dataset::Range(2)
            .Interleave(gated, {.cycle_length = 2,
                                .num_parallel_calls = 2,
                                .deterministic = deterministic})
            .MakeIterator();
    ASSERT_TRUE(it.ok());
    std::vector<int64_t> got;
    if (deterministic) {
      Result<Tuple> e = it->Next({.timeout = std::chrono::milliseconds(20)});
      EXPECT_TRUE(IsDeadlineExceeded(e.status())) << e.status();
    } else {
      for (int k = 0; k < 3; ++k) {
        Result<Tuple> e = it->Next();
        ASSERT_TRUE(e.ok()) << e.status();
        got.push_back((*e)[0].flat<int64_t>()[0]);
      }
      EXPECT_EQ(got, (std::vector<int64_t>{10, 11, 12}));
    }
    open.set_value();
    for (;;) {
      Result<Tuple> e = it->Next();
      if (IsOutOfRange(e.status())) break;
      ASSERT_TRUE(e.ok()) << e.status();
      got.push_back((*e)[0].flat<int64_t>()[0]);
    }
    if (deterministic) {
      EXPECT_EQ(got, (std::vector<int64_t>{0, 10, 1, 11, 2, 12}));
    } else {
      EXPECT_EQ(got, (std::vector<int64_t>{10, 11, 12, 0, 1, 2}));
    }
  }
}

}  // namespace
}  // namespace inflow::data
