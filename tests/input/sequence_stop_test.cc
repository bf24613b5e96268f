// Copyright 2026 The inflow Authors.
//
// OrderedEnqueuer's edges: Stop while workers are blocked, an empty
// Sequence, arguments, and the consumer's own timeout and stop token.

#include <atomic>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/sequence.h"

#include "input/enqueuer_test_util.h"

namespace inflow {
namespace {

using testing::Counter;
using testing::Event;
using testing::Int64At;
using testing::Int64s;
using testing::kBound;
using testing::Within;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Get blocks until `release` is set, or (when `honour_stop`) until the
// enqueuer stops. `entered` counts the Gets that began.
class BlockingSequence : public Sequence {
 public:
  explicit BlockingSequence(bool honour_stop) : honour_stop_(honour_stop) {}
  int64_t size() override { return 100; }
  Result<Tuple> Get(int64_t i, const CallOptions& options) override {
    entered.Add();
    if (!release.Wait(honour_stop_ ? options.stop : std::stop_token())) {
      return CancelledError("stopped while blocked");
    }
    return Int64s({i});
  }

  Counter entered;
  testing::Event release;

 private:
  const bool honour_stop_;
};

TEST(OrderedEnqueuerStopTest, StopReleasesWorkersBlockedInGet) {
  auto sequence = std::make_shared<BlockingSequence>(/*honour_stop=*/true);
  OrderedEnqueuer enqueuer(sequence);
  ASSERT_TRUE(enqueuer.Start(4, 8).ok());
  ASSERT_TRUE(sequence->entered.WaitAtLeast(4));
  // A consumer waiting for batch 0 is released too.
  auto consumer = std::async(std::launch::async,
                             [&] { return enqueuer.Get(Within()).status(); });
  const auto start = Clock::now();
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  EXPECT_LT(Clock::now() - start, kBound);
  EXPECT_FALSE(enqueuer.IsRunning());
  EXPECT_EQ(consumer.get().code(), StatusCode::kCancelled);
  EXPECT_EQ(enqueuer.Get(Within()).status().code(), StatusCode::kCancelled);
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());  // idempotent
}

TEST(OrderedEnqueuerStopTest, StopTimesOutOnAGetThatIgnoresTheToken) {
  auto sequence = std::make_shared<BlockingSequence>(/*honour_stop=*/false);
  auto enqueuer = std::make_unique<OrderedEnqueuer>(
      sequence, OrderedEnqueuerOptions{.name = "stubborn"});
  ASSERT_TRUE(enqueuer->Start(1, 2).ok());
  ASSERT_TRUE(sequence->entered.WaitAtLeast(1));
  const Status s = enqueuer->Stop(milliseconds(50));
  EXPECT_EQ(s.code(), StatusCode::kUnknown) << s;
  EXPECT_NE(s.message().find("stubborn/worker:0"), std::string::npos) << s;
  EXPECT_FALSE(enqueuer->IsRunning());
  // Once Get returns, the destructor joins the worker.
  sequence->release.Set();
  enqueuer.reset();
}

class SizedSequence : public Sequence {
 public:
  explicit SizedSequence(std::vector<int64_t> sizes)
      : sizes_(std::move(sizes)) {}
  int64_t size() override {
    const size_t e = size_calls.fetch_add(1);
    return sizes_[std::min(e, sizes_.size() - 1)];
  }
  Result<Tuple> Get(int64_t i, const CallOptions&) override {
    return Int64s({i});
  }
  void OnEpochEnd() override { epoch_ends.fetch_add(1); }

  std::atomic<size_t> size_calls{0};
  std::atomic<int> epoch_ends{0};

