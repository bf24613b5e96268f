// Copyright 2026 The inflow Authors.
//
// MetricsRegistry: scopes made unique as TF's name scopes (suffixes, case
// ignored), a scope free again once its group is gone, Read / Snapshot,
// and groups destroyed while other threads take snapshots.

#include "inflow/core/metrics.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace inflow {
namespace {

std::vector<Gauge> Constant(const std::string& name, double v) {
  return {{name, [v] { return v; }}};
}

TEST(MetricsRegistryTest, ScopeInUseGetsTheNextFreeSuffix) {
  MetricsRegistry registry;
  MetricGroup a = registry.AddGroup("batch", Constant("x", 1));
  MetricGroup b = registry.AddGroup("batch", Constant("x", 2));
  MetricGroup c = registry.AddGroup("batch", Constant("x", 3));
  EXPECT_EQ(a.scope(), "batch");
  EXPECT_EQ(b.scope(), "batch_1");
  EXPECT_EQ(c.scope(), "batch_2");
  EXPECT_EQ(registry.Read("batch_1/x"), 2);
  EXPECT_EQ(c.tags(), std::vector<std::string>{"batch_2/x"});
}

// In TF's graph mode, two tf.compat.v1.train.batch calls, a
// name_scope("batch_3"), two more batch calls and one named "Batch" put
// their summaries under batch, batch_1, (batch_3), batch_2, batch_4 and
// Batch_5 (TF 2.x, run for this test).
TEST(MetricsRegistryTest, ScopesAreUniqueIgnoringCaseAsTensorFlowNames) {
  MetricsRegistry registry;
  std::vector<MetricGroup> groups;
  groups.push_back(registry.AddGroup("batch", Constant("x", 0)));
  groups.push_back(registry.AddGroup("batch", Constant("x", 0)));
  groups.push_back(registry.AddGroup("batch_3", Constant("x", 0)));
  groups.push_back(registry.AddGroup("batch", Constant("x", 0)));
  groups.push_back(registry.AddGroup("batch", Constant("x", 0)));
  groups.push_back(registry.AddGroup("Batch", Constant("x", 0)));
  std::vector<std::string> scopes;
  for (const MetricGroup& g : groups) scopes.push_back(g.scope());
  EXPECT_EQ(scopes,
            (std::vector<std::string>{"batch", "batch_1", "batch_3", "batch_2",
                                      "batch_4", "Batch_5"}));
}

TEST(MetricsRegistryTest, ScopeIsFreeAgainOnceItsGroupIsGone) {
  MetricsRegistry registry;
  {
    MetricGroup first = registry.AddGroup("batch", Constant("x", 1));
    EXPECT_EQ(registry.Read("batch/x"), 1);
  }
  EXPECT_EQ(registry.Read("batch/x"), std::nullopt);
  EXPECT_TRUE(registry.Snapshot().empty());
  MetricGroup again = registry.AddGroup("batch", Constant("x", 2));
  EXPECT_EQ(again.scope(), "batch");
  EXPECT_EQ(registry.Read("batch/x"), 2);
}

TEST(MetricsRegistryTest, ResetAndMoveAssignmentUnregister) {
  MetricsRegistry registry;
  MetricGroup g = registry.AddGroup("a", Constant("x", 1));
  g.Reset();
  EXPECT_EQ(registry.Read("a/x"), std::nullopt);
  EXPECT_TRUE(g.scope().empty());
  g = registry.AddGroup("b", Constant("x", 1));
  MetricGroup moved = std::move(g);
  EXPECT_EQ(registry.Read("b/x"), 1);  // moving keeps the gauges
  moved = registry.AddGroup("c", Constant("x", 3));
  EXPECT_EQ(registry.Read("b/x"), std::nullopt);  // the old group is gone
  EXPECT_EQ(registry.Read("c/x"), 3);
}

TEST(MetricsRegistryTest, SnapshotIsSortedByTagAndReadsLiveValues) {
  MetricsRegistry registry;
  auto value = std::make_shared<std::atomic<int>>(5);
  MetricGroup b = registry.AddGroup(
      "queue", {{"size", [value] { return double(value->load()); }},
                {"enqueued", [] { return 7.0; }}});
  MetricGroup a = registry.AddGroup("batch", Constant("fill", 0.25));
  EXPECT_EQ(
      registry.Snapshot(),
      (std::vector<MetricSample>{
          {"batch/fill", 0.25}, {"queue/enqueued", 7}, {"queue/size", 5}}));
  value->store(9);
  EXPECT_EQ(registry.Read("queue/size"), 9);
  EXPECT_EQ(registry.Read("queue/missing"), std::nullopt);
  EXPECT_EQ(registry.Read("queue"), std::nullopt);
}

TEST(MetricsRegistryTest, RepeatedNameInAGroupReplacesTheEarlierGauge) {
  MetricsRegistry registry;
  MetricGroup g = registry.AddGroup(
      "s", {{"x", [] { return 1.0; }}, {"x", [] { return 2.0; }}});
  EXPECT_EQ(registry.Read("s/x"), 2);
  EXPECT_EQ(g.tags(), std::vector<std::string>{"s/x"});
  g.Reset();
  EXPECT_TRUE(registry.Snapshot().empty());
}

TEST(MetricsRegistryTest, TagTakenOverFromAnotherGroupLeavesWithTheNewOne) {
  MetricsRegistry registry;
  MetricGroup outer = registry.AddGroup("a", Constant("b/c", 1));
  {
    MetricGroup inner = registry.AddGroup("a/b", Constant("c", 2));
    EXPECT_EQ(registry.Read("a/b/c"), 2);
  }
  // No gauge of a destroyed group stays behind.
  EXPECT_EQ(registry.Read("a/b/c"), std::nullopt);
}

TEST(MetricsRegistryTest, GroupsComeAndGoWhileOtherThreadsSnapshot) {
  MetricsRegistry registry;
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!done.load()) {
        for (const MetricSample& s : registry.Snapshot()) {
          // Every gauge reads state its group's owner shares with it.
          EXPECT_EQ(s.value, 42) << s.tag;
        }
        (void)registry.Read("queue/size");
      }
    });
  }
  for (int i = 0; i < 2000; ++i) {
    auto state = std::make_shared<int>(42);
    MetricGroup g = registry.AddGroup(
        "queue", {{"size", [state] { return double(*state); }},
                  {"other", [state] { return double(*state); }}});
    EXPECT_EQ(g.scope(), "queue");  // the previous one is gone
    // `state` dies here with the group; a snapshot in flight keeps the
    // gauge (and so its copy of the pointer) alive until it returns.
  }
  done = true;
  for (auto& r : readers) r.join();
  EXPECT_TRUE(registry.Snapshot().empty());
}

TEST(MetricsRegistryTest, DefaultIsOneProcessWideRegistry) {
  EXPECT_EQ(&MetricsRegistry::Default(), &MetricsRegistry::Default());
}

}  // namespace
}  // namespace inflow
