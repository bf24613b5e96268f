// Copyright 2026 The inflow Authors.
//
// MakeLocalGroup: ranks as threads of one process. The last rank to reach
// a collective computes it for all of them, writing into every rank's
// buffer while the others wait; the sums are made in rank order, so each
// rank gets the same bits. Host memory is a heap allocation per host of
// the group (ranks_per_host consecutive ranks), its barrier the same
// HostBarrierWait on it that MPI ranks use (src/distributed/host_barrier.h).

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/distributed/communicator.h"

#include "distributed/host_barrier.h"

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
  Group(int size, int ranks_per_host)
      : size_(size), ranks_per_host_(ranks_per_host), slots_(size) {}

  int size() const { return size_; }
  int ranks_per_host() const { return ranks_per_host_; }

  // UNAVAILABLE naming a rank that left, if one has: for waits outside
  // Collective (the host memory's barrier).
  Status CheckLeft(const std::string& activity) INFLOW_EXCLUDES(mu_) {
    // Pairs with Leave's release store: a rank seen to have left is named.
    if (!any_left_.load(std::memory_order_acquire)) return OkStatus();
    MutexLock lock(&mu_);
    return Left(activity);
  }

  // Waits for every rank, then runs `combine` over their contributions
  // once (on the last to arrive). UNAVAILABLE naming a rank that left.
  // `same_size`: the ranks' contributions must have the same length.
  template <typename Combine>
  Status Collective(int rank, Contribution mine, const std::string& activity,
                    Combine combine, bool same_size = true)
      INFLOW_EXCLUDES(mu_) {
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
      if (same_size && c.bytes != mine.bytes) {
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
    // Pairs with CheckLeft's acquire load.
    any_left_.store(true, std::memory_order_release);
    cv_.SignalAll();
  }

 private:
  Status Left(const std::string& activity) const INFLOW_REQUIRES(mu_) {
    return UnavailableError(activity + " cannot complete: local rank " +
                            std::to_string(left_.front()) +
                            " has left the group");
  }

  const int size_;
  const int ranks_per_host_;
  std::atomic<bool> any_left_{false};
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

// One host's shared bytes: a zeroed heap allocation, 64-byte aligned, the
// barrier's words first.
struct Region {
  explicit Region(size_t n)
      : bytes(internal::kBarrierBytes + n),
        memory(static_cast<std::byte*>(
                   std::aligned_alloc(64, (bytes + 63) / 64 * 64)),
               &std::free) {
    if (memory == nullptr) std::abort();
    // Zeroed bytes are the barrier's words at their start, as in the
    // shared memory of MPI ranks.
    std::memset(memory.get(), 0, bytes);
  }
  internal::BarrierWords* words() {
    return reinterpret_cast<internal::BarrierWords*>(memory.get());
  }
  size_t bytes;
  std::unique_ptr<std::byte, decltype(&std::free)> memory;
};

class LocalHostMemory final : public HostMemory {
 public:
  LocalHostMemory(std::shared_ptr<Group> group, int world_rank,
                  std::shared_ptr<Region> region,
                  std::shared_ptr<const std::string> activity)
      : group_(std::move(group)),
        world_rank_(world_rank),
        region_(std::move(region)),
        activity_(std::move(activity)) {}

  int rank() const override { return world_rank_ % size(); }
  int size() const override { return group_->ranks_per_host(); }
  int hosts() const override { return group_->size() / size(); }
  std::span<std::byte> bytes() const override {
    return {region_->memory.get() + internal::kBarrierBytes,
            region_->bytes - internal::kBarrierBytes};
  }

  Status Barrier() override {
    return internal::HostBarrierWait(
        region_->words(), size(), std::chrono::microseconds(200),
        [this] { return group_->CheckLeft(*activity_ + " (host barrier)"); });
  }

  Status AllreduceAcrossHosts(std::span<float> data) override {
    if (hosts() == 1) return OkStatus();
    // A collective of the whole group that sums each local rank's
    // contributions over the hosts, in host order.
    const int per_host = size();
    return group_->Collective(
        world_rank_, {data.data(), data.data(), data.size_bytes()}, *activity_,
        [per_host](const std::vector<Contribution>& slots) {
          for (int l = 0; l < per_host; ++l) {
            const size_t n = slots[l].bytes / sizeof(float);
            std::vector<float> sum(static_cast<const float*>(slots[l].in),
                                   static_cast<const float*>(slots[l].in) + n);
            for (size_t r = l + per_host; r < slots.size(); r += per_host) {
              const float* in = static_cast<const float*>(slots[r].in);
              for (size_t i = 0; i < n; ++i) sum[i] += in[i];
            }
            for (size_t r = l; r < slots.size(); r += per_host) {
              if (n > 0) std::memcpy(slots[r].out, sum.data(), n * 4);
            }
          }
        },
        /*same_size=*/false);
  }

 private:
  std::shared_ptr<Group> group_;
  const int world_rank_;
  std::shared_ptr<Region> region_;
  // The communicator's (SetActivity), shared with it.
  std::shared_ptr<const std::string> activity_;
};

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
          *activity_ + ": allgather of " + std::to_string(mine.size()) +
          " bytes per rank into " + std::to_string(all.size()) + " bytes");
    }
    return group_->Collective(
        rank_, {mine.data(), all.data(), mine.size()}, *activity_,
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
      return InvalidArgumentError(*activity_ + ": broadcast from rank " +
                                  std::to_string(root) + " of " +
                                  std::to_string(size()));
    }
    return group_->Collective(
        rank_, {data.data(), data.data(), data.size()}, *activity_,
        [root](const std::vector<Contribution>& slots) {
          for (size_t r = 0; r < slots.size(); ++r) {
            if (static_cast<int>(r) == root || slots[r].bytes == 0) continue;
            std::memcpy(slots[r].out, slots[root].in, slots[r].bytes);
          }
        });
  }

  Result<std::shared_ptr<HostMemory>> ShareHostMemory(
      size_t bytes, size_t bytes_per_rank) override {
    // The last rank to arrive makes a region per host and hands each rank
    // its host's.
    std::shared_ptr<Region> mine;
    const int per_host = group_->ranks_per_host();
    bytes += bytes_per_rank * static_cast<size_t>(per_host);
    INFLOW_RETURN_IF_ERROR(group_->Collective(
        rank_, {nullptr, &mine, bytes}, *activity_,
        [bytes, per_host](const std::vector<Contribution>& slots) {
          std::shared_ptr<Region> region;
          for (size_t r = 0; r < slots.size(); ++r) {
            if (r % per_host == 0) region = std::make_shared<Region>(bytes);
            *static_cast<std::shared_ptr<Region>*>(slots[r].out) = region;
          }
        }));
    return std::shared_ptr<HostMemory>(std::make_shared<LocalHostMemory>(
        group_, rank_, std::move(mine), activity_));
  }

  void SetActivity(std::string activity) override {
    *activity_ = std::move(activity);
  }

 private:
  template <typename T>
  Status Sum(std::span<T> data) {
    return group_->Collective(rank_,
                              {data.data(), data.data(), data.size_bytes()},
                              *activity_, SumInRankOrder<T>);
  }

  std::shared_ptr<Group> group_;
  const int rank_;
  std::shared_ptr<std::string> activity_ =
      std::make_shared<std::string>("a collective");
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> MakeLocalGroup(int size,
                                                          int ranks_per_host) {
  size = std::clamp(size, 1, 1024);
  if (ranks_per_host < 1 || size % ranks_per_host != 0) {
    ranks_per_host = size;
  }
  auto group = std::make_shared<Group>(size, ranks_per_host);
  std::vector<std::unique_ptr<Communicator>> ranks;
  for (int r = 0; r < size; ++r) {
    ranks.push_back(std::make_unique<LocalCommunicator>(group, r));
  }
  return ranks;
}

}  // namespace inflow::distributed