 private:
  const std::vector<int64_t> sizes_;
};

TEST(OrderedEnqueuerStopTest, EmptySequenceFailsStartWithoutSpinning) {
  for (int64_t size : {int64_t{0}, int64_t{-1}}) {
    auto sequence = std::make_shared<SizedSequence>(std::vector{size});
    OrderedEnqueuer enqueuer(sequence);
    EXPECT_EQ(enqueuer.Start(2, 4).code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(enqueuer.IsRunning());
    EXPECT_EQ(sequence->size_calls.load(), 1u);
    EXPECT_EQ(enqueuer.Get(Within()).status().code(),
              StatusCode::kFailedPrecondition);
  }
}

TEST(OrderedEnqueuerStopTest, EmptyLaterEpochEndsTheStreamAfterThePrevious) {
  auto sequence = std::make_shared<SizedSequence>(std::vector<int64_t>{3, 0});
  OrderedEnqueuer enqueuer(sequence);
  ASSERT_TRUE(enqueuer.Start(2, 4).ok());
  for (int64_t i = 0; i < 3; ++i) {
    Result<Tuple> batch = enqueuer.Get(Within());
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(Int64At(*batch, 0), i);
  }
  const Status s = enqueuer.Get(Within()).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("epoch 2"), std::string::npos) << s;
  EXPECT_FALSE(enqueuer.IsRunning());
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  // One OnEpochEnd, one size() per epoch: no spinning on the empty one.
  EXPECT_EQ(sequence->epoch_ends.load(), 1);
  EXPECT_EQ(sequence->size_calls.load(), 2u);
}

TEST(OrderedEnqueuerStopTest, StartChecksItsArgumentsAndRunsOnce) {
  auto sequence = std::make_shared<SizedSequence>(std::vector<int64_t>{4});
  OrderedEnqueuer enqueuer(sequence);
  EXPECT_EQ(enqueuer.Get(Within()).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(enqueuer.Stop().ok());  // never started: nothing to stop
  EXPECT_EQ(enqueuer.Start(0, 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(enqueuer.Start(1, 0).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(enqueuer.Start(1, 4).ok());
  EXPECT_EQ(enqueuer.Start(1, 4).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(enqueuer.Get(Within()).ok());

  OrderedEnqueuer null_sequence(nullptr);
  EXPECT_EQ(null_sequence.Start().code(), StatusCode::kInvalidArgument);
}

TEST(OrderedEnqueuerStopTest, ConsumerTimeoutAndStopLoseNothing) {
  auto sequence = std::make_shared<BlockingSequence>(/*honour_stop=*/true);
  OrderedEnqueuer enqueuer(sequence);
  ASSERT_TRUE(enqueuer.Start(2, 4).ok());
  ASSERT_TRUE(sequence->entered.WaitAtLeast(1));
  EXPECT_EQ(enqueuer.Get(Within(milliseconds(0))).status().code(),
            StatusCode::kDeadlineExceeded);
  EXPECT_EQ(enqueuer.Get(Within(milliseconds(20))).status().code(),
            StatusCode::kDeadlineExceeded);
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_EQ(enqueuer.Get({.stop = stopped.get_token()}).status().code(),
            StatusCode::kCancelled);
  // A stop fired while the consumer waits.
  std::stop_source later;
  auto consumer = std::async(std::launch::async, [&] {
    return enqueuer.Get({.stop = later.get_token()}).status();
  });
  later.request_stop();
  EXPECT_EQ(consumer.get().code(), StatusCode::kCancelled);
  EXPECT_TRUE(enqueuer.IsRunning());
  sequence->release.Set();
  for (int64_t i = 0; i < 5; ++i) {
    Result<Tuple> batch = enqueuer.Get(Within());
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(Int64At(*batch, 0), i);
  }
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());
}

class ThrowingEpochEnd : public Sequence {
 public:
  int64_t size() override { return 2; }
  Result<Tuple> Get(int64_t i, const CallOptions&) override {
    return Int64s({i});
  }
  void OnEpochEnd() override { throw std::runtime_error("no epoch end"); }
};

TEST(OrderedEnqueuerStopTest, OnEpochEndExceptionEndsTheStreamAfterTheEpoch) {
  OrderedEnqueuer enqueuer(std::make_shared<ThrowingEpochEnd>());
  ASSERT_TRUE(enqueuer.Start(2, 2).ok());
  EXPECT_TRUE(enqueuer.Get(Within()).ok());
  EXPECT_TRUE(enqueuer.Get(Within()).ok());
  const Status s = enqueuer.Get(Within()).status();
  EXPECT_EQ(s.code(), StatusCode::kUnknown) << s;
  EXPECT_NE(s.message().find("OnEpochEnd"), std::string::npos) << s;
  EXPECT_NE(s.message().find("no epoch end"), std::string::npos) << s;
  EXPECT_FALSE(enqueuer.IsRunning());
}

}  // namespace
}  // namespace inflow
