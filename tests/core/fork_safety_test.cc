// Copyright 2026 The inflow Authors.

#include "core/fork_safety.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/mutex.h"
#include "inflow/core/tensor.h"

#include "core/sanitizer.h"

namespace inflow::internal {
namespace {

// Ends a forked child at once: no exit handlers, and no sanitizer report
// of the threads the child does not have.
[[noreturn]] void EndChild(int code) {
  syscall(SYS_exit_group, code);
  __builtin_unreachable();
}

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
  // The handlers report to it between Arm and Disarm (other tests fork
  // too).
  void Arm() {
    MutexLock l(&mu);
    armed = true;
    asked = returned = false;
  }
  void Disarm() {
    MutexLock l(&mu);
    armed = false;
  }
};
Signal* const signal = new Signal;  // lives as long as the handlers
Mutex* const held = new Mutex;

// The lock fork's prepare step takes: tells the holder first.
void AskAndLock(void* m) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  signal->Set(&Signal::asked);
  static_cast<Mutex*>(m)->lock();
}
void Unlock(void* m) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  static_cast<Mutex*>(m)->unlock();
}
// Whether `held` is free here (and leaves it so).
bool HeldIsFree() INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  if (!held->try_lock()) return false;
  held->unlock();
  return true;
}
// Takes `held` until fork asks for it or has returned.
void Hold(std::atomic<bool>* holding) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  held->lock();
  holding->store(true);
  {
    MutexLock l(&signal->mu);
    while (!signal->asked && !signal->returned) signal->cv.Wait(&signal->mu);
  }
  held->unlock();
}

TEST(ForkSafetyTest, AChildFindsAMutexFreeThatAnotherThreadHeldAtFork) {
  static const bool registered = [] {
    HoldAcrossFork(held, &AskAndLock, &Unlock);
    return pthread_atfork(
               nullptr, [] { signal->Set(&Signal::returned); }, nullptr) == 0;
  }();
  ASSERT_TRUE(registered);
  signal->Arm();
  std::atomic<bool> holding{false};
  std::thread holder(&Hold, &holding);
  while (!holding.load()) std::this_thread::yield();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child: one thread, which must be able to take the lock now.
    EndChild(HeldIsFree() ? 0 : 1);
  }
  ASSERT_GT(pid, 0);
  holder.join();
  {
    MutexLock l(&signal->mu);
    EXPECT_TRUE(signal->asked) << "fork did not ask for the registered lock";
  }
  signal->Disarm();
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child found the lock taken";
  EXPECT_TRUE(HeldIsFree());  // in the parent again too
}

// An outer registered mutex may be held while a leaf one is taken (the
// metrics registry's removals reach the allocator). A thread holds the
// outer one when fork() begins and, once fork asks for it, takes the leaf
// one before letting go of both: fork must take the outer one first, or
// it would hold the leaf one the holder waits for while waiting for the
// outer one. The holder gives up after 20 s (it needs microseconds).
Signal* const nested = new Signal;
Mutex* const outer = new Mutex;
Mutex* const leaf = new Mutex;

void AskAndLockOuter(void* m) INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  nested->Set(&Signal::asked);
  static_cast<Mutex*>(m)->lock();
}
// Holds `outer` until fork asks for it, then takes `leaf` too; false when
// `leaf` stayed taken for 20 s.
bool HoldOuterThenLeaf(std::atomic<bool>* holding)
    INFLOW_NO_THREAD_SAFETY_ANALYSIS {
  outer->lock();
  holding->store(true);
  {
    MutexLock l(&nested->mu);
    while (!nested->asked && !nested->returned) nested->cv.Wait(&nested->mu);
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool took = false;
  while (!(took = leaf->try_lock()) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  if (took) leaf->unlock();
  outer->unlock();
  return took;
}

TEST(ForkSafetyTest, ForkTakesOuterMutexesBeforeLeafOnes) {
  static const bool registered = [] {
    // The leaf one first: registration order must not decide.
    HoldAcrossFork(leaf);
    HoldAcrossFork(outer, &AskAndLockOuter, &Unlock, ForkLockOrder::kOuter);
    return pthread_atfork(
               nullptr, [] { nested->Set(&Signal::returned); }, nullptr) == 0;
  }();
  ASSERT_TRUE(registered);
  nested->Arm();
  std::atomic<bool> holding{false};
  bool took_leaf = false;
  std::thread holder([&] { took_leaf = HoldOuterThenLeaf(&holding); });
  while (!holding.load()) std::this_thread::yield();
  const pid_t pid = fork();
  if (pid == 0) EndChild(0);
  ASSERT_GT(pid, 0);
  holder.join();
  nested->Disarm();
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(took_leaf) << "fork held the leaf mutex while it waited for "
                            "the outer one";
}

// Children forked while another thread makes and drops tensors (taking
// and putting batches of blocks in the shared depots all the time) make
// tensors too, through the same depots, which fork took and released in
// each child: none waits for ever. Each child is given 20 s (it needs
// milliseconds); one that has not ended by then counts as hung.
TEST(ForkSafetyTest, ChildrenAllocateWhileAnotherThreadChurnsTheDepots) {
  // AddressSanitizer's own allocator is not safe to fork while another
  // thread allocates (its child can wait for ever on the sanitizer's
  // lock); under it, where inflow's caches are off anyway, the children
  // fork while no other thread allocates.
  const bool churning = !kAddressSanitizer;
  std::atomic<bool> stop{false};
  std::atomic<int> rounds{0};
  std::thread churn([&] {
    std::vector<Tensor> made;
    while (churning && !stop.load()) {
      for (int i = 0; i < 300; ++i) {
        made.emplace_back(DType::kUInt8, TensorShape({100}));
        made.emplace_back(DType::kUInt8, TensorShape({3000}));
      }
      made.clear();  // 300 of each back: spills to the depots
      rounds.fetch_add(1);
    }
  });
  if (churning) {
    while (rounds.load() < 2) std::this_thread::yield();
  } else {
    churn.join();
  }
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
      EndChild(0);
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
  if (churn.joinable()) churn.join();
  EXPECT_EQ(hung, 0) << "a child waited for ever for a lock";
}

}  // namespace
}  // namespace inflow::internal
