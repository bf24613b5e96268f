// Copyright 2026 The inflow Authors.
//
// Iterator::Stats, Options and the autotuner: the stages' elements, own
// time and threads, the bottleneck; kAutotune maps sharing the thread
// budget (never computing on more threads than it); an autotuned prefetch
// growing while its consumer waits, within the memory budget; options
// merged along the pipeline.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/data/dataset.h"

#include "dataset_test_util.h"

namespace inflow::data {
namespace {

using testing::All;

// Busy for `us` microseconds of wall time (a map function's work).
void Spin(int64_t us) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

MapFn Work(int64_t us, std::atomic<int>* running = nullptr,
           std::atomic<int>* most = nullptr) {
  return [=](Tuple e) -> Result<Tuple> {
    if (running != nullptr) {
      const int now = running->fetch_add(1) + 1;
      int seen = most->load();
      while (now > seen && !most->compare_exchange_weak(seen, now)) {
      }
    }
    Spin(us);
    if (running != nullptr) running->fetch_sub(1);
    return e;
  };
}

IteratorStats Drained(const Dataset& d, int64_t* count = nullptr) {
  Result<Iterator> it = d.MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  int64_t n = 0;
  for (;;) {
    Result<Tuple> e = it->Next();
    if (!e.ok()) {
      EXPECT_TRUE(IsOutOfRange(e.status())) << e.status();
      break;
    }
    ++n;
  }
  if (count != nullptr) *count = n;
  return it->Stats();
}

TEST(DatasetStatsTest, StatsNameEachStageItsElementsTimeAndTheBottleneck) {
  const Dataset d = Dataset::Range(400)
                        .Map(Work(500), {.num_parallel_calls = 2})
                        .Map(Work(0))
                        .Batch(10);
  const IteratorStats s = Drained(d);
  ASSERT_EQ(s.stages.size(), 4u);
  EXPECT_EQ(s.stages[0].stage, "range (stage 0)");
  EXPECT_EQ(s.stages[1].stage, "map (stage 1)");
  EXPECT_EQ(s.stages[2].stage, "map (stage 2)");
  EXPECT_EQ(s.stages[3].stage, "batch (stage 3)");
  EXPECT_EQ(s.stages[0].elements, 400);
  EXPECT_EQ(s.stages[1].elements, 400);
  EXPECT_EQ(s.stages[2].elements, 400);
  EXPECT_EQ(s.stages[3].elements, 40);
  // The slow map's function ran 400 times 500 us on its 2 threads.
  EXPECT_GE(s.stages[1].seconds, 0.2);
  EXPECT_EQ(s.stages[1].threads, 2);
  EXPECT_EQ(s.stages[1].buffer_size, 4);  // 2 chunks per thread
  EXPECT_GE(s.stages[1].buffer_fill, 0.0);
  EXPECT_LE(s.stages[1].buffer_fill, 1.0);
  EXPECT_EQ(s.stages[0].threads, 0);
  EXPECT_LT(s.stages[3].seconds, s.stages[1].seconds);
  EXPECT_EQ(s.bottleneck, "map (stage 1)");
  EXPECT_GT(s.wall_seconds, 0.1);
  EXPECT_EQ(s.threads, 2);
  // Before any element: no bottleneck.
  Result<Iterator> fresh = d.MakeIterator();
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->Stats().bottleneck, "");
}

TEST(DatasetStatsTest, AutotunedMapsNeverComputeOnMoreThreadsThanTheBudget) {
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  const Dataset d =
      Dataset::Range(600)
          .Map(Work(300, &running, &most), {.num_parallel_calls = kAutotune})
          .Map(Work(100, &running, &most), {.num_parallel_calls = kAutotune})
          .WithOptions({.thread_budget = 2});
  int64_t n = 0;
  const IteratorStats s = Drained(d, &n);
  EXPECT_EQ(n, 600);
  EXPECT_EQ(s.thread_budget, 2);
  EXPECT_LE(most.load(), 2);
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[1].threads, 1);
  EXPECT_EQ(s.stages[2].threads, 1);
  EXPECT_EQ(s.threads, 2);
}

TEST(DatasetStatsTest, TheBusierAutotunedMapGetsMoreOfTheBudget) {
  const Dataset d = Dataset::Range(1500)
                        .Map(Work(400), {.num_parallel_calls = kAutotune})
                        .Map(Work(50), {.num_parallel_calls = kAutotune})
                        .WithOptions({.thread_budget = 4});
  // Read in the steady state, two thirds through: the shares after the
  // last turn of a drained pipeline follow its end, where the first map
  // has run out of input and the second still works (a busy host's
  // slower run made that the last turn's view).
  Result<Iterator> it = d.MakeIterator();
  ASSERT_TRUE(it.ok()) << it.status();
  for (int k = 0; k < 1000; ++k) ASSERT_TRUE(it->Next().ok());
  const IteratorStats s = it->Stats();
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_GE(s.stages[1].threads, 1);
  EXPECT_GE(s.stages[2].threads, 1);
  EXPECT_EQ(s.stages[1].threads + s.stages[2].threads, 4);
  EXPECT_GT(s.stages[1].threads, s.stages[2].threads);
}

TEST(DatasetStatsTest, AnAutotunedPrefetchGrowsWhileItsConsumerWaits) {
  auto make = [](Options o) {
    return Dataset::Range(100).Map(Work(300)).Prefetch(kAutotune).WithOptions(
        o);
  };
  IteratorStats s = Drained(make({}));
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[2].stage, "prefetch (stage 2)");
  EXPECT_GT(s.stages[2].buffer_size, 2);
  EXPECT_LE(s.stages[2].buffer_size, 64);
  // Not within 1 byte of memory, and not with autotune off.
  EXPECT_EQ(Drained(make({.ram_budget = 1})).stages[2].buffer_size, 2);
  EXPECT_EQ(Drained(make({.autotune = false})).stages[2].buffer_size, 2);
  // The same elements in every case.
  EXPECT_EQ(All(make({})), All(Dataset::Range(100)));
}

TEST(DatasetStatsTest, OptionsMergeAlongThePipelineAndBadOnesAreRefused) {
  const Dataset inner =
      Dataset::Range(10).WithOptions({.thread_budget = 3, .autotune = false});
  const Options o =
      inner.Map(Work(0)).WithOptions({.thread_budget = 5}).options();
  EXPECT_EQ(o.thread_budget, 5);
  EXPECT_EQ(o.autotune, false);
  EXPECT_FALSE(o.ram_budget.has_value());
  EXPECT_EQ(inner.options().thread_budget, 3);
  EXPECT_FALSE(Dataset::Range(3).options().thread_budget.has_value());
  // Autotune off: kAutotune is the hardware threads, fixed.
  const IteratorStats s =
      Drained(inner.Map(Work(0), {.num_parallel_calls = kAutotune}));
  EXPECT_EQ(s.thread_budget, 3);
  EXPECT_EQ(
      s.stages.back().threads,
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  // The options stage is no stage of the stats, and keeps the elements.
  EXPECT_EQ(s.stages.size(), 2u);
  EXPECT_EQ(All(inner), All(Dataset::Range(10)));
  Status bad = Dataset::Range(3).WithOptions({.thread_budget = 0}).status();
  EXPECT_TRUE(IsInvalidArgument(bad)) << bad;
  EXPECT_NE(bad.message().find("thread_budget"), std::string::npos) << bad;
  EXPECT_TRUE(IsInvalidArgument(
      Dataset::Range(3).WithOptions({.ram_budget = -1}).status()));
}

}  // namespace
}  // namespace inflow::data
