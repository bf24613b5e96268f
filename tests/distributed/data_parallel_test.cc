// Copyright 2026 The inflow Authors.
//
// The in-process group's collectives, DataParallel's step protocol over it
// (averages, agreed stops and errors, replica checks), and PlanShards.
// Ranks are threads; every wait is on a collective, none on a sleep.

#include "inflow/distributed/data_parallel.h"

#include <functional>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/distributed/communicator.h"

namespace inflow::distributed {
namespace {

using ::testing::HasSubstr;

// Runs fn(rank's communicator) on `size` threads and joins them.
void OnRanks(int size, const std::function<void(Communicator&)>& fn) {
  std::vector<std::unique_ptr<Communicator>> group = MakeLocalGroup(size);
  std::vector<std::jthread> threads;
  for (auto& comm : group) {
    threads.emplace_back([&fn, c = comm.get()] { fn(*c); });
  }
}

TEST(LocalGroupTest, CollectivesGiveEveryRankTheSameResult) {
  for (int size : {1, 2, 3, 5}) {
    OnRanks(size, [size](Communicator& c) {
      ASSERT_EQ(c.size(), size);
      std::vector<float> f = {1.0f * c.rank(), 2.0f, 0.5f};
      std::vector<double> d = {0.25 * (c.rank() + 1)};
      ASSERT_TRUE(c.AllreduceSum(std::span<float>(f)).ok());
      ASSERT_TRUE(c.AllreduceSum(std::span<double>(d)).ok());
      EXPECT_EQ(f[0], size * (size - 1) / 2.0f);
      EXPECT_EQ(f[1], 2.0f * size);
      EXPECT_EQ(d[0], 0.25 * size * (size + 1) / 2);
      const int32_t mine = 100 + c.rank();
      std::vector<int32_t> all(size);
      ASSERT_TRUE(c.Allgather(std::as_bytes(std::span<const int32_t>(&mine, 1)),
                              std::as_writable_bytes(std::span<int32_t>(all)))
                      .ok());
      for (int r = 0; r < size; ++r) EXPECT_EQ(all[r], 100 + r);
      int64_t value = c.rank() == size - 1 ? 42 : -1;
      ASSERT_TRUE(
          c.Broadcast(std::as_writable_bytes(std::span<int64_t>(&value, 1)),
                      size - 1)
              .ok());
      EXPECT_EQ(value, 42);
    });
  }
}

TEST(LocalGroupTest, BuffersOfDifferentSizesAreAnErrorOnEveryRank) {
  OnRanks(2, [](Communicator& c) {
    std::vector<float> f(c.rank() == 0 ? 3 : 4, 1.0f);
    c.SetActivity("the allreduce of step 9");
    const Status s = c.AllreduceSum(std::span<float>(f));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr("step 9"));
  });
}

TEST(LocalGroupTest, ARankThatLeavesIsNamedAndNobodyWaitsForIt) {
  std::vector<std::unique_ptr<Communicator>> group = MakeLocalGroup(3);
  Status waiting;
  std::jthread rank0([&] {
    std::vector<float> f(2, 1.0f);
    group[0]->SetActivity("the allreduce of step 4");
    waiting = group[0]->AllreduceSum(std::span<float>(f));
  });
  group[2].reset();  // rank 2 dies before or while rank 0 waits
  rank0.join();
  EXPECT_EQ(waiting.code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(waiting.message()), HasSubstr("local rank 2"));
  EXPECT_THAT(std::string(waiting.message()), HasSubstr("step 4"));
  // And every later collective fails the same way, at once.
  std::vector<float> f(2, 1.0f);
  EXPECT_EQ(group[1]->AllreduceSum(std::span<float>(f)).code(),
            StatusCode::kUnavailable);
}

TEST(DataParallelTest, SumGivesTheSumOfTheSharesAndOfTheLossShares) {
  OnRanks(3, [](Communicator& c) {
    DataParallel dp(&c);
    std::vector<float> flat(5 + DataParallel::kReservedFloats);
    for (int i = 0; i < 5; ++i) flat[i] = static_cast<float>(c.rank() * 3 + i);
    Result<StepOutcome> out =
        dp.Sum(7, flat, /*loss=*/1.0f + c.rank(), {}, OkStatus());
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->apply());
    EXPECT_FLOAT_EQ(out->loss, 6.0f);  // 1 + 2 + 3
    for (int i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(flat[i], 9.0f + 3 * i);
  });
}

TEST(DataParallelTest, OneRanksStopOrEndOfInputStopsEveryRankAtTheSameStep) {
  for (bool end : {false, true}) {
    OnRanks(3, [end](Communicator& c) {
      DataParallel dp(&c);
      for (int64_t step = 1;; ++step) {
        std::vector<float> flat(2 + DataParallel::kReservedFloats, 1.0f);
        StepFlags flags;
        // Rank 1 stops (or runs out) at step 5; the others would go on.
        if (c.rank() == 1 && step == 5) {
          (end ? flags.end_of_input : flags.stop) = true;
        }
        Result<StepOutcome> out = dp.Sum(step, flat, 0.5f, flags, OkStatus());
        ASSERT_TRUE(out.ok()) << out.status();
        if (!out->apply()) {
          EXPECT_EQ(step, 5);
          EXPECT_EQ(out->stop, !end);
          EXPECT_EQ(out->end_of_input, end);
          return;
        }
        ASSERT_LT(step, 5);
      }
    });
  }
}

TEST(DataParallelTest, ARanksErrorIsEveryRanksErrorNamingTheRankAndStep) {
  OnRanks(3, [](Communicator& c) {
    DataParallel dp(&c);
    std::vector<float> flat(3 + DataParallel::kReservedFloats, 1.0f);
    const Status local =
        c.rank() == 2
            ? DataLossError("corrupt record in train-1.tfrecord at 512")
            : OkStatus();
    Result<StepOutcome> out = dp.Sum(12, flat, 0.5f, {}, local);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kDataLoss);
    const std::string m(out.status().message());
    EXPECT_THAT(
        m,
        HasSubstr("local rank 2: corrupt record in train-1.tfrecord at 512"));
    EXPECT_THAT(m, HasSubstr("step 12"));
  });
}

