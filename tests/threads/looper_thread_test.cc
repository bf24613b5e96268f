// Copyright 2026 The inflow Authors.

#include "inflow/threads/looper_thread.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace inflow {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(LooperThreadTest, RejectsMissingCoordinatorTargetOrBadInterval) {
  Coordinator coord;
  auto noop = [] { return OkStatus(); };
  EXPECT_EQ(LooperThread::Create(nullptr, std::nullopt, noop).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(LooperThread::Create(&coord, std::nullopt, nullptr).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(LooperThread::Create(&coord, milliseconds(0), noop).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(LooperThreadTest, TightLoopRunsUntilStopThenCallsStopLoop) {
  Coordinator coord;
  std::atomic<int> runs{0};
  std::vector<std::string> events;
  std::mutex mu;
  LooperOptions options;
  options.name = "tight";
  options.start_loop = [&] {
    std::lock_guard l(mu);
    events.push_back("start");
    return OkStatus();
  };
  options.stop_loop = [&] {
    std::lock_guard l(mu);
    events.push_back("stop");
    return OkStatus();
  };
  auto t = LooperThread::Loop(
      &coord, std::nullopt,
      [&] {
        if (++runs == 50) coord.RequestStop();
        return OkStatus();
      },
      options);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(coord.Join({}, std::chrono::seconds(5)).ok());
  EXPECT_EQ(runs.load(), 50);
  EXPECT_EQ((*t)->stats().runs(), 50);
  EXPECT_EQ(events, (std::vector<std::string>{"start", "stop"}));
  EXPECT_EQ((*t)->name(), "tight");
}

TEST(LooperThreadTest, TimedLoopRunsFirstAtOnceThenAtAFixedRate) {
  constexpr milliseconds kInterval{20};
  Coordinator coord;
  std::vector<Clock::time_point> calls;
  std::mutex mu;
  const auto t0 = Clock::now();
  auto t = LooperThread::Loop(&coord, kInterval, [&] {
    std::lock_guard l(mu);
    calls.push_back(Clock::now());
    return OkStatus();
  });
  ASSERT_TRUE(t.ok());
  const auto give_up = t0 + std::chrono::seconds(10);
  for (;;) {
    {
      std::lock_guard l(mu);
      if (calls.size() >= 4 || Clock::now() > give_up) break;
    }
    std::this_thread::sleep_for(milliseconds(1));
  }
  coord.RequestStop();
  const auto stopped = Clock::now();
  ASSERT_TRUE(coord.Join({}, std::chrono::seconds(5)).ok());
  std::lock_guard l(mu);
  ASSERT_GE(calls.size(), 4u);
  // Generous: a loaded machine may delay calls, never advance them.
  EXPECT_LT(calls[0] - t0, std::chrono::seconds(1));
  // Fixed rate: call k never comes before k intervals after the loop's
  // start, which lies between t0 and the first call (a first call delayed
  // after the start, by preemption, does not move the schedule; measuring
  // from calls[0] then failed on a loaded machine)...
  for (size_t k = 1; k < calls.size(); ++k) {
    EXPECT_GE(calls[k] - t0, kInterval * k - milliseconds(1));
  }
  // ...so there are never more calls than intervals elapsed, plus one.
  EXPECT_LE(calls.size(), static_cast<size_t>((stopped - t0) / kInterval) + 1);
}

TEST(LooperThreadTest, OverrunningCallsCatchUpBackToBack) {
  Coordinator coord;
  std::mutex mu;
  std::vector<Clock::time_point> starts;
  Clock::time_point slow_end;
  auto t = LooperThread::Loop(&coord, milliseconds(100), [&] {
    std::unique_lock l(mu);
    starts.push_back(Clock::now());
    if (starts.size() == 1) {
      // Five intervals long: calls 2..5 are overdue when it returns.
      l.unlock();
      std::this_thread::sleep_for(milliseconds(500));
      l.lock();
      slow_end = Clock::now();
    }
    return OkStatus();
  });
  ASSERT_TRUE(t.ok());
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  for (;;) {
    {
      std::lock_guard l(mu);
      if (starts.size() >= 5 || Clock::now() > give_up) break;
    }
    std::this_thread::sleep_for(milliseconds(1));
  }
  coord.RequestStop();
  ASSERT_TRUE(coord.Join({}, std::chrono::seconds(5)).ok());
  std::lock_guard l(mu);
  ASSERT_GE(starts.size(), 5u);
  // Back to back, not one interval apart (that would take 400 ms).
  EXPECT_LT(starts[4] - slow_end, milliseconds(200));
}

TEST(LooperThreadTest, ErrorStopsTheCoordinatorAndSkipsStopLoop) {
  Coordinator coord;
  std::atomic<bool> stop_loop_ran{false};
  LooperOptions options;
  options.stop_loop = [&] {
    stop_loop_ran = true;
    return OkStatus();
  };
  std::atomic<int> runs{0};
  auto t = LooperThread::Loop(
      &coord, std::nullopt,
      [&]() -> Status {
        if (++runs == 3) return DataLossError("bad record");
        return OkStatus();
      },
      options);
  ASSERT_TRUE(t.ok());
  Status s = coord.Join({}, std::chrono::seconds(5));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(runs.load(), 3);
  EXPECT_FALSE(stop_loop_ran.load());
  EXPECT_EQ((*t)->stats().errors(), 1);
}

TEST(LooperThreadTest, ExceptionFromTargetIsRecordedAsUnknown) {
  Coordinator coord;
  auto t = LooperThread::Loop(&coord, milliseconds(1), []() -> Status {
    throw std::logic_error("looper bug");
  });
  ASSERT_TRUE(t.ok());
  Status s = coord.Join({}, std::chrono::seconds(5));
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
  EXPECT_NE(s.message().find("looper bug"), std::string::npos);
}

TEST(LooperThreadTest, StartLoopErrorSkipsTheLoop) {
  Coordinator coord;
  std::atomic<int> runs{0};
  LooperOptions options;
  options.start_loop = [] { return FailedPreconditionError("not ready"); };
  auto t = LooperThread::Loop(
      &coord, std::nullopt,
      [&] {
        runs++;
        return OkStatus();
      },
      options);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(coord.Join({}, std::chrono::seconds(5)).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(runs.load(), 0);
}

TEST(LooperThreadTest, CreateRegistersWithoutStarting) {
  Coordinator coord;
  auto t =
      LooperThread::Create(&coord, milliseconds(5), [] { return OkStatus(); });
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE((*t)->started());
  ASSERT_TRUE((*t)->Start().ok());
  std::this_thread::sleep_for(milliseconds(12));
  coord.RequestStop();
  EXPECT_TRUE(coord.Join({}, std::chrono::seconds(5)).ok());
  EXPECT_GE((*t)->stats().runs(), 1);
  EXPECT_FALSE((*t)->IsAlive());
}

TEST(LooperThreadTest, LongIntervalDoesNotDelayStop) {
  Coordinator coord;
  auto t = LooperThread::Loop(&coord, std::chrono::hours(1),
                              [] { return OkStatus(); });
  ASSERT_TRUE(t.ok());
  std::this_thread::sleep_for(milliseconds(5));
  const auto t0 = Clock::now();
  coord.RequestStop();
  EXPECT_TRUE(coord.Join({}, std::chrono::seconds(5)).ok());
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ((*t)->stats().runs(), 1);
}

}  // namespace
}  // namespace inflow
