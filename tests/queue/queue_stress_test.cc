// Copyright 2026 The inflow Authors.
//
// Stress: P producers and C consumers on each queue kind, with random
// timeouts, stop requests, DequeueMany/UpTo and a Close (with or without
// cancel) at a random moment. Checks that every element whose enqueue
// succeeded is dequeued exactly once (or drained at the end), that failed
// single enqueues never appear, that a failed EnqueueMany left a prefix of
// its rows, and that nothing is duplicated. On FIFO kinds, also that each
// consumer receives each producer's elements in the order it enqueued them,
// at capacities that exercise the lock-free ring's edges (2, 3, the usual
// 64, and unbounded, where the overflow behind the ring fills up).
//
// Short by default (make test, also under TSan); INFLOW_STRESS=long runs
// more than 10^6 elements per kind.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "queue_test_util.h"

namespace inflow {
namespace {

using namespace inflow::testing;

bool LongRun() {
  const char* env = std::getenv("INFLOW_STRESS");
  return env != nullptr && std::string(env) == "long";
}

// A stop source that a chaos thread fires and its owner renews.
class StopSlot {
 public:
  std::stop_token Token() {
    std::lock_guard<std::mutex> lock(mu_);
    if (source_.stop_requested()) source_ = std::stop_source();
    return source_.get_token();
  }
  void Fire() {
    std::lock_guard<std::mutex> lock(mu_);
    source_.request_stop();
  }

 private:
  std::mutex mu_;
  std::stop_source source_;
};

struct ProducerLog {
  std::vector<int64_t> ok;                  // enqueue succeeded
  std::vector<int64_t> failed;              // single enqueue failed
  std::vector<std::vector<int64_t>> maybe;  // EnqueueMany failed part-way
};

class QueueStress {
 public:
  QueueStress(QueueKind kind, int producers, int consumers,
              int64_t per_producer, uint64_t seed, int64_t capacity = 64,
              int64_t consume_after = 0)
      : kind_(kind),
        producers_(producers),
        consumers_(consumers),
        per_producer_(per_producer),
        seed_(seed),
        consume_after_(consume_after),
        slots_(producers + consumers) {
    QueueOptions o{.capacity = capacity,
                   .dtypes = {DType::kInt64},
                   .shapes = {PartialShape({})}};
    if (kind == QueueKind::kRandomShuffle) o.min_after_dequeue = 8;
    queue_ = *CreateQueue(kind, o);
  }

  Tuple Element(int64_t id, std::mt19937_64& rng) const {
    if (kind_ == QueueKind::kPriority) {
      return {Tensor::Scalar<int64_t>(static_cast<int64_t>(rng() % 1000)),
              Tensor::Scalar<int64_t>(id)};
    }
    return {Tensor::Scalar<int64_t>(id)};
  }
  Tuple Rows(const std::vector<int64_t>& ids, std::mt19937_64& rng) const {
    if (kind_ == QueueKind::kPriority) {
      std::vector<int64_t> p;
      for (size_t i = 0; i < ids.size(); ++i) {
        p.push_back(static_cast<int64_t>(rng() % 1000));
      }
      return {Tensor::FromVector(p), Tensor::FromVector(ids)};
    }
    return {Tensor::FromVector(ids)};
  }
  const Tensor& Ids(const Tuple& t) const { return t.back(); }

  CallOptions Options(std::mt19937_64& rng, StopSlot& slot) {
    CallOptions o;
    switch (rng() % 8) {
      case 0:
        o.timeout = std::chrono::milliseconds(0);
        break;
      case 1:
        o.timeout = std::chrono::milliseconds(1);
        break;
      default:
        break;
    }
    if (rng() % 4 == 0) o.stop = slot.Token();
    return o;
  }

