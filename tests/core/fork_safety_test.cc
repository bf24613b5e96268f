// Copyright 2026 The inflow Authors.

#include "core/fork_safety.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/mutex.h"
#include "inflow/core/tensor.h"

namespace inflow::internal {
namespace {

// A thread holds a registered lock when another thread calls fork(). The
// holder lets go only when the fork's prepare step asks for the lock (the
// registered lock function tells it), or else once fork() has returned in
// the parent (a parent handler of the test's own). So with the library's
// handlers the fork waits for the lock and the child finds it free; without
// them the child gets a copy locked for ever by a thread it does not have.
struct Signal {
  Mutex mu;
  CondVar cv;
  bool asked = false;     // fork's prepare step wants the lock
  bool returned = false;  // fork() returned in the parent
  bool armed = false;
  void Set(bool Signal::*flag) {
    MutexLock l(&mu);
    if (!armed) return;
    this->*flag = true;
    cv.SignalAll();
  }
};
Signal* const signal = new Signal;  // lives as long as the handlers
Mutex* const held = new Mutex;

TEST(ForkSafetyTest, AChildFindsAMutexFreeThatAnotherThreadHeldAtFork) {
  static const bool registered = [] {
    HoldAcrossFork(
        held,
        [](void* m) {
          signal->Set(&Signal::asked);
          static_cast<Mutex*>(m)->lock();
        },
        [](void* m) { static_cast<Mutex*>(m)->unlock(); });
    return pthread_atfork(
               nullptr, [] { signal->Set(&Signal::returned); }, nullptr) == 0;
  }();
  ASSERT_TRUE(registered);
  {
    MutexLock l(&signal->mu);
    signal->armed = true;
    signal->asked = signal->returned = false;
  }
  std::atomic<bool> holding{false};
  std::thread holder([&] {
    held->lock();
    holding.store(true);
    {
      MutexLock l(&signal->mu);
      while (!signal->asked && !signal->returned) signal->cv.Wait(&signal->mu);
    }
    held->unlock();
  });
  while (!holding.load()) std::this_thread::yield();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: one thread, which must be able to take the lock now.
    const bool free = held->try_lock();
    _exit(free ? 0 : 1);
  }
  ASSERT_GT(pid, 0);
  holder.join();
  {
    MutexLock l(&signal->mu);
    EXPECT_TRUE(signal->asked) << "fork did not ask for the registered lock";
    signal->armed = false;
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child found the lock taken";
  // Free in the parent again too.
  EXPECT_TRUE(held->try_lock());
  held->unlock();
}

// Children forked while another thread makes and drops tensors (taking
// and putting batches of blocks in the shared depots all the time) make
// tensors too, through the same depots, which fork took and released in
// each child: none waits for ever. Each child is given 20 s (it needs
// milliseconds); one that has not ended by then counts as hung.
TEST(ForkSafetyTest, ChildrenAllocateWhileAnotherThreadChurnsTheDepots) {
  std::atomic<bool> stop{false};
  std::atomic<int> rounds{0};
  std::thread churn([&] {
    std::vector<Tensor> made;
    while (!stop.load()) {
      for (int i = 0; i < 300; ++i) {
        made.emplace_back(DType::kUInt8, TensorShape({100}));
        made.emplace_back(DType::kUInt8, TensorShape({3000}));
      }
      made.clear();  // 300 of each back: spills to the depots
      rounds.fetch_add(1);
    }
  });
  while (rounds.load() < 2) std::this_thread::yield();
  constexpr int kChildren = 40;
  int hung = 0;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::vector<Tensor> made;
      for (int i = 0; i < 600; ++i) {
        made.emplace_back(DType::kUInt8, TensorShape({100}));
        made.emplace_back(DType::kUInt8, TensorShape({3000}));
      }
      made.clear();
      _exit(0);
    }
    ASSERT_GT(pid, 0);
    const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    ASSERT_GE(fd, 0);
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 20000);
    close(fd);
    if (ready != 1) {
      ++hung;
      kill(pid, SIGKILL);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (ready != 1) break;  // one is enough to know
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  stop.store(true);
  churn.join();
  EXPECT_EQ(hung, 0) << "a child waited for ever for a lock";
}

}  // namespace
}  // namespace inflow::internal
