// Copyright 2026 The inflow Authors.

#include "inflow/threads/thread.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "inflow/threads/thread_registry.h"

namespace inflow {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(ThreadTest, RunsBodyOnceAfterStartAndJoins) {
  std::atomic<int> calls{0};
  Thread t("worker", [&](std::stop_token) { calls++; });
  EXPECT_FALSE(t.started());
  EXPECT_FALSE(t.IsAlive());
  ASSERT_TRUE(t.Start().ok());
  t.Join();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_FALSE(t.IsAlive());
  EXPECT_EQ(t.stats().state(), ThreadState::kFinished);
  EXPECT_TRUE(t.exit_status().ok());
}

// pthread_exit inside the body (what Python does to a daemon thread that
// wants the GIL at exit) ends the thread: no abort, and Join returns.
TEST(ThreadTest, PthreadExitInTheBodyEndsTheThreadAndJoinReturns) {
  Thread t("exits", [](std::stop_token) {
    try {
      pthread_exit(nullptr);
    } catch (const std::exception&) {
      // Not a std::exception: the unwinding passes this handler.
    }
  });
  ASSERT_TRUE(t.Start().ok());
  t.Join();
  EXPECT_FALSE(t.IsAlive());
  EXPECT_EQ(t.stats().state(), ThreadState::kFinished);
  EXPECT_TRUE(IsUnknown(t.exit_status())) << t.exit_status();
  EXPECT_NE(t.exit_status().message().find("pthread_exit"), std::string::npos)
      << t.exit_status();
}

TEST(ThreadTest, SecondStartIsFailedPrecondition) {
  Thread t("worker", [](std::stop_token) {});
  ASSERT_TRUE(t.Start().ok());
  EXPECT_EQ(t.Start().code(), StatusCode::kFailedPrecondition);
}

TEST(ThreadTest, NeverStartedThreadJoinsAtOnceAndIsNotAlive) {
  Thread t("idle", [](std::stop_token) {});
  t.Join();
  EXPECT_TRUE(t.WaitUntil(Clock::now()));
  EXPECT_FALSE(t.IsAlive());
  EXPECT_EQ(t.stats().state(), ThreadState::kCreated);
}

TEST(ThreadTest, WaitUntilTimesOutWhileBodyRunsThenSeesItReturn) {
  Thread t("sleeper", [](std::stop_token stop) {
    while (!stop.stop_requested()) std::this_thread::sleep_for(milliseconds(1));
  });
  ASSERT_TRUE(t.Start().ok());
  EXPECT_FALSE(t.WaitUntil(Clock::now() + milliseconds(20)));
  EXPECT_TRUE(t.IsAlive());
  t.RequestStop();
  EXPECT_TRUE(t.WaitUntil(Clock::now() + std::chrono::seconds(5)));
  EXPECT_FALSE(t.IsAlive());
}

TEST(ThreadTest, DestructorStopsAndJoinsARunningBody) {
  std::atomic<bool> returned{false};
  {
    Thread t("looping", [&](std::stop_token stop) {
      while (!stop.stop_requested()) {
        std::this_thread::sleep_for(milliseconds(1));
      }
      returned = true;
    });
    ASSERT_TRUE(t.Start().ok());
  }
  EXPECT_TRUE(returned.load());
}

TEST(ThreadTest, ExceptionInBodyBecomesUnknownExitStatusAndAnError) {
  Thread t("thrower",
           [](std::stop_token) { throw std::runtime_error("boom"); });
  ASSERT_TRUE(t.Start().ok());
  t.Join();
  EXPECT_EQ(t.exit_status().code(), StatusCode::kUnknown);
  EXPECT_NE(t.exit_status().message().find("boom"), std::string::npos);
  EXPECT_EQ(t.stats().errors(), 1);
}

TEST(ThreadTest, OsThreadNameIsTheFirst15BytesOfTheName) {
  std::string seen;
  Thread t("input/enqueue:12345", [&](std::stop_token) {
    char buf[32] = {};
    pthread_getname_np(pthread_self(), buf, sizeof(buf));
    seen = buf;
  });
  ASSERT_TRUE(t.Start().ok());
  t.Join();
  EXPECT_EQ(seen, "input/enqueue:1");
  EXPECT_EQ(t.name(), "input/enqueue:12345");
}

// Linux keeps a niceness per thread: raising it in one thread leaves the
// others' (here the test's own) alone; it clamps at 19.
TEST(ThreadTest, AddCurrentThreadNicenessRaisesOnlyTheCallingThread) {
  const int base = CurrentThreadNiceness();
  int after_3 = -100, after_all = -100;
  Status more, too_much, negative;
  Thread t("nice", [&](std::stop_token) {
    more = AddCurrentThreadNiceness(3);
    after_3 = CurrentThreadNiceness();
    too_much = AddCurrentThreadNiceness(19);
    after_all = CurrentThreadNiceness();
    negative = AddCurrentThreadNiceness(-1);
  });
  ASSERT_TRUE(t.Start().ok());
  t.Join();
  ASSERT_TRUE(more.ok()) << more;
  EXPECT_EQ(after_3, std::min(base + 3, 19));
  ASSERT_TRUE(too_much.ok()) << too_much;
  EXPECT_EQ(after_all, 19);
  EXPECT_EQ(negative.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AddCurrentThreadNiceness(20).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CurrentThreadNiceness(), base);
}

TEST(ThreadTest, ConcurrentJoinsAllReturn) {
  Thread t("short", [](std::stop_token) {
    std::this_thread::sleep_for(milliseconds(5));
  });
  ASSERT_TRUE(t.Start().ok());
  std::jthread a([&] { t.Join(); });
  std::jthread b([&] { t.Join(); });
  a.join();
  b.join();
  EXPECT_FALSE(t.IsAlive());
}

TEST(ThreadRegistryTest, ListsLiveThreadsWithCountersAndForgetsDeadOnes) {
  auto find = [](uint64_t id) -> std::optional<ThreadSnapshot> {
    for (const auto& s : ThreadRegistry::Global().Snapshot()) {
      if (s.id == id) return s;
    }
    return std::nullopt;
  };
  uint64_t id = 0;
  {
    Thread t("counted", [](std::stop_token) {
      ThreadStats* stats = CurrentThreadStats();
      ASSERT_NE(stats, nullptr);
      stats->AddRun();
      stats->AddRun();
      stats->AddError();
      ScopedBlockedTimer blocked;
      std::this_thread::sleep_for(milliseconds(2));
    });
    id = t.stats().id();
    auto before = find(id);
    ASSERT_TRUE(before.has_value());
    EXPECT_EQ(before->name, "counted");
    EXPECT_EQ(before->state, ThreadState::kCreated);
    ASSERT_TRUE(t.Start().ok());
    t.Join();
    auto after = find(id);
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(after->state, ThreadState::kFinished);
    EXPECT_EQ(after->runs, 2);
    EXPECT_EQ(after->errors, 1);
    EXPECT_GE(after->blocked, milliseconds(2));
  }
  EXPECT_FALSE(find(id).has_value());
}

TEST(ThreadRegistryTest, IdsAreUniqueAndIncreasing) {
  ThreadRegistry registry;
  auto a = registry.Register("a");
  auto b = registry.Register("b");
  EXPECT_LT(a->id(), b->id());
  auto snap = registry.Snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].name, "a");
  EXPECT_EQ(snap[1].name, "b");
}

TEST(ThreadRegistryTest, BlockedTimerOffInflowThreadsIsANoOp) {
  EXPECT_EQ(CurrentThreadStats(), nullptr);
  ScopedBlockedTimer blocked;  // must not crash
}

TEST(ThreadRegistryTest, StateNames) {
  EXPECT_EQ(ThreadStateName(ThreadState::kCreated), "created");
  EXPECT_EQ(ThreadStateName(ThreadState::kRunning), "running");
  EXPECT_EQ(ThreadStateName(ThreadState::kFinished), "finished");
}

}  // namespace
}  // namespace inflow
