// Copyright 2026 The inflow Authors.
//
// Saver::Save killed with SIGKILL at random moments, on the real disk: a
// child process (saver_crash_child) saves in a loop and reports each
// completed step on a pipe; after each kill the directory's
// LatestCheckpoint must restore whole, as the last step the child
// reported or the one after it (killed between replacing the state file
// and reporting), so must every checkpoint the state file lists, and the
// next child saves on in the same directory.
//
// 120 kills; INFLOW_STRESS=long (make stress) runs 2000.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/checkpoint_state.h"

#include "checkpoint/saver_crash_util.h"

namespace inflow {
namespace {

using Clock = std::chrono::steady_clock;

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of its stdout
};

Child Spawn(const std::string& dir, int64_t first_step) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const std::string first = std::to_string(first_step);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC on fd 1
    ::execl(INFLOW_SAVER_CRASH_CHILD, INFLOW_SAVER_CRASH_CHILD, dir.c_str(),
            first.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return {};
  }
  return {pid, fds[0]};
}

// What the parent has read of the child's "STEP\n" reports.
struct Reports {
  std::string pending;          // a partial line
  std::optional<int64_t> last;  // the last step reported
  int count = 0;
  std::optional<Clock::time_point> last_at;
  std::vector<double> intervals;  // seconds between reports
};

// Reads reports until `deadline`, until `until_count` reports in all, or
// to the end of the pipe; false at its end.
bool ReadReports(int fd, Clock::time_point deadline, int until_count,
                 Reports* r) {
  while (r->count < until_count) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return true;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return true;  // time is up
    char buf[256];
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) return false;
    r->pending.append(buf, static_cast<size_t>(n));
    size_t newline;
    while ((newline = r->pending.find('\n')) != std::string::npos) {
      r->last = std::stoll(r->pending.substr(0, newline));
      r->pending.erase(0, newline + 1);
      ++r->count;
      const auto now = Clock::now();
      if (r->last_at) {
        r->intervals.push_back(
            std::chrono::duration<double>(now - *r->last_at).count());
      }
      r->last_at = now;
    }
  }
  return true;
}

int Trials() {
  const char* stress = std::getenv("INFLOW_STRESS");
  return stress != nullptr && std::string(stress) == "long" ? 2000 : 120;
}

