// Copyright 2026 The inflow Authors.

#include "inflow/threads/looper_thread.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <latch>
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
  EXPECT_TRUE(coord.Join().ok());
  EXPECT_EQ(runs.load(), 50);
  EXPECT_EQ((*t)->stats().runs(), 50);
  EXPECT_EQ(events, (std::vector<std::string>{"start", "stop"}));
  EXPECT_EQ((*t)->name(), "tight");
}

TEST(LooperThreadTest, TimedLoopRunsAtAFixedRate) {
  constexpr milliseconds kInterval{20};
  Coordinator coord;
  std::vector<Clock::time_point> calls;
  std::mutex mu;
  std::condition_variable called;
  const auto t0 = Clock::now();
  auto t = LooperThread::Loop(&coord, kInterval, [&] {
    std::lock_guard l(mu);
    calls.push_back(Clock::now());
    called.notify_all();
    return OkStatus();
  });
  ASSERT_TRUE(t.ok());
  {
    std::unique_lock l(mu);
    called.wait(l, [&] { return calls.size() >= 4; });
  }
  coord.RequestStop();
  const auto stopped = Clock::now();
  ASSERT_TRUE(coord.Join().ok());
  std::lock_guard l(mu);
  ASSERT_GE(calls.size(), 4u);
  // A loaded machine may delay calls, never advance them: only lower
  // bounds here (that the first call comes at once, however long the
  // interval, is LongIntervalDoesNotDelayStop's). Fixed rate: call k never
  // comes before k intervals after the loop's start, which lies between t0
  // and the first call (a first call delayed after the start, by
  // preemption, does not move the schedule)...
  for (size_t k = 1; k < calls.size(); ++k) {
    EXPECT_GE(calls[k] - t0, kInterval * k - milliseconds(1));
  }
  // ...so there are never more calls than intervals elapsed, plus one.
  EXPECT_LE(calls.size(), static_cast<size_t>((stopped - t0) / kInterval) + 1);
}

TEST(LooperThreadTest, OverrunningCallsCatchUpBackToBack) {
  // The schedule reads a fake clock, which the first call moves 4.5
  // intervals on: it overran, calls 2..5 are overdue and come back to
  // back, and call 6 is due half an interval later. The interval is an
  // hour, far past the test's timeout: a loop that waited after an overrun
  // instead of catching up would never make five calls.
  constexpr auto kInterval = std::chrono::hours(1);
  Coordinator coord;
  std::mutex mu;
  std::condition_variable called;
  Clock::time_point fake = Clock::now();
  int calls = 0;
  LooperOptions options;
  options.now = [&] {
    std::lock_guard l(mu);
    return fake;
  };
  auto t = LooperThread::Loop(
      &coord, kInterval,
      [&] {
        std::lock_guard l(mu);
        if (++calls == 1) fake += kInterval * 4 + kInterval / 2;
        called.notify_all();
        return OkStatus();
      },
      options);
  ASSERT_TRUE(t.ok());
  {
    std::unique_lock l(mu);
    called.wait(l, [&] { return calls >= 5; });
  }
  coord.RequestStop();
  ASSERT_TRUE(coord.Join().ok());
  // The sixth was half an (unfaked) hour away when the stop came.
  EXPECT_EQ(calls, 5);
  EXPECT_EQ((*t)->stats().runs(), 5);
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
  Status s = coord.Join();
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
  Status s = coord.Join();
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
  EXPECT_EQ(coord.Join().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(runs.load(), 0);
}

TEST(LooperThreadTest, CreateRegistersWithoutStarting) {
  Coordinator coord;
  std::latch first_call{1};
  std::atomic<bool> called{false};
  auto t = LooperThread::Create(&coord, milliseconds(5), [&] {
    if (!called.exchange(true)) first_call.count_down();
    return OkStatus();
  });
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE((*t)->started());
  EXPECT_FALSE(called.load());
  ASSERT_TRUE((*t)->Start().ok());
  first_call.wait();
  coord.RequestStop();
  EXPECT_TRUE(coord.Join().ok());
  EXPECT_GE((*t)->stats().runs(), 1);
  EXPECT_FALSE((*t)->IsAlive());
}

TEST(LooperThreadTest, LongIntervalDoesNotDelayStop) {
  // The first call comes at once although the interval is an hour; the
  // next is due an hour later, far past the test's timeout and Join's
  // grace period. The stop comes once the first call ran, when the loop
  // waits for the next one (or is about to, and then sees the stop before
  // waiting): Join returning OK, every thread ended, shows the stop ended
  // that wait.
  Coordinator coord;
  std::latch first_call{1};
  std::atomic<int> calls{0};
  auto t = LooperThread::Loop(&coord, std::chrono::hours(1), [&] {
    if (calls++ == 0) first_call.count_down();
    return OkStatus();
  });
  ASSERT_TRUE(t.ok());
  first_call.wait();
  coord.RequestStop();
  EXPECT_TRUE(coord.Join().ok());
  EXPECT_FALSE((*t)->IsAlive());
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ((*t)->stats().runs(), 1);
}

}  // namespace
}  // namespace inflow
