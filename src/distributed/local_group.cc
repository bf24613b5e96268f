// Copyright 2026 The inflow Authors.
//
// MakeLocalGroup: ranks as threads of one process. The last rank to reach
// a collective computes it for all of them, writing into every rank's
// buffer while the others wait; the sums are made in rank order, so each
// rank gets the same bits.

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/distributed/communicator.h"

namespace inflow::distributed {
namespace {

// What one rank brings to a collective.
struct Contribution {
  const void* in = nullptr;
  void* out = nullptr;
  size_t bytes = 0;
};

class Group {
 public:
  explicit Group(int size) : size_(size), slots_(size) {}

  int size() const { return size_; }

  // Waits for every rank, then runs `combine` over their contributions
  // once (on the last to arrive). UNAVAILABLE naming a rank that left.
  template <typename Combine>
  Status Collective(int rank, Contribution mine, const std::string& activity,
                    Combine combine) INFLOW_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (!left_.empty()) return Left(activity);
    const int64_t generation = generation_;
    slots_[rank] = mine;
    if (++arrived_ < size_) {
      while (generation_ == generation && left_.empty()) cv_.Wait(&mu_);
      if (generation_ == generation) return Left(activity);
      return results_[rank];
    }
    arrived_ = 0;
    Status status = OkStatus();
    for (const Contribution& c : slots_) {
      if (c.bytes != mine.bytes) {
        status = InvalidArgumentError(
            activity + ": the ranks passed buffers of different sizes (" +
            std::to_string(c.bytes) + " and " + std::to_string(mine.bytes) +
            " bytes)");
      }
    }
    if (status.ok()) combine(slots_);
    results_.assign(size_, status);
    ++generation_;
    cv_.SignalAll();
    return status;
  }

  void Leave(int rank) INFLOW_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    left_.push_back(rank);
    cv_.SignalAll();
  }

 private:
  Status Left(const std::string& activity) const INFLOW_REQUIRES(mu_) {
    return UnavailableError(activity + " cannot complete: local rank " +
                            std::to_string(left_.front()) +
                            " has left the group");
  }

  const int size_;
  Mutex mu_;
  CondVar cv_;
  std::vector<Contribution> slots_ INFLOW_GUARDED_BY(mu_);
  std::vector<Status> results_ INFLOW_GUARDED_BY(mu_);
  int arrived_ INFLOW_GUARDED_BY(mu_) = 0;
  int64_t generation_ INFLOW_GUARDED_BY(mu_) = 0;
  std::vector<int> left_ INFLOW_GUARDED_BY(mu_);
};

template <typename T>
void SumInRankOrder(const std::vector<Contribution>& slots) {
  const size_t n = slots[0].bytes / sizeof(T);
  std::vector<T> sum(static_cast<const T*>(slots[0].in),
                     static_cast<const T*>(slots[0].in) + n);
  for (size_t r = 1; r < slots.size(); ++r) {
    const T* in = static_cast<const T*>(slots[r].in);
    for (size_t i = 0; i < n; ++i) sum[i] += in[i];
  }
  for (const Contribution& c : slots) {
    if (n > 0) std::memcpy(c.out, sum.data(), n * sizeof(T));
  }
}

class LocalCommunicator final : public Communicator {
 public:
  LocalCommunicator(std::shared_ptr<Group> group, int rank)
      : group_(std::move(group)), rank_(rank) {}
  ~LocalCommunicator() override { group_->Leave(rank_); }

  int rank() const override { return rank_; }
  int size() const override { return group_->size(); }
  std::string Describe(int rank) const override {
    return "local rank " + std::to_string(rank);
  }

  Status AllreduceSum(std::span<float> data) override {
    return Sum<float>(data);
  }
  Status AllreduceSum(std::span<double> data) override {
    return Sum<double>(data);
  }

  Status Allgather(std::span<const std::byte> mine,
                   std::span<std::byte> all) override {
    if (all.size() != mine.size() * size()) {
      return InvalidArgumentError(
          activity_ + ": allgather of " + std::to_string(mine.size()) +
          " bytes per rank into " + std::to_string(all.size()) + " bytes");
    }
    return group_->Collective(
        rank_, {mine.data(), all.data(), mine.size()}, activity_,
        [](const std::vector<Contribution>& slots) {
          for (const Contribution& to : slots) {
            for (size_t r = 0; r < slots.size(); ++r) {
              if (to.bytes == 0) continue;
              std::memcpy(static_cast<std::byte*>(to.out) + r * to.bytes,
                          slots[r].in, to.bytes);
            }
          }
        });
  }

  Status Broadcast(std::span<std::byte> data, int root) override {
    if (root < 0 || root >= size()) {
      return InvalidArgumentError(activity_ + ": broadcast from rank " +
                                  std::to_string(root) + " of " +
                                  std::to_string(size()));
    }
    return group_->Collective(
        rank_, {data.data(), data.data(), data.size()}, activity_,
        [root](const std::vector<Contribution>& slots) {
          for (size_t r = 0; r < slots.size(); ++r) {
            if (static_cast<int>(r) == root || slots[r].bytes == 0) continue;
            std::memcpy(slots[r].out, slots[root].in, slots[r].bytes);
          }
        });
  }

  void SetActivity(std::string activity) override {
    activity_ = std::move(activity);
  }

 private:
  template <typename T>
  Status Sum(std::span<T> data) {
    return group_->Collective(rank_,
                              {data.data(), data.data(), data.size_bytes()},
                              activity_, SumInRankOrder<T>);
  }

  std::shared_ptr<Group> group_;
  const int rank_;
  std::string activity_ = "a collective";
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> MakeLocalGroup(int size) {
  size = std::clamp(size, 1, 1024);
  auto group = std::make_shared<Group>(size);
  std::vector<std::unique_ptr<Communicator>> ranks;
  for (int r = 0; r < size; ++r) {
    ranks.push_back(std::make_unique<LocalCommunicator>(group, r));
  }
  return ranks;
}

}  // namespace inflow::distributed
