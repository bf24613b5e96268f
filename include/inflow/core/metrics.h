// Copyright 2026 The inflow Authors.
//
// MetricsRegistry: named scalar gauges that can be read while a pipeline
// runs. Producers and batching queues publish TF's fill metric under TF's
// tag ("input_producer/fraction_of_32_full",
// "shuffle_batch/fraction_over_5000_of_5000_full") plus their queue's
// counters; a MetricsRecorder (threads/metrics_recorder.h) samples a
// registry into a JSON-lines time series.
//
//   MetricGroup group = registry.AddGroup(
//       "batch", {{"fraction_of_32_full", [q] { return q->Size() / 32.0; }}});
//   registry.Read("batch/fraction_of_32_full");
//
// Gauges are grouped under a scope. A scope already used by a live group is
// made unique as TF's name scopes are: "batch", "batch_1", "batch_2", ...
// (the first suffix no live group uses), compared without regard to case
// as TF does ("Batch" after "batch" is "Batch_1"). A group unregisters its
// gauges when destroyed, and its scope is then free again (TF never frees
// a name in a graph; a registry outlives many pipelines).
//
// Thread-safe. Gauge functions run on the thread that calls Snapshot() or
// Read(), outside the registry's lock: they must be thread-safe and may
// outlive their group by the length of one such call.

#ifndef INFLOW_CORE_METRICS_H_
#define INFLOW_CORE_METRICS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/mutex.h"

namespace inflow {

struct Gauge {
  std::string name;  // the tag's part after "<scope>/"
  std::function<double()> read;
};

struct MetricSample {
  std::string tag;  // "<scope>/<name>"
  double value = 0;

  friend bool operator==(const MetricSample&, const MetricSample&) = default;
};

class MetricsRegistry;

// A registered scope of gauges. Movable; unregisters on destruction (or
// Reset()). Outlive it by its registry.
class MetricGroup {
 public:
  MetricGroup() = default;
  MetricGroup(MetricGroup&& other) noexcept;
  MetricGroup& operator=(MetricGroup&& other) noexcept;
  ~MetricGroup();

  // The scope the gauges were registered under ("batch_1"); empty for an
  // empty group.
  const std::string& scope() const { return scope_; }
  // Every tag of the group, in registration order.
  std::vector<std::string> tags() const;
  void Reset();

 private:
  friend class MetricsRegistry;
  MetricGroup(MetricsRegistry* registry, uint64_t id, std::string scope,
              std::vector<std::string> names)
      : registry_(registry),
        id_(id),
        scope_(std::move(scope)),
        names_(std::move(names)) {}

  MetricsRegistry* registry_ = nullptr;
  uint64_t id_ = 0;
  std::string scope_;
  std::vector<std::string> names_;
};

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;
  ~MetricsRegistry();

  // The process-wide registry producers and batching use by default.
  static MetricsRegistry& Default();

  // Registers `gauges` under `scope`, or under the first of "scope_1",
  // "scope_2", ... that no live group uses. Gauge names must be unique in
  // the group (a repeated name replaces the earlier one).
  [[nodiscard]] MetricGroup AddGroup(std::string_view scope,
                                     std::vector<Gauge> gauges)
      INFLOW_EXCLUDES(mu_);

  // Every live gauge's current value, sorted by tag.
  std::vector<MetricSample> Snapshot() const INFLOW_EXCLUDES(mu_);
  // The current value of `tag`, or nullopt when no live gauge has it.
  std::optional<double> Read(std::string_view tag) const INFLOW_EXCLUDES(mu_);

 private:
  friend class MetricGroup;
  struct Entry {
    uint64_t group_id;
    std::shared_ptr<const std::function<double()>> read;
  };

  void Remove(uint64_t group_id, const std::string& scope,
              const std::vector<std::string>& names) INFLOW_EXCLUDES(mu_);

  mutable Mutex mu_;
  uint64_t next_id_ INFLOW_GUARDED_BY(mu_) = 1;
  std::map<std::string, Entry, std::less<>> gauges_ INFLOW_GUARDED_BY(mu_);
  // Scopes of live groups, lower-cased (TF compares names so).
  std::set<std::string, std::less<>> live_scopes_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow

#endif  // INFLOW_CORE_METRICS_H_
