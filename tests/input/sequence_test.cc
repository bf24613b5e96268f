// Copyright 2026 The inflow Authors.
//
// OrderedEnqueuer: every epoch yields every index exactly once, in order
// (or in the epoch's seeded permutation), whatever the workers' timing;
// OnEpochEnd runs once between epochs, after the epoch's last batch was
// taken and before any batch of the next was requested (spec edge case 15).

#include "inflow/input/sequence.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "input/enqueuer_test_util.h"
#include "input/epoch_shuffle.h"
#include "input/seeds.h"

namespace inflow {
namespace {

using testing::Counter;
using testing::Int64At;
using testing::Int64s;
using testing::kBound;
using testing::Within;
using testing::YieldDelay;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Batch i of an epoch is {i, OnEpochEnd calls when Get(i) began}. Records
// what the enqueuer did, for the test to check afterwards.
class RecordingSequence : public Sequence {
 public:
  // sizes[e]: the size of epoch e (the last one for the epochs after).
  RecordingSequence(std::vector<int64_t> sizes, uint64_t seed, int max_yields)
      : sizes_(std::move(sizes)), seed_(seed), max_yields_(max_yields) {}

  int64_t size() override {
    size_calls_.fetch_add(1);
    const size_t e = static_cast<size_t>(ends_.load());
    return sizes_[std::min(e, sizes_.size() - 1)];
  }

  Result<Tuple> Get(int64_t i, const CallOptions&) override {
    const int running = in_flight_.fetch_add(1) + 1;
    UpdateMax(max_in_flight_, running);
    const int64_t started = gets_.fetch_add(1) + 1;
    UpdateMax(max_ahead_, started - taken_.load());
    const int64_t ends = ends_.load();
    YieldDelay(seed_, static_cast<uint64_t>(ends), static_cast<uint64_t>(i),
               max_yields_);
    in_flight_.fetch_sub(1);
    return Int64s({i, ends});
  }

  void OnEpochEnd() override {
    in_flight_at_end_.push_back(in_flight_.load());
    gets_at_end_.push_back(gets_.load());
    ends_.fetch_add(1);
  }

  // The consumer calls this after each batch it took.
  void NoteTaken() { taken_.fetch_add(1); }

  int64_t epoch_ends() const { return ends_.load(); }
  int64_t size_calls() const { return size_calls_.load(); }
  int max_in_flight() const { return max_in_flight_.load(); }
  int64_t max_ahead() const { return max_ahead_.load(); }
  // Written by OnEpochEnd, which the producer calls: read them after Stop.
  const std::vector<int>& in_flight_at_end() const { return in_flight_at_end_; }
  const std::vector<int64_t>& gets_at_end() const { return gets_at_end_; }

 private:
  template <typename T>
  static void UpdateMax(std::atomic<T>& max, T value) {
    T seen = max.load();
    while (value > seen && !max.compare_exchange_weak(seen, value)) {
    }
  }

