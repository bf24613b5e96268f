// Copyright 2026 The inflow Authors.

#include "inflow/core/metrics.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "core/fork_safety.h"

namespace inflow {
namespace {

// ASCII lower case, as Python's str.lower() on TF's op names.
std::string Lower(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

}  // namespace

MetricGroup::MetricGroup(MetricGroup&& other) noexcept
    : registry_(std::exchange(other.registry_, nullptr)),
      id_(other.id_),
      scope_(std::move(other.scope_)),
      names_(std::move(other.names_)) {}

MetricGroup& MetricGroup::operator=(MetricGroup&& other) noexcept {
  if (this != &other) {
    Reset();
    registry_ = std::exchange(other.registry_, nullptr);
    id_ = other.id_;
    scope_ = std::move(other.scope_);
    names_ = std::move(other.names_);
  }
  return *this;
}

MetricGroup::~MetricGroup() { Reset(); }

std::vector<std::string> MetricGroup::tags() const {
  std::vector<std::string> tags;
  tags.reserve(names_.size());
  for (const std::string& name : names_) tags.push_back(scope_ + "/" + name);
  return tags;
}

void MetricGroup::Reset() {
  if (registry_ == nullptr) return;
  std::exchange(registry_, nullptr)->Remove(id_, scope_, names_);
  names_.clear();
  scope_.clear();
}

MetricsRegistry::~MetricsRegistry() = default;

MetricsRegistry& MetricsRegistry::Default() {
  // Outer: a removal may drop the last reference to a queue, whose
  // elements go back to the allocator under this lock.
  static MetricsRegistry* const registry =
      internal::HeldAcrossFork(new MetricsRegistry, &MetricsRegistry::mu_,
                               internal::ForkLockOrder::kOuter);
  return *registry;
}

MetricGroup MetricsRegistry::AddGroup(std::string_view scope,
                                      std::vector<Gauge> gauges) {
  MutexLock lock(&mu_);
  std::string unique(scope);
  std::string key = Lower(unique);
  for (int i = 1; live_scopes_.contains(key); ++i) {
    unique = std::string(scope) + "_" + std::to_string(i);
    key = Lower(unique);
  }
  const uint64_t id = next_id_++;
  live_scopes_.insert(std::move(key));
  std::vector<std::string> names;
  for (Gauge& gauge : gauges) {
    auto read =
        std::make_shared<const std::function<double()>>(std::move(gauge.read));
    auto [it, inserted] = gauges_.insert_or_assign(unique + "/" + gauge.name,
                                                   Entry{id, std::move(read)});
    (void)it;
    // A repeated name in this group replaces the earlier gauge; a tag of
    // another group (names with '/') is taken over, and so removed with
    // this group.
    if (inserted ||
        std::find(names.begin(), names.end(), gauge.name) == names.end()) {
      names.push_back(std::move(gauge.name));
    }
  }
  return MetricGroup(this, id, std::move(unique), std::move(names));
}

void MetricsRegistry::Remove(uint64_t group_id, const std::string& scope,
                             const std::vector<std::string>& names) {
  MutexLock lock(&mu_);
  for (const std::string& name : names) {
    auto it = gauges_.find(scope + "/" + name);
    if (it != gauges_.end() && it->second.group_id == group_id) {
      gauges_.erase(it);
    }
  }
  live_scopes_.erase(Lower(scope));
}

std::vector<MetricSample> MetricsRegistry::Snapshot() const {
  std::vector<
      std::pair<std::string, std::shared_ptr<const std::function<double()>>>>
      reads;
  {
    MutexLock lock(&mu_);
    reads.reserve(gauges_.size());
    for (const auto& [tag, entry] : gauges_)
      reads.emplace_back(tag, entry.read);
  }
  std::vector<MetricSample> samples;
  samples.reserve(reads.size());
  for (auto& [tag, read] : reads) {
    samples.push_back({std::move(tag), (*read)()});
  }
  return samples;
}

std::optional<double> MetricsRegistry::Read(std::string_view tag) const {
  std::shared_ptr<const std::function<double()>> read;
  {
    MutexLock lock(&mu_);
    auto it = gauges_.find(tag);
    if (it == gauges_.end()) return std::nullopt;
    read = it->second.read;
  }
  return (*read)();
}

}  // namespace inflow
