// Copyright 2026 The inflow Authors.
//
// Helpers for the enqueuer tests: bounded waits on counters (the tests
// synchronise on events, never on sleeps), seeded delays that reorder the
// workers' completions, and int64 scalar batches.

#ifndef INFLOW_TESTS_INPUT_ENQUEUER_TEST_UTIL_H_
#define INFLOW_TESTS_INPUT_ENQUEUER_TEST_UTIL_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "inflow/core/call_options.h"
#include "inflow/core/tensor.h"

namespace inflow::testing {

// Bound on every wait: a hang fails the test instead of blocking ctest.
// Generous, for a machine shared with other builds.
inline constexpr std::chrono::seconds kBound{60};

inline CallOptions Within(std::chrono::milliseconds timeout = kBound) {
  return CallOptions{.timeout = timeout};
}

// A counter that threads bump and the test waits on.
class Counter {
 public:
  void Add(int64_t n = 1) {
    std::lock_guard lock(mu_);
    value_ += n;
    cv_.notify_all();
  }
  int64_t value() const {
    std::lock_guard lock(mu_);
    return value_;
  }
  // True once value() >= target; false when `bound` passed first.
  bool WaitAtLeast(int64_t target,
                   std::chrono::milliseconds bound = kBound) const {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return value_ >= target; });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  int64_t value_ = 0;
};

// A one-shot event a blocked thread waits for. Wait(stop) also ends when
// `stop` fires (it returns false then, or when the bound passes).
class Event {
 public:
  void Set() {
    std::lock_guard lock(mu_);
    set_ = true;
    cv_.notify_all();
  }
  bool Wait(std::stop_token stop = {},
            std::chrono::milliseconds bound = kBound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, stop, bound, [&] { return set_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool set_ = false;
};

// SplitMix64: a seeded, repeatable hash.
inline uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Yields the CPU a repeatable number of times in [0, max_yields), drawn
// from (seed, a, b): a delay that differs from batch to batch, so that
// workers finish out of order, without a clock.
inline void YieldDelay(uint64_t seed, uint64_t a, uint64_t b, int max_yields) {
  if (max_yields <= 0) return;
  const uint64_t n = Mix(seed ^ Mix(a ^ Mix(b))) % uint64_t(max_yields);
  for (uint64_t k = 0; k < n; ++k) std::this_thread::yield();
}

inline Tuple Int64s(const std::vector<int64_t>& values) {
  Tuple t;
  for (int64_t v : values) t.push_back(Tensor::Scalar<int64_t>(v));
  return t;
}
inline int64_t Int64At(const Tuple& t, size_t i) {
  return t.at(i).data<int64_t>()[0];
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_INPUT_ENQUEUER_TEST_UTIL_H_