  const std::vector<int64_t> sizes_;
  const uint64_t seed_;
  const int max_yields_;
  std::atomic<int64_t> ends_{0};
  std::atomic<int64_t> size_calls_{0};
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
  std::atomic<int64_t> gets_{0};
  std::atomic<int64_t> taken_{0};
  std::atomic<int64_t> max_ahead_{0};
  std::vector<int> in_flight_at_end_;
  std::vector<int64_t> gets_at_end_;
};

struct Taken {
  int64_t index;
  int64_t ends_at_request;  // OnEpochEnd calls when Get(index) began
  int64_t ends_before_get;  // OnEpochEnd calls before the consumer's Get
};

// Takes `n` batches, with a seeded delay of the consumer's own after each.
std::vector<Taken> TakeBatches(OrderedEnqueuer& enqueuer,
                               RecordingSequence& sequence, int64_t n,
                               uint64_t seed) {
  std::vector<Taken> taken;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t before = sequence.epoch_ends();
    Result<Tuple> batch = enqueuer.Get(Within());
    EXPECT_TRUE(batch.ok()) << "batch " << k << ": " << batch.status();
    if (!batch.ok()) break;
    sequence.NoteTaken();
    taken.push_back({Int64At(*batch, 0), Int64At(*batch, 1), before});
    YieldDelay(seed, static_cast<uint64_t>(k), 1, 40);
  }
  return taken;
}

TEST(OrderedEnqueuerTest, EveryEpochYieldsEveryIndexOnceInOrder) {
  constexpr int64_t kSize = 24;
  constexpr int64_t kEpochs = 3;
  for (int workers = 1; workers <= 8; ++workers) {
    for (int64_t max_queue : {int64_t{1}, int64_t{3}, int64_t{10}}) {
      SCOPED_TRACE(::testing::Message()
                   << workers << " workers, queue " << max_queue);
      auto sequence = std::make_shared<RecordingSequence>(
          std::vector<int64_t>{kSize}, workers * 100 + max_queue, 200);
      OrderedEnqueuer enqueuer(sequence);
      ASSERT_TRUE(enqueuer.Start(workers, max_queue).ok());
      EXPECT_TRUE(enqueuer.IsRunning());
      const std::vector<Taken> taken =
          TakeBatches(enqueuer, *sequence, kSize * kEpochs, workers);
      ASSERT_TRUE(enqueuer.Stop(kBound).ok());
      EXPECT_FALSE(enqueuer.IsRunning());

      ASSERT_EQ(taken.size(), size_t{kSize * kEpochs});
      for (size_t k = 0; k < taken.size(); ++k) {
        const int64_t epoch = static_cast<int64_t>(k) / kSize;
        EXPECT_EQ(taken[k].index, static_cast<int64_t>(k) % kSize);
        // Requested after OnEpochEnd of the epoch before, and before its
        // own epoch's OnEpochEnd: exactly `epoch` calls.
        EXPECT_EQ(taken[k].ends_at_request, epoch) << "batch " << k;
        // OnEpochEnd never ran before a batch of its epoch was taken.
        EXPECT_LE(taken[k].ends_before_get, epoch) << "batch " << k;
      }
      // The last epoch's OnEpochEnd may or may not have run before Stop.
      const int64_t ends = sequence->epoch_ends();
      EXPECT_GE(ends, kEpochs - 1);
      EXPECT_LE(ends, kEpochs);
      EXPECT_EQ(sequence->size_calls(), ends + 1);
      for (size_t e = 0; e < sequence->gets_at_end().size(); ++e) {
        EXPECT_EQ(sequence->in_flight_at_end()[e], 0);
        EXPECT_EQ(sequence->gets_at_end()[e], kSize * int64_t(e + 1));
      }
      EXPECT_LE(sequence->max_in_flight(), workers);
      // Submitted and not taken <= max_queue; +1 for the batch the consumer
      // holds before NoteTaken.
      EXPECT_LE(sequence->max_ahead(), max_queue + 1);
    }
  }
}

// Get(i) for i < workers waits until `workers` Gets run at once: only
// workers that run in parallel, without a lock around Get, get past it.
class RendezvousSequence : public Sequence {
 public:
  explicit RendezvousSequence(int workers) : workers_(workers) {}
  int64_t size() override { return 2 * workers_; }
  Result<Tuple> Get(int64_t i, const CallOptions&) override {
    if (i < workers_) {
      entered_.Add();
      if (!entered_.WaitAtLeast(workers_)) {
        return DeadlineExceededError("the workers never ran together");
      }
    }
    return Int64s({i});
  }