  void Produce(int p) {
    std::mt19937_64 rng(seed_ * 1000 + p);
    ProducerLog& log = logs_[p];
    int64_t next = 0;
    const int64_t base = (int64_t{p} + 1) << 40;
    while (next < per_producer_) {
      const CallOptions options = Options(rng, slots_[p]);
      if (rng() % 3 == 0) {
        const int64_t rows =
            std::min<int64_t>(1 + rng() % 8, per_producer_ - next);
        std::vector<int64_t> ids;
        for (int64_t i = 0; i < rows; ++i) ids.push_back(base + next++);
        const Status s = queue_->EnqueueMany(Rows(ids, rng), options);
        if (s.ok()) {
          log.ok.insert(log.ok.end(), ids.begin(), ids.end());
        } else {
          log.maybe.push_back(ids);
          if (IsCancelled(s) && queue_->IsClosed()) return;
        }
      } else {
        const int64_t id = base + next++;
        ++attempted_;
        const Status s = queue_->Enqueue(Element(id, rng), options);
        if (s.ok()) {
          log.ok.push_back(id);
        } else {
          log.failed.push_back(id);
          if (IsCancelled(s) && queue_->IsClosed()) return;
        }
      }
    }
  }

  void Consume(int c) {
    std::mt19937_64 rng(seed_ * 1000 + 500 + c);
    std::vector<int64_t>& got = received_[c];
    while (attempted_.load() < consume_after_ &&
           producers_done_.load() < producers_) {
      std::this_thread::yield();
    }
    while (true) {
      const CallOptions options = Options(rng, slots_[producers_ + c]);
      const int op = static_cast<int>(rng() % 4);
      Result<Tuple> r = op == 0   ? queue_->DequeueMany(1 + rng() % 16, options)
                        : op == 1 ? queue_->DequeueUpTo(1 + rng() % 16, options)
                                  : queue_->Dequeue(options);
      if (r.ok()) {
        for (int64_t id : Ids(*r).flat<int64_t>()) got.push_back(id);
      } else if (IsOutOfRange(r.status()) && op >= 2) {
        return;  // closed and empty
      } else if (!IsOutOfRange(r.status()) && !IsCancelled(r.status()) &&
                 !IsDeadlineExceeded(r.status())) {
        ADD_FAILURE() << "unexpected " << r.status();
        return;
      }
    }
  }

