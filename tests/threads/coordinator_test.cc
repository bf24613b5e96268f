// Copyright 2026 The inflow Authors.

#include "inflow/threads/coordinator.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace inflow {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A started thread that runs until its stop token or the coordinator's
// stop fires.
std::shared_ptr<Thread> StartStoppable(Coordinator* coord, std::string name) {
  auto t = std::make_shared<Thread>(
      std::move(name),
      [coord](std::stop_token own) { coord->WaitForStop(std::nullopt, own); });
  EXPECT_TRUE(t->Start().ok());
  return t;
}

// A started thread that ignores every stop until `release` is set.
std::shared_ptr<Thread> StartStubborn(std::string name,
                                      std::atomic<bool>* release) {
  auto t =
      std::make_shared<Thread>(std::move(name), [release](std::stop_token) {
        while (!release->load()) std::this_thread::sleep_for(milliseconds(1));
      });
  EXPECT_TRUE(t->Start().ok());
  return t;
}

TEST(CoordinatorTest, ShouldStopOnlyAfterRequestStop) {
  Coordinator coord;
  EXPECT_FALSE(coord.ShouldStop());
  coord.RequestStop();
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_TRUE(coord.RecordedError().ok());
}

TEST(CoordinatorTest, OutOfRangeIsACleanStop) {
  Coordinator coord;
  EXPECT_TRUE(coord.RequestStop(OutOfRangeError("end of input")).ok());
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_TRUE(coord.RecordedError().ok());
  EXPECT_TRUE(coord.Join().ok());
}

TEST(CoordinatorTest, CleanStopKindsAreConfigurable) {
  Coordinator coord({StatusCode::kOutOfRange, StatusCode::kCancelled});
  EXPECT_TRUE(coord.RequestStop(CancelledError("stop")).ok());
  EXPECT_TRUE(coord.Join().ok());

  Coordinator strict(std::vector<StatusCode>{});
  EXPECT_TRUE(strict.RequestStop(OutOfRangeError("eof")).ok());
  EXPECT_EQ(strict.Join().code(), StatusCode::kOutOfRange);
}

TEST(CoordinatorTest, FirstErrorWinsAndJoinReturnsIt) {
  Coordinator coord;
  EXPECT_TRUE(coord.RequestStop(DataLossError("first")).ok());
  EXPECT_TRUE(coord.RequestStop(InternalError("second")).ok());
  Status s = coord.Join();
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "first");
}

TEST(CoordinatorTest, LaterErrorIsIgnoredWhenTheFirstStopHadNone) {
  Coordinator coord;
  coord.RequestStop();
  EXPECT_TRUE(coord.RequestStop(DataLossError("late")).ok());
  EXPECT_TRUE(coord.RecordedError().ok());
  EXPECT_TRUE(coord.Join().ok());
}

