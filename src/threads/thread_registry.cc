// Copyright 2026 The inflow Authors.

#include "inflow/threads/thread_registry.h"

#include <algorithm>

#include "core/fork_safety.h"

namespace inflow {
namespace {

thread_local ThreadStats* current_thread_stats = nullptr;

}  // namespace

std::string_view ThreadStateName(ThreadState state) {
  switch (state) {
    case ThreadState::kCreated:
      return "created";
    case ThreadState::kRunning:
      return "running";
    case ThreadState::kFinished:
      return "finished";
  }
  return "unknown";
}

ThreadStats::ThreadStats(uint64_t id, std::string name)
    : id_(id), name_(std::move(name)) {}

ThreadRegistry& ThreadRegistry::Global() {
  // Never destroyed: threads may outlive static destruction order.
  static ThreadRegistry* const registry = internal::HeldAcrossFork(
      new ThreadRegistry(), &ThreadRegistry::mu_);  // NOLINT
  return *registry;
}

std::shared_ptr<ThreadStats> ThreadRegistry::Register(std::string name) {
  MutexLock lock(&mu_);
  // Prune entries whose threads are gone, so the list stays as long as the
  // number of live threads however many come and go.
  std::erase_if(entries_, [](const std::weak_ptr<ThreadStats>& w) {
    return w.expired();
  });
  auto stats = std::make_shared<ThreadStats>(next_id_++, std::move(name));
  entries_.push_back(stats);
  return stats;
}

std::vector<ThreadSnapshot> ThreadRegistry::Snapshot() const {
  std::vector<std::shared_ptr<ThreadStats>> live;
  {
    MutexLock lock(&mu_);
    live.reserve(entries_.size());
    for (const auto& w : entries_) {
      if (auto s = w.lock()) live.push_back(std::move(s));
    }
  }
  std::vector<ThreadSnapshot> out;
  out.reserve(live.size());
  for (const auto& s : live) {
    out.push_back(
        {s->id(), s->name(), s->state(), s->runs(), s->errors(), s->blocked()});
  }
  return out;
}

ThreadStats* CurrentThreadStats() { return current_thread_stats; }

namespace internal {
void SetCurrentThreadStats(ThreadStats* stats) { current_thread_stats = stats; }
}  // namespace internal

}  // namespace inflow