  // Runs one round; returns the number of elements dequeued.
  int64_t Run() {
    logs_.assign(producers_, {});
    received_.assign(consumers_, {});
    std::atomic<bool> done{false};
    std::vector<std::thread> threads;
    for (int c = 0; c < consumers_; ++c) {
      threads.emplace_back([this, c] { Consume(c); });
    }
    std::vector<std::thread> producers;
    for (int p = 0; p < producers_; ++p) {
      producers.emplace_back([this, p] {
        Produce(p);
        ++producers_done_;
      });
    }
    std::thread chaos([&] {
      std::mt19937_64 rng(seed_);
      while (!done.load()) {
        slots_[rng() % slots_.size()].Fire();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    std::mt19937_64 rng(seed_ + 7);
    // Close early in some rounds, at the end in others.
    if (rng() % 2 == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 20));
      const bool cancel = rng() % 2 == 0;
      const Status s = queue_->Close(cancel);
      EXPECT_TRUE(s.ok() || IsCancelled(s)) << s;
    }
    for (auto& t : producers) t.join();
    const Status s = queue_->Close(rng() % 2 == 0);
    EXPECT_TRUE(s.ok() || IsCancelled(s)) << s;
    for (auto& t : threads) t.join();
    done = true;
    chaos.join();
    // Whatever is left is still in the queue.
    std::vector<int64_t> all;
    while (true) {
      auto r = queue_->DequeueUpTo(1000);
      if (!r.ok()) break;
      for (int64_t id : Ids(*r).flat<int64_t>()) all.push_back(id);
    }
    const int64_t drained = static_cast<int64_t>(all.size());
    if (kind_ == QueueKind::kFIFO || kind_ == QueueKind::kPaddingFIFO) {
      CheckProducerOrder(all);
      for (const auto& v : received_) CheckProducerOrder(v);
    }
    for (const auto& v : received_) all.insert(all.end(), v.begin(), v.end());
    Check(all);
    return static_cast<int64_t>(all.size()) - drained;
  }

  // Ids carry their producer in bits 40 and up and count up from there.
  static void CheckProducerOrder(const std::vector<int64_t>& got) {
    std::map<int64_t, int64_t> last;
    for (int64_t id : got) {
      auto [it, first] = last.try_emplace(id >> 40, id);
      if (!first) {
        ASSERT_LT(it->second, id)
            << "producer " << (id >> 40) << "'s elements left out of order";
        it->second = id;
      }
    }
  }

  void Check(std::vector<int64_t> all) {
    std::sort(all.begin(), all.end());
    const auto dup = std::adjacent_find(all.begin(), all.end());
    ASSERT_EQ(dup, all.end()) << "element " << *dup << " dequeued twice";
    const std::set<int64_t> seen(all.begin(), all.end());
    std::set<int64_t> allowed;
    for (const ProducerLog& log : logs_) {
      for (int64_t id : log.ok) {
        ASSERT_TRUE(seen.count(id)) << "lost element " << id;
        allowed.insert(id);
      }
      for (int64_t id : log.failed) {
        ASSERT_FALSE(seen.count(id)) << "failed enqueue delivered " << id;
      }
      for (const auto& ids : log.maybe) {
        size_t prefix = 0;
        while (prefix < ids.size() && seen.count(ids[prefix])) ++prefix;
        for (size_t i = prefix; i < ids.size(); ++i) {
          ASSERT_FALSE(seen.count(ids[i]))
              << "rows of a failed EnqueueMany are not a prefix";
        }
        allowed.insert(ids.begin(), ids.begin() + prefix);
      }
    }
    ASSERT_EQ(allowed.size(), seen.size()) << "dequeued unknown elements";
  }

 private:
  const QueueKind kind_;
  const int producers_;
  const int consumers_;
  const int64_t per_producer_;
  const uint64_t seed_;
  // Consumers start once producers have tried this many enqueues (or
  // finished), so that a backlog builds up.
  const int64_t consume_after_;
  std::atomic<int64_t> attempted_{0};
  std::atomic<int> producers_done_{0};
  std::vector<StopSlot> slots_;
  std::shared_ptr<QueueInterface> queue_;
  std::vector<ProducerLog> logs_;
  std::vector<std::vector<int64_t>> received_;
};

class QueueStressTest : public ::testing::TestWithParam<QueueKind> {};

INSTANTIATE_TEST_SUITE_P(
    AllKinds, QueueStressTest,
    ::testing::Values(QueueKind::kFIFO, QueueKind::kPaddingFIFO,
                      QueueKind::kRandomShuffle, QueueKind::kPriority),
    [](const auto& info) { return std::string(QueueKindName(info.param)); });

TEST_P(QueueStressTest, EveryEnqueuedElementIsDequeuedOnceOrStillQueued) {
  const int64_t target = LongRun() ? 1'200'000 : 40'000;
  const int64_t per_producer = LongRun() ? 100'000 : 5'000;
  int64_t moved = 0;
  for (uint64_t round = 1; moved < target; ++round) {
    QueueStress stress(GetParam(), 3, 3, per_producer, round);
    moved += stress.Run();
    if (::testing::Test::HasFailure()) return;
  }
  std::printf("%s: %lld elements dequeued\n",
              std::string(QueueKindName(GetParam())).c_str(),
              static_cast<long long>(moved));
}

class FifoStressTest : public ::testing::TestWithParam<QueueKind> {};

INSTANTIATE_TEST_SUITE_P(FifoKinds, FifoStressTest,
                         ::testing::Values(QueueKind::kFIFO,
                                           QueueKind::kPaddingFIFO),
                         [](const auto& info) {
                           return std::string(QueueKindName(info.param));
                         });

TEST_P(FifoStressTest, OrderAndExactlyOnceHoldAtTheLockFreeRingsEdges) {
  // 2 and 3 slots (a power of two and not), and unbounded: a ring of the
  // largest size with the overflow behind it.
  for (const int64_t capacity : {int64_t{2}, int64_t{3}, int64_t{-1}}) {
    const int64_t target = LongRun() ? 300'000 : 12'000;
    const int64_t per_producer = LongRun() ? 50'000 : 4'000;
    // Unbounded: let more than the ring's 4096 slots pile up first.
    const int64_t consume_after = capacity < 0 ? 6'000 : 0;
    int64_t moved = 0;
    for (uint64_t round = 1; moved < target; ++round) {
      QueueStress stress(GetParam(), 3, 3, per_producer, round, capacity,
                         consume_after);
      moved += stress.Run();
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace inflow