TEST(CoordinatorTest, RequestStopAfterJoinReturnsTheErrorAndRecordsNothing) {
  Coordinator coord;
  coord.RequestStop();
  ASSERT_TRUE(coord.Join().ok());
  EXPECT_TRUE(coord.joined());
  Status s = coord.RequestStop(InvalidArgumentError("after join"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(coord.RecordedError().ok());
  // A clean kind after join is still no error.
  EXPECT_TRUE(coord.RequestStop(OutOfRangeError("eof")).ok());
}

TEST(CoordinatorTest, ClearStopResetsFlagErrorAndJoinedButKeepsThreads) {
  Coordinator coord;
  std::stop_token before = coord.stop_token();
  EXPECT_TRUE(coord.RequestStop(DataLossError("x")).ok());
  EXPECT_TRUE(before.stop_requested());
  ASSERT_FALSE(coord.Join().ok());

  auto t = std::make_shared<Thread>("registered", [](std::stop_token) {});
  coord.RegisterThread(t);
  coord.ClearStop();
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_FALSE(coord.joined());
  EXPECT_TRUE(coord.RecordedError().ok());
  EXPECT_FALSE(coord.stop_token().stop_requested());
  EXPECT_TRUE(before.stop_requested());  // old tokens stay stopped

  // The registered thread survived ClearStop: Join waits for it.
  std::atomic<bool> release{false};
  auto stubborn = StartStubborn("stubborn", &release);
  coord.RegisterThread(stubborn);
  coord.RequestStop();
  Status s = coord.Join({}, milliseconds(10));
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
  EXPECT_NE(s.message().find("stubborn"), std::string::npos);
  release = true;
  stubborn->Join();  // before `release` goes
}

TEST(CoordinatorTest, WaitForStopTimesOutWithoutAStop) {
  Coordinator coord;
  const auto t0 = Clock::now();
  EXPECT_FALSE(coord.WaitForStop(milliseconds(20)));
  EXPECT_GE(Clock::now() - t0, milliseconds(20));
  EXPECT_FALSE(coord.WaitForStop(milliseconds(0)));
}

TEST(CoordinatorTest, WaitForStopWakesOnAStopFromAnotherThread) {
  Coordinator coord;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(milliseconds(10));
    coord.RequestStop();
  });
  EXPECT_TRUE(coord.WaitForStop());
  EXPECT_TRUE(coord.WaitForStop(milliseconds(0)));
}

// The stop token's callbacks (which answer blocked queue calls) have all
// run before a thread waiting for the stop wakes, however long they take
// (issue 12: otherwise a QueueRunner's closer can close the queue first).
TEST(CoordinatorTest, WaitForStopReturnsAfterTheTokensCallbacksRanIssue12) {
  Coordinator coord;
  std::atomic<bool> callback_done{false};
  std::stop_callback slow(coord.stop_token(), [&] {
    std::this_thread::sleep_for(milliseconds(50));
    callback_done = true;
  });
  std::atomic<bool> seen_done{false};
  std::jthread waiter([&] {
    coord.WaitForStop();
    seen_done = callback_done.load();
  });
  std::this_thread::sleep_for(milliseconds(10));
  coord.RequestStop();
  waiter.join();
  EXPECT_TRUE(seen_done.load());
}

TEST(CoordinatorTest,
     TimedWaitForStopIsFalseWhileTheTokensCallbacksRunIssue12) {
  Coordinator coord;
  int seen_inside = -1;
  std::stop_callback during(coord.stop_token(), [&] {
    // Runs inside RequestStop, after ShouldStop() turned true.
    std::thread waiter(
        [&] { seen_inside = coord.WaitForStop(milliseconds(1)) ? 1 : 0; });
    waiter.join();
  });
  coord.RequestStop();
  EXPECT_EQ(seen_inside, 0);
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_TRUE(coord.WaitForStop(milliseconds(1)));
}

TEST(CoordinatorTest, WaitForStopAlsoReturnsWhenTheExtraTokenFires) {
  Coordinator coord;
  std::stop_source extra;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(milliseconds(10));
    extra.request_stop();
  });
  EXPECT_FALSE(coord.WaitForStop(std::nullopt, extra.get_token()));
  EXPECT_FALSE(coord.ShouldStop());
}

TEST(CoordinatorTest, StopTokenAndCallOptionsFireOnRequestStop) {
  Coordinator coord;
  CallOptions options = coord.MakeCallOptions(milliseconds(7));
  ASSERT_TRUE(options.timeout.has_value());
  EXPECT_EQ(*options.timeout, milliseconds(7));
  std::atomic<bool> called{false};
  std::stop_callback cb(options.stop, [&] { called = true; });
  EXPECT_FALSE(called.load());
  coord.RequestStop();
  EXPECT_TRUE(called.load());
  EXPECT_TRUE(options.stop.stop_requested());
}

TEST(CoordinatorTest, StopOnExceptionRecordsAnErrorAndSwallowsIt) {
  Coordinator coord;
  Status s = coord.StopOnException([] { return DataLossError("bad"); });
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_EQ(coord.RecordedError().code(), StatusCode::kDataLoss);
}