TEST(DataParallelTest, AgreeFailsEveryRankWithTheLowestFailingRanksError) {
  OnRanks(3, [](Communicator& c) {
    DataParallel dp(&c);
    Status local = OkStatus();
    if (c.rank() == 1) local = NotFoundError("no shards in /data on host b");
    if (c.rank() == 2) local = InvalidArgumentError("another error");
    const Status s = dp.Agree(local, "loading the data");
    EXPECT_EQ(s.code(), StatusCode::kNotFound);
    EXPECT_THAT(
        std::string(s.message()),
        HasSubstr(
            "local rank 1: no shards in /data on host b (loading the data)"));
    EXPECT_TRUE(dp.Agree(OkStatus(), "nothing").ok());
  });
}

TEST(DataParallelTest, CheckReplicasNamesTheStepAndTheRanksThatDiffer) {
  OnRanks(3, [](Communicator& c) {
    DataParallel dp(&c);
    std::vector<Tensor> params = {Tensor::FromVector<float>({1, 2, 3}),
                                  Tensor::FromVector<float>({4})};
    ASSERT_TRUE(dp.CheckReplicas(10, params).ok());
    if (c.rank() == 2) params[1] = Tensor::FromVector<float>({4.0001f});
    const Status s = dp.CheckReplicas(20, params);
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("step 20: local rank 2 differ"));
  });
}

TEST(DataParallelTest, BroadcastInt64GivesRankZerosValue) {
  OnRanks(2, [](Communicator& c) {
    DataParallel dp(&c);
    int64_t seed = c.rank() == 0 ? 1234 : 0;
    ASSERT_TRUE(dp.BroadcastInt64(&seed, "the seed").ok());
    EXPECT_EQ(seed, 1234);
  });
}

TEST(PlanShardsTest, WholeFilesWhenEveryRankGetsAsManyRecords) {
  const std::vector<std::string> files = {"a", "b", "c", "d"};
  const std::vector<int64_t> counts = {60, 60, 60, 60};
  ShardPlan p = PlanShards(files, counts, true, 2, 1).value();
  EXPECT_EQ(p.kind, ShardKind::kFiles);
  EXPECT_EQ(p.files, (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(p.records, 120);
  // 4 files for 3 ranks: uneven, so records by index (or every N-th
  // record of files that cannot be indexed).
  p = PlanShards(files, counts, true, 3, 2).value();
  EXPECT_EQ(p.kind, ShardKind::kRecordsByIndex);
  EXPECT_EQ(p.files, files);
  EXPECT_EQ(p.records, 80);
  p = PlanShards(files, counts, false, 3, 0).value();
  EXPECT_EQ(p.kind, ShardKind::kEveryNthRecord);
  // Fewer files than ranks.
  p = PlanShards({"a"}, {7}, true, 2, 0).value();
  EXPECT_EQ(p.kind, ShardKind::kRecordsByIndex);
  EXPECT_EQ(p.records, 4);
  EXPECT_EQ(PlanShards({"a"}, {7}, true, 2, 1).value().records, 3);
  // Unequal file sizes that still split evenly.
  p = PlanShards(files, {10, 20, 20, 10}, true, 2, 0).value();
  EXPECT_EQ(p.kind, ShardKind::kFiles);
  EXPECT_FALSE(PlanShards(files, counts, true, 2, 2).ok());
  EXPECT_FALSE(PlanShards(files, {1}, true, 2, 0).ok());
}

}  // namespace
}  // namespace inflow::distributed
