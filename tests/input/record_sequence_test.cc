// Copyright 2026 The inflow Authors.

#include "inflow/input/record_sequence.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/input/sequence.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"

namespace inflow {
namespace {

std::string File(int f) { return "/data/part-" + std::to_string(f); }

// Record k of the corpus: an Example {"id": k, "tags": k % 3 strings}.
std::string Record(int64_t k) {
  std::vector<std::string> tags;
  for (int64_t t = 0; t < k % 3; ++t) tags.push_back("t" + std::to_string(t));
  return Example()
      .Set("id", Feature::Int64s({k}))
      .Set("tags", Feature::Bytes(tags))
      .Serialize();
}

// Files holding records 0 .. sum(counts) - 1, `counts[f]` in file f.
void WriteCorpus(MemEnv& env, const std::vector<int>& counts) {
  int64_t k = 0;
  for (size_t f = 0; f < counts.size(); ++f) {
    auto writer = RecordWriter::Create(env, File(static_cast<int>(f)));
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int i = 0; i < counts[f]; ++i) {
      ASSERT_TRUE((*writer)->WriteRecord(Record(k++)).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
  }
}

RecordSequenceOptions Options(MemEnv& env, size_t files, int64_t batch) {
  RecordSequenceOptions o;
  for (size_t f = 0; f < files; ++f) o.files.push_back(File(f));
  o.batch_size = batch;
  o.features = {{"id", FixedLenFeature({}, DType::kInt64)}};
  o.env = &env;
  return o;
}

std::unique_ptr<RecordSequence> MustCreate(RecordSequenceOptions options) {
  auto seq = RecordSequence::Create(std::move(options));
  EXPECT_TRUE(seq.ok()) << seq.status();
  return seq.ok() ? std::move(*seq) : nullptr;
}

std::vector<int64_t> Ids(RecordSequence& seq, int64_t i) {
  Result<Tuple> batch = seq.Get(i, {});
  EXPECT_TRUE(batch.ok()) << batch.status();
  if (!batch.ok()) return {};
  EXPECT_EQ(batch->size(), 1u);
  const std::span<const int64_t> ids = (*batch)[0].flat<int64_t>();
  return {ids.begin(), ids.end()};
}

TEST(RecordSequenceTest, BatchIHoldsRecordsIbToIPlus1BAcrossFiles) {
  MemEnv env;
  WriteCorpus(env, {5, 0, 7, 3});  // an empty file among them
  auto seq = MustCreate(Options(env, 4, 4));
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->num_records(), 15);
  ASSERT_EQ(seq->size(), 4);
  EXPECT_EQ(Ids(*seq, 0), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Ids(*seq, 1), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(Ids(*seq, 2), (std::vector<int64_t>{8, 9, 10, 11}));
  EXPECT_EQ(Ids(*seq, 3), (std::vector<int64_t>{12, 13, 14}));  // short
  EXPECT_EQ(Ids(*seq, 1), (std::vector<int64_t>{4, 5, 6, 7}));  // again
  EXPECT_EQ(seq->names(), std::vector<std::string>{"id"});
}

TEST(RecordSequenceTest, DropRemainderDropsTheShortLastBatch) {
  MemEnv env;
  WriteCorpus(env, {10});
  RecordSequenceOptions o = Options(env, 1, 4);
  o.drop_remainder = true;
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->size(), 2);
  EXPECT_EQ(Ids(*seq, 1), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_TRUE(IsOutOfRange(seq->Get(2, {}).status()));
  o.batch_size = 5;
  EXPECT_EQ(MustCreate(o)->size(), 2);  // nothing to drop
}

TEST(RecordSequenceTest, SlicesOfABatchArePartsOfTheWholeShuffledBatch) {
  // Three data-parallel ranks' slices of each shuffled global batch are,
  // in rank order, that batch of a sequence read whole.
  MemEnv env;
  WriteCorpus(env, {8, 9});
  RecordSequenceOptions o = Options(env, 2, 6);
  o.shuffle = true;
  o.seed = 11;
  auto whole = MustCreate(o);
  std::vector<std::unique_ptr<RecordSequence>> slices;
  for (int r = 0; r < 3; ++r) {
    o.num_slices = 3;
    o.slice = r;
    slices.push_back(MustCreate(o));
  }
  for (int epoch = 0; epoch < 2; ++epoch) {
    ASSERT_EQ(whole->size(), 3);
    for (int64_t i = 0; i < whole->size(); ++i) {
      std::vector<int64_t> joined;
      for (auto& s : slices) {
        const std::vector<int64_t> part = Ids(*s, i);
        // The short last batch (5 records) splits 1, 2, 2.
        EXPECT_LE(part.size(), 2u);
        joined.insert(joined.end(), part.begin(), part.end());
      }
      EXPECT_EQ(joined, Ids(*whole, i)) << epoch << " " << i;
    }
    whole->OnEpochEnd();
    for (auto& s : slices) s->OnEpochEnd();
  }
  o.slice = 3;
  EXPECT_EQ(RecordSequence::Create(o).status().code(),
            StatusCode::kInvalidArgument);
  o.slice = 0;
  o.num_slices = 4;  // 6 is not a multiple of 4
  EXPECT_EQ(RecordSequence::Create(o).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(RecordSequenceTest, BatchOutsideTheSequenceIsOutOfRange) {
  MemEnv env;
  WriteCorpus(env, {3});
  auto seq = MustCreate(Options(env, 1, 2));
  ASSERT_NE(seq, nullptr);
  EXPECT_TRUE(IsOutOfRange(seq->Get(2, {}).status()));
  EXPECT_TRUE(IsOutOfRange(seq->Get(-1, {}).status()));
  EXPECT_TRUE(seq->BatchPositions(2).empty());
}

TEST(RecordSequenceTest, NoFeaturesGivesTheRecords) {
  MemEnv env;
  WriteCorpus(env, {2, 2});
  RecordSequenceOptions o = Options(env, 2, 3);
  o.features.clear();
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->names(), std::vector<std::string>{"value"});
  Result<Tuple> batch = seq->Get(0, {});
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ((*batch)[0].dtype(), DType::kString);
  const auto values = (*batch)[0].flat<std::string>();
  ASSERT_EQ(values.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(values[k], Record(k));
}

TEST(RecordSequenceTest, BatchesAreWhatParseBatchGivesWithSparseInPlace) {
  MemEnv env;
  WriteCorpus(env, {4, 3});
  RecordSequenceOptions o = Options(env, 2, 5);
  o.features = {{"tags", VarLenFeature(DType::kString)},
                {"id", FixedLenFeature({1}, DType::kInt64)}};
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->sparse(), (std::vector<bool>{true, false}));
  ExampleParser parser = *ExampleParser::Create(o.features);
  for (int64_t i = 0; i < seq->size(); ++i) {
    Result<Tuple> batch = seq->Get(i, {});
    ASSERT_TRUE(batch.ok()) << batch.status();
    std::vector<std::string> records;
    for (int64_t k = 5 * i; k < std::min<int64_t>(5 * i + 5, 7); ++k) {
      records.push_back(Record(k));
    }
    ParsedFeatures want = *parser.ParseBatch(std::span(records));
    ASSERT_EQ(batch->size(), 4u);
    EXPECT_EQ((*batch)[0].DebugString(1 << 20),
              want.sparse[0].indices.DebugString(1 << 20));
    EXPECT_EQ((*batch)[1].DebugString(1 << 20),
              want.sparse[0].values.DebugString(1 << 20));
    EXPECT_EQ((*batch)[2].DebugString(1 << 20),
              want.sparse[0].dense_shape.DebugString(1 << 20));
    EXPECT_EQ((*batch)[3].DebugString(1 << 20),
              want.dense[0].DebugString(1 << 20));
  }
}

// Every position once per epoch, in the epoch's order.
void ExpectEpochIsAPermutation(RecordSequence& seq) {
  std::vector<int64_t> all;
  for (int64_t i = 0; i < seq.size(); ++i) {
    const std::vector<int64_t> ids = Ids(seq, i);
    EXPECT_EQ(ids, seq.BatchPositions(i)) << "batch " << i;
    all.insert(all.end(), ids.begin(), ids.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<int64_t> expected(static_cast<size_t>(seq.num_records()));
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected);
}

std::vector<std::vector<int64_t>> EpochOrders(RecordSequence& seq, int epochs) {
  std::vector<std::vector<int64_t>> orders;
  for (int e = 0; e < epochs; ++e) {
    std::vector<int64_t> order;
    for (int64_t i = 0; i < seq.size(); ++i) {
      const std::vector<int64_t> p = seq.BatchPositions(i);
      order.insert(order.end(), p.begin(), p.end());
    }
    orders.push_back(std::move(order));
    seq.OnEpochEnd();
  }
  return orders;
}

TEST(RecordSequenceTest, ShuffleDrawsAPermutationAcrossFilesEachEpoch) {
  MemEnv env;
  WriteCorpus(env, {20, 13, 17});
  RecordSequenceOptions o = Options(env, 3, 8);
  o.shuffle = true;
  o.seed = 42;
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(seq->epoch(), e);
    ExpectEpochIsAPermutation(*seq);
    seq->OnEpochEnd();
  }
  // A seed fixes every epoch's order; the epochs' orders differ.
  const auto a = EpochOrders(*MustCreate(o), 3);
  const auto b = EpochOrders(*MustCreate(o), 3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(a[1], a[2]);
  o.seed = 43;
  EXPECT_NE(EpochOrders(*MustCreate(o), 1)[0], a[0]);
}

TEST(RecordSequenceTest, AnOrderedEnqueuerHandsOutEveryRecordOnceAnEpoch) {
  // The sequence reshuffles in OnEpochEnd, which the enqueuer calls
  // between epochs: 3 workers, each epoch's batches in its order, every
  // record once, a new order each epoch.
  MemEnv env;
  WriteCorpus(env, {20, 13, 17});
  RecordSequenceOptions o = Options(env, 3, 8);
  o.shuffle = true;
  o.seed = 5;
  const std::vector<std::vector<int64_t>> want = EpochOrders(*MustCreate(o), 3);
  std::shared_ptr<RecordSequence> seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  OrderedEnqueuer enqueuer(seq);
  ASSERT_TRUE(enqueuer.Start(/*workers=*/3, /*max_queue_size=*/4).ok());
  for (int e = 0; e < 3; ++e) {
    std::vector<int64_t> order;
    for (int64_t i = 0; i < 7; ++i) {  // ceil(50 / 8)
      Result<Tuple> batch = enqueuer.Get();
      ASSERT_TRUE(batch.ok()) << batch.status();
      const std::span<const int64_t> ids = (*batch)[0].flat<int64_t>();
      order.insert(order.end(), ids.begin(), ids.end());
    }
    EXPECT_EQ(order, want[static_cast<size_t>(e)]) << "epoch " << e;
  }
  EXPECT_TRUE(enqueuer.Stop().ok());
}

TEST(RecordSequenceTest, ShuffleWithDropRemainderDropsOtherRecordsEachEpoch) {
  MemEnv env;
  WriteCorpus(env, {10});
  RecordSequenceOptions o = Options(env, 1, 4);
  o.shuffle = true;
  o.seed = 1;
  o.drop_remainder = true;
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->size(), 2);
  std::set<std::vector<int64_t>> kept;
  for (int e = 0; e < 8; ++e) {
    std::vector<int64_t> ids = Ids(*seq, 0);
    const std::vector<int64_t> more = Ids(*seq, 1);
    ids.insert(ids.end(), more.begin(), more.end());
    EXPECT_EQ(ids.size(), 8u);
    std::sort(ids.begin(), ids.end());
    kept.insert(ids);
    seq->OnEpochEnd();
  }
  EXPECT_GT(kept.size(), 1u);
}

TEST(RecordSequenceTest, WithoutShuffleEveryEpochIsTheFilesOrder) {
  MemEnv env;
  WriteCorpus(env, {6});
  auto seq = MustCreate(Options(env, 1, 4));
  ASSERT_NE(seq, nullptr);
  seq->OnEpochEnd();
  EXPECT_EQ(seq->epoch(), 1);
  EXPECT_EQ(Ids(*seq, 0), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(RecordSequenceTest, StopRequestedIsCancelled) {
  MemEnv env;
  WriteCorpus(env, {3});
  auto seq = MustCreate(Options(env, 1, 2));
  ASSERT_NE(seq, nullptr);
  std::stop_source stop;
  stop.request_stop();
  CallOptions options;
  options.stop = stop.get_token();
  EXPECT_TRUE(IsCancelled(seq->Get(0, options).status()));
}

TEST(RecordSequenceTest, DamagedRecordIsDataLossNamingFileAndOffset) {
  MemEnv env;
  WriteCorpus(env, {3, 3});
  auto seq = MustCreate(Options(env, 2, 2));
  ASSERT_NE(seq, nullptr);
  // Record 1 of part-1 (global 4, batch 2), behind the index's back.
  std::string bytes = *env.Contents(File(1));
  const uint64_t offset = 16 + Record(3).size();
  bytes[offset + 12 + 1] ^= 0x40;
  ASSERT_TRUE(WriteStringToFile(env, File(1), bytes).ok());
  Result<Tuple> batch = seq->Get(2, {});
  EXPECT_TRUE(IsDataLoss(batch.status())) << batch.status();
  EXPECT_EQ(batch.status().message(),
            "corrupted record (data checksum) at offset " +
                std::to_string(offset) + " in " + File(1));
  EXPECT_EQ(Ids(*seq, 1), (std::vector<int64_t>{2, 3}));
}

TEST(RecordSequenceTest, RecordThatDoesNotParseNamesFileAndOffset) {
  MemEnv env;
  {
    auto writer = RecordWriter::Create(env, File(0));
    ASSERT_TRUE((*writer)->WriteRecord(Record(0)).ok());
    ASSERT_TRUE((*writer)->WriteRecord("not an example").ok());
    ASSERT_TRUE((*writer)->Close().ok());
  }
  auto seq = MustCreate(Options(env, 1, 2));
  ASSERT_NE(seq, nullptr);
  Result<Tuple> batch = seq->Get(0, {});
  EXPECT_TRUE(IsInvalidArgument(batch.status())) << batch.status();
  const std::string want = "record " + File(0) + " at offset " +
                           std::to_string(16 + Record(0).size()) + ": ";
  EXPECT_EQ(batch.status().message().substr(0, want.size()), want)
      << batch.status();
}

TEST(RecordSequenceTest, CreateRejectsBadOptions) {
  MemEnv env;
  WriteCorpus(env, {3});
  RecordSequenceOptions o = Options(env, 1, 2);
  o.batch_size = 0;
  EXPECT_TRUE(IsInvalidArgument(RecordSequence::Create(o).status()));
  o = Options(env, 0, 2);
  EXPECT_TRUE(IsInvalidArgument(RecordSequence::Create(o).status()));
  o = Options(env, 1, 2);
  o.features = {{"id", FixedLenFeature({-1}, DType::kInt64)}};
  EXPECT_TRUE(IsInvalidArgument(RecordSequence::Create(o).status()));
  o = Options(env, 2, 2);  // part-1 is missing
  Result<std::unique_ptr<RecordSequence>> missing = RecordSequence::Create(o);
  EXPECT_TRUE(IsNotFound(missing.status())) << missing.status();
  EXPECT_NE(missing.status().message().find(File(1)), std::string::npos);
}

TEST(RecordSequenceTest, IndexModeDecidesWhetherIndexesAreWrittenOrRequired) {
  MemEnv env;
  WriteCorpus(env, {3, 4});
  RecordSequenceOptions o = Options(env, 2, 2);
  o.index_mode = RecordIndexMode::kRequire;
  EXPECT_TRUE(IsNotFound(RecordSequence::Create(o).status()));
  o.index_mode = RecordIndexMode::kReadWrite;
  ASSERT_NE(MustCreate(o), nullptr);
  EXPECT_TRUE(env.FileExists(RecordIndexPath(File(0))).ok());
  EXPECT_TRUE(env.FileExists(RecordIndexPath(File(1))).ok());
  o.index_mode = RecordIndexMode::kRequire;
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(Ids(*seq, 3), (std::vector<int64_t>{6}));
}

TEST(RecordSequenceTest, ThreadsGetBatchesConcurrently) {
  MemEnv env;
  WriteCorpus(env, {37, 1, 50, 12});
  for (bool shuffle : {false, true}) {
    RecordSequenceOptions o = Options(env, 4, 7);
    o.features = {{"id", FixedLenFeature({}, DType::kInt64)},
                  {"tags", VarLenFeature(DType::kString)}};
    o.shuffle = shuffle;
    o.seed = 5;
    auto seq = MustCreate(o);
    ASSERT_NE(seq, nullptr);
    std::vector<std::string> expected;
    for (int64_t i = 0; i < seq->size(); ++i) {
      expected.push_back(DebugString(*seq->Get(i, {})));
    }
    std::atomic<int> mismatches{0};
    std::vector<std::jthread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 5; ++round) {
          for (int64_t i = 0; i < seq->size(); ++i) {
            const int64_t b = (i * (t + 1) + round) % seq->size();
            Result<Tuple> batch = seq->Get(b, {});
            if (!batch.ok() || DebugString(*batch) != expected[b]) {
              mismatches.fetch_add(1);
            }
          }
        }
      });
    }
    for (std::jthread& t : threads) t.join();
    EXPECT_EQ(mismatches.load(), 0) << "shuffle " << shuffle;
  }
}

TEST(RecordSequenceTest, OnEpochEndWhileThreadsGetIsSafe) {
  MemEnv env;
  WriteCorpus(env, {40});
  RecordSequenceOptions o = Options(env, 1, 4);
  o.shuffle = true;
  auto seq = MustCreate(o);
  ASSERT_NE(seq, nullptr);
  std::atomic<int> failures{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] {
        for (int n = 0; n < 200; ++n) {
          Result<Tuple> batch = seq->Get(n % seq->size(), {});
          if (!batch.ok() || (*batch)[0].num_elements() != 4) {
            failures.fetch_add(1);
          }
        }
      });
    }
    for (int e = 0; e < 20; ++e) seq->OnEpochEnd();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(seq->epoch(), 20);
}

}  // namespace
}  // namespace inflow