TEST(CoordinatorTest, StopOnExceptionTurnsAnExceptionIntoUnknown) {
  Coordinator coord;
  Status s = coord.StopOnException(
      []() -> void { throw std::runtime_error("exploded"); });
  EXPECT_TRUE(s.ok());
  Status recorded = coord.RecordedError();
  EXPECT_EQ(recorded.code(), StatusCode::kUnknown);
  EXPECT_NE(recorded.message().find("exploded"), std::string::npos);
}

TEST(CoordinatorTest, StopOnExceptionLeavesASuccessAlone) {
  Coordinator coord;
  int ran = 0;
  EXPECT_TRUE(coord.StopOnException([&] { ++ran; }).ok());
  EXPECT_TRUE(coord
                  .StopOnException([&] {
                    ++ran;
                    return OkStatus();
                  })
                  .ok());
  EXPECT_EQ(ran, 2);
  EXPECT_FALSE(coord.ShouldStop());
}

TEST(CoordinatorTest, StopOnExceptionOutOfRangeIsCleanStop) {
  Coordinator coord;
  EXPECT_TRUE(
      coord.StopOnException([] { return OutOfRangeError("eof"); }).ok());
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_TRUE(coord.RecordedError().ok());
}

TEST(CoordinatorTest, StopOnExceptionAfterJoinReturnsTheError) {
  Coordinator coord;
  coord.RequestStop();
  ASSERT_TRUE(coord.Join().ok());
  Status s = coord.StopOnException([] { return InternalError("late"); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
}

TEST(CoordinatorTest, JoinWaitsForThreadsThatFinishWithoutAStop) {
  Coordinator coord;
  std::atomic<int> done{0};
  std::vector<std::shared_ptr<Thread>> threads;
  for (int i = 0; i < 3; ++i) {
    threads.push_back(std::make_shared<Thread>(
        "finite" + std::to_string(i), [&done, i](std::stop_token) {
          std::this_thread::sleep_for(milliseconds(5 * (i + 1)));
          done++;
        }));
    ASSERT_TRUE(threads.back()->Start().ok());
  }
  EXPECT_TRUE(coord.Join(threads).ok());
  EXPECT_EQ(done.load(), 3);
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_TRUE(coord.joined());
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
}

TEST(CoordinatorTest, JoinIncludesRegisteredThreadsAndThenForgetsThem) {
  Coordinator coord;
  auto a = StartStoppable(&coord, "a");
  coord.RegisterThread(a);
  coord.RegisterThread(a);  // once only
  coord.RequestStop();
  EXPECT_TRUE(coord.Join().ok());
  EXPECT_FALSE(a->IsAlive());

  // The registered set was cleared: a later join has nothing to wait for.
  coord.ClearStop();
  std::atomic<bool> release{false};
  auto b = StartStubborn("b", &release);
  EXPECT_TRUE(coord.Join({}, milliseconds(0)).ok());
  release = true;
  b->Join();  // before `release` goes
}

TEST(CoordinatorTest, JoinNamesStragglersAfterTheGracePeriod) {
  Coordinator coord;
  std::atomic<bool> release{false};
  auto quick = StartStoppable(&coord, "quick");
  auto slow = StartStubborn("slow-one", &release);
  coord.RequestStop();
  // The quick thread returns on the stop; wait for it rather than count
  // on it returning within the grace period (on a loaded machine it once
  // did not, and was named a straggler).
  quick->Join();
  const auto t0 = Clock::now();
  Status s = coord.Join({quick, slow}, milliseconds(30));
  const auto took = Clock::now() - t0;
  EXPECT_EQ(s.code(), StatusCode::kUnknown);
  EXPECT_NE(s.message().find("slow-one"), std::string::npos);
  EXPECT_EQ(s.message().find("quick"), std::string::npos);
  // No upper bound on `took`: the slow thread runs until `release`, set
  // below, so Join returning at all shows it gave up on it.
  EXPECT_GE(took, milliseconds(30));
  EXPECT_FALSE(quick->IsAlive());
  EXPECT_TRUE(slow->IsAlive());
  release = true;
  slow->Join();  // before `release` goes
}

TEST(CoordinatorTest, RecordedErrorTakesPriorityOverStragglers) {
  Coordinator coord;
  std::atomic<bool> release{false};
  auto slow = StartStubborn("slow", &release);
  EXPECT_TRUE(coord.RequestStop(AbortedError("root cause")).ok());
  Status s = coord.Join({slow}, milliseconds(10));
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  release = true;
  slow->Join();  // before `release` goes
}

TEST(CoordinatorTest, IgnoreLiveThreadsTurnsStragglersIntoOk) {
  Coordinator coord;
  std::atomic<bool> release{false};
  auto slow = StartStubborn("slow", &release);
  coord.RequestStop();
  EXPECT_TRUE(coord.Join({slow}, milliseconds(10), true).ok());
  release = true;
  slow->Join();  // before `release` goes
}

TEST(CoordinatorTest, GracePeriodRunsFromTheStopNotFromJoin) {
  Coordinator coord;
  std::atomic<bool> release{false};
  auto slow = StartStubborn("slow", &release);
  // The stop releases the thread (a callback on its token, not a sleep
  // after it), so that it returns at once after the stop.
  std::stop_callback on_stop(coord.stop_token(), [&] { release = true; });
  std::jthread stopper([&] {
    std::this_thread::sleep_for(milliseconds(300));
    coord.RequestStop();
  });
  // Counted from Join's start, 250 ms of grace would end before the stop;
  // counted from the stop, the thread returns well within it.
  EXPECT_TRUE(coord.Join({slow}, milliseconds(250)).ok());
  EXPECT_FALSE(slow->IsAlive());
}

TEST(CoordinatorTest, JoinReleasesStoppableThreadsPromptly) {
  Coordinator coord;
  std::vector<std::shared_ptr<Thread>> threads;
  for (int i = 0; i < 4; ++i) {
    threads.push_back(StartStoppable(&coord, "worker" + std::to_string(i)));
  }
  std::jthread stopper([&] {
    std::this_thread::sleep_for(milliseconds(10));
    EXPECT_TRUE(coord.RequestStop(DataLossError("crc")).ok());
  });
  Status s = coord.Join(threads, std::chrono::seconds(2));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  for (const auto& t : threads) EXPECT_FALSE(t->IsAlive());
}

TEST(CoordinatorTest, DestructorStopsAndJoinsRegisteredThreads) {
  std::shared_ptr<Thread> t;
  {
    Coordinator coord;
    t = StartStoppable(&coord, "owned");
    coord.RegisterThread(t);
  }
  EXPECT_FALSE(t->IsAlive());
}

TEST(CoordinatorTest, DestructorWaitsForThreadsAJoinGaveUpOn) {
  std::atomic<bool> release{false};
  std::shared_ptr<Thread> t;
  std::jthread releaser;
  {
    Coordinator coord;
    // Uses the coordinator until released, ignoring the stop.
    t = std::make_shared<Thread>("late", [&coord, &release](std::stop_token) {
      while (!release.load()) {
        coord.ShouldStop();
        std::this_thread::sleep_for(milliseconds(1));
      }
      coord.ShouldStop();
    });
    ASSERT_TRUE(t->Start().ok());
    coord.RegisterThread(t);
    coord.RequestStop();
    EXPECT_EQ(coord.Join({}, milliseconds(5)).code(), StatusCode::kUnknown);
    releaser = std::jthread([&release] {
      std::this_thread::sleep_for(milliseconds(30));
      release = true;
    });
  }
  EXPECT_TRUE(release.load());
  EXPECT_FALSE(t->IsAlive());
}

}  // namespace
}  // namespace inflow