 private:
  const int workers_;
  Counter entered_;
};

TEST(OrderedEnqueuerTest, WorkersCallGetInParallel) {
  for (int workers : {2, 4, 8}) {
    SCOPED_TRACE(workers);
    OrderedEnqueuer enqueuer(std::make_shared<RendezvousSequence>(workers));
    ASSERT_TRUE(enqueuer.Start(workers, workers).ok());
    for (int64_t i = 0; i < 2 * workers; ++i) {
      Result<Tuple> batch = enqueuer.Get(Within());
      ASSERT_TRUE(batch.ok()) << batch.status();
      EXPECT_EQ(Int64At(*batch, 0), i);
    }
    EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  }
}

std::vector<int64_t> ShuffledIndices(int workers, int64_t seed, int64_t size,
                                     int64_t epochs) {
  auto sequence = std::make_shared<RecordingSequence>(
      std::vector<int64_t>{size}, seed + workers, 100);
  OrderedEnqueuer enqueuer(sequence, {.shuffle = true, .seed = seed});
  EXPECT_TRUE(enqueuer.Start(workers, 4).ok());
  std::vector<int64_t> indices;
  for (const Taken& t : TakeBatches(enqueuer, *sequence, size * epochs, 3)) {
    indices.push_back(t.index);
  }
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  return indices;
}

TEST(OrderedEnqueuerTest, ShuffleIsReproducibleWithASeedAndNewEachEpoch) {
  constexpr int64_t kSize = 40;
  constexpr int64_t kEpochs = 3;
  const std::vector<int64_t> one_worker = ShuffledIndices(1, 7, kSize, kEpochs);
  ASSERT_EQ(one_worker.size(), size_t{kSize * kEpochs});
  // The same orders whatever the workers' timing.
  EXPECT_EQ(ShuffledIndices(5, 7, kSize, kEpochs), one_worker);
  EXPECT_NE(ShuffledIndices(1, 8, kSize, kEpochs), one_worker);

  // Each epoch is the input producers' next permutation for that seed.
  internal::EpochShuffle shuffle(internal::TfSeeds(std::nullopt, 7));
  std::vector<std::vector<int64_t>> epochs;
  for (int64_t e = 0; e < kEpochs; ++e) {
    epochs.emplace_back(one_worker.begin() + e * kSize,
                        one_worker.begin() + (e + 1) * kSize);
    EXPECT_EQ(epochs.back(), shuffle.NextPermutation(kSize)) << "epoch " << e;
  }
  std::vector<int64_t> identity(kSize);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(epochs[0], identity);
  EXPECT_NE(epochs[0], epochs[1]);
  EXPECT_NE(epochs[1], epochs[2]);
}

TEST(OrderedEnqueuerTest, SizeIsReadAgainEachEpoch) {
  const std::vector<int64_t> sizes = {5, 12, 1, 7};
  auto sequence = std::make_shared<RecordingSequence>(sizes, 11, 100);
  OrderedEnqueuer enqueuer(sequence);
  ASSERT_TRUE(enqueuer.Start(3, 4).ok());
  const int64_t total = std::accumulate(sizes.begin(), sizes.end(), 0);
  const std::vector<Taken> taken = TakeBatches(enqueuer, *sequence, total, 5);
  ASSERT_TRUE(enqueuer.Stop(kBound).ok());
  ASSERT_EQ(taken.size(), size_t(total));
  size_t k = 0;
  for (size_t e = 0; e < sizes.size(); ++e) {
    for (int64_t i = 0; i < sizes[e]; ++i, ++k) {
      EXPECT_EQ(taken[k].index, i) << "epoch " << e;
      EXPECT_EQ(taken[k].ends_at_request, int64_t(e));
    }
  }
}

TEST(OrderedEnqueuerTest, FirstIndexStartsTheFirstEpochThereAndOnlyIt) {
  constexpr int64_t kSize = 9;
  for (int workers : {1, 4}) {
    SCOPED_TRACE(::testing::Message() << workers << " workers");
    auto sequence = std::make_shared<RecordingSequence>(
        std::vector<int64_t>{kSize}, 21 + workers, 100);
    OrderedEnqueuer enqueuer(sequence, {.first_index = 6});
    ASSERT_TRUE(enqueuer.Start(workers, 3).ok());
    // Batches 6-8 of the first epoch, then two whole epochs.
    const std::vector<Taken> taken =
        TakeBatches(enqueuer, *sequence, 3 + 2 * kSize, 3);
    ASSERT_TRUE(enqueuer.Stop(kBound).ok());
    ASSERT_EQ(taken.size(), size_t{3 + 2 * kSize});
    for (size_t k = 0; k < taken.size(); ++k) {
      const int64_t position = 6 + static_cast<int64_t>(k);
      EXPECT_EQ(taken[k].index, position % kSize) << "batch " << k;
      EXPECT_EQ(taken[k].ends_at_request, position / kSize) << "batch " << k;
    }
    // Nothing before index 6 was computed for the first epoch.
    EXPECT_EQ(sequence->gets_at_end()[0], 3);
  }
  // The same positions in a shuffled first epoch: its permutation's tail.
  const std::vector<int64_t> whole = ShuffledIndices(1, 7, 12, 1);
  auto sequence =
      std::make_shared<RecordingSequence>(std::vector<int64_t>{12}, 5, 10);
  OrderedEnqueuer shuffled(sequence,
                           {.shuffle = true, .seed = 7, .first_index = 8});
  ASSERT_TRUE(shuffled.Start(2, 4).ok());
  const std::vector<Taken> tail = TakeBatches(shuffled, *sequence, 4, 5);
  ASSERT_TRUE(shuffled.Stop(kBound).ok());
  ASSERT_EQ(tail.size(), 4u);
  for (size_t k = 0; k < tail.size(); ++k)
    EXPECT_EQ(tail[k].index, whole[8 + k]);
}

TEST(OrderedEnqueuerTest, FirstIndexOutsideTheFirstEpochFailsStart) {
  for (int64_t first : {int64_t{-1}, int64_t{5}, int64_t{9}}) {
    OrderedEnqueuer enqueuer(
        std::make_shared<RecordingSequence>(std::vector<int64_t>{5}, 1, 1),
        {.first_index = first});
    Status s = enqueuer.Start(2, 4);
    EXPECT_TRUE(IsInvalidArgument(s)) << s;
    EXPECT_NE(s.message().find("first_index " + std::to_string(first) +
                               " is outside [0, 5)"),
              std::string::npos)
        << s;
    EXPECT_FALSE(enqueuer.IsRunning());
  }
}

// Fails Get(fail_at) with DATA_LOSS (or throws), quickly, while the
// batches before it take longer.
class FailingSequence : public Sequence {
 public:
  FailingSequence(int64_t fail_at, bool throws)
      : fail_at_(fail_at), throws_(throws) {}
  int64_t size() override { return 20; }
  Result<Tuple> Get(int64_t i, const CallOptions&) override {
    if (i == fail_at_) {
      if (throws_) throw std::runtime_error("bad batch");
      return DataLossError("bad batch");
    }
    YieldDelay(3, 0, static_cast<uint64_t>(i), 300);
    return Int64s({i});
  }