TEST(SaverKillTest, AKilledSaveLeavesTheLastReportedCheckpointOrTheNext) {
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("inflow_saver_kill_" + std::to_string(::getpid())))
                              .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const unsigned seed = std::random_device()();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", directory " + dir);
  std::mt19937 rng(seed);
  // Each trial waits for 0, 1 or 2 reports, then kills after a uniform
  // delay of up to one Save's duration (the median seen so far between
  // reports): the kills land in start-up and in every phase of a Save.
  std::uniform_int_distribution<int> reports_first(0, 2);
  std::uniform_real_distribution<double> phase(0.0, 1.0);
  std::vector<double> intervals;
  double save_seconds = 0.02;

  const int trials = Trials();
  std::optional<int64_t> latest_step;  // what the directory holds
  int reported_trials = 0, ahead = 0;
  const auto start = Clock::now();
  for (int trial = 0; trial < trials; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int64_t first = latest_step.value_or(0) + 1;
    Child child = Spawn(dir, first);
    ASSERT_GT(child.pid, 0) << "fork failed";
    Reports reports;
    bool alive = ReadReports(child.out, Clock::now() + std::chrono::seconds(30),
                             reports_first(rng), &reports);
    if (alive) {
      const auto delay = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(save_seconds * phase(rng)));
      alive = ReadReports(child.out, Clock::now() + delay, INT32_MAX, &reports);
    }
    ::kill(child.pid, SIGKILL);
    if (alive) {
      ReadReports(child.out, Clock::now() + std::chrono::seconds(30), INT32_MAX,
                  &reports);
    }
    ::close(child.out);
    int status = 0;
    ASSERT_EQ(::waitpid(child.pid, &status, 0), child.pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the child ended by itself, status " << status;
    intervals.insert(intervals.end(), reports.intervals.begin(),
                     reports.intervals.end());
    if (!intervals.empty()) {
      std::nth_element(intervals.begin(),
                       intervals.begin() + intervals.size() / 2,
                       intervals.end());
      save_seconds = intervals[intervals.size() / 2];
    }
    const std::optional<int64_t> last = reports.last;

    // The last step the child completed, else what was there before.
    const std::optional<int64_t> floor = last ? last : latest_step;
    auto latest = LatestCheckpoint(dir);
    ASSERT_TRUE(latest.ok()) << latest.status();
    if (!latest->has_value()) {
      ASSERT_FALSE(floor.has_value()) << "no checkpoint after step " << *floor;
      continue;
    }
    testing::StepModel model(&Env::Default());
    auto step = model.RestoreStep(**latest);
    ASSERT_TRUE(step.ok()) << step.status();
    EXPECT_EQ(**latest, dir + "/model.ckpt-" + std::to_string(*step));
    const int64_t expected = floor.value_or(0);
    ASSERT_TRUE(*step == expected || *step == expected + 1)
        << "restored step " << *step << ", the child reported "
        << (last ? std::to_string(*last) : "nothing");
    // Every checkpoint the state file lists is whole, too.
    auto state = GetCheckpointState(dir);
    ASSERT_TRUE(state.ok() && state->has_value()) << state.status();
    for (const std::string& path : (*state)->all_model_checkpoint_paths) {
      auto listed = model.RestoreStep(path);
      ASSERT_TRUE(listed.ok()) << path << ": " << listed.status();
      EXPECT_EQ(path, dir + "/model.ckpt-" + std::to_string(*listed));
    }
    if (last) ++reported_trials;
    if (*step == expected + 1) ++ahead;
    latest_step = *step;
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  // Kills must land after saves too, or the test shows little.
  EXPECT_GT(reported_trials, trials / 4);

  // The directory takes the next Save, whose Saver (with no grace period
  // and the real clock) removes every leftover of the killed ones: no
  // temporaries, markers or unreadable data files, and no checkpoint the
  // state file does not list.
  const size_t leftovers_before =
      testing::Leftovers(Env::Default(), dir, "model.ckpt").size();
  testing::StepModel model(&Env::Default(), 3, [](SaverOptions& o) {
    o.now = nullptr;
    o.leftover_grace_seconds = 0;
  });
  auto listed = GetCheckpointState(dir);
  ASSERT_TRUE(listed.ok() && listed->has_value());
  ASSERT_TRUE(model.saver()
                  .RecoverLastCheckpoints((*listed)->all_model_checkpoint_paths)
                  .ok());
  const int64_t next = latest_step.value_or(0) + 1;
  ASSERT_TRUE(model.Save(dir + "/model.ckpt", next).ok());
  auto latest = LatestCheckpoint(dir);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ(*model.RestoreStep(**latest), next);
  EXPECT_EQ(testing::Leftovers(Env::Default(), dir, "model.ckpt"),
            std::vector<std::string>{});
  auto final_state = GetCheckpointState(dir);
  ASSERT_TRUE(final_state.ok() && final_state->has_value());
  const auto& paths = (*final_state)->all_model_checkpoint_paths;
  size_t orphans = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".index")) continue;
    const std::string prefix = dir + "/" + name.substr(0, name.size() - 6);
    if (std::find(paths.begin(), paths.end(), prefix) == paths.end()) {
      ++orphans;
      ADD_FAILURE() << "orphaned checkpoint " << prefix;
    }
  }
  std::printf(
      "%d kills in %.1f s (a Save took %.1f ms, median), %d after at least "
      "one completed save, %d with the state file a step ahead of the "
      "report; %zu leftover files before the last Saver, %zu files and %zu "
      "orphaned checkpoints after it; %lld saves in all\n",
      trials, seconds, save_seconds * 1e3, reported_trials, ahead,
      leftovers_before,
      testing::Leftovers(Env::Default(), dir, "model.ckpt").size(), orphans,
      static_cast<long long>(next));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace inflow