 private:
  const int64_t fail_at_;
  const bool throws_;
};

TEST(OrderedEnqueuerTest, GetErrorCarriesTheIndexAfterTheBatchesBefore) {
  for (bool throws : {false, true}) {
    SCOPED_TRACE(throws ? "exception" : "status");
    OrderedEnqueuer enqueuer(std::make_shared<FailingSequence>(7, throws));
    ASSERT_TRUE(enqueuer.Start(4, 10).ok());
    for (int64_t i = 0; i < 7; ++i) {
      Result<Tuple> batch = enqueuer.Get(Within());
      ASSERT_TRUE(batch.ok()) << batch.status();
      EXPECT_EQ(Int64At(*batch, 0), i);
    }
    Result<Tuple> failed = enqueuer.Get(Within());
    const StatusCode code =
        throws ? StatusCode::kUnknown : StatusCode::kDataLoss;
    EXPECT_EQ(failed.status().code(), code) << failed.status();
    EXPECT_NE(failed.status().message().find("batch 7: "), std::string::npos)
        << failed.status();
    EXPECT_NE(failed.status().message().find("bad batch"), std::string::npos);
    // The error stopped the enqueuer and stays its answer.
    EXPECT_FALSE(enqueuer.IsRunning());
    EXPECT_EQ(enqueuer.Get(Within()).status(), failed.status());
    EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  }
}

}  // namespace
}  // namespace inflow
