// Copyright 2026 The inflow Authors.
//
// Saver::Save against every failure MemEnv can inject (io/mem_env.h): an
// I/O error at each of its mutating calls in turn, and a crash right after
// each of them (every later call fails, then the power cut of MemEnv's
// crash model). The previous checkpoint must survive both, and a crash
// must leave LatestCheckpoint naming a complete checkpoint.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/saver_crash_util.h"

namespace inflow {
namespace {

using testing::Leftovers;
using testing::StepModel;

const std::string kDir = "/run/ckpt";
const std::string kPath = kDir + "/model.ckpt";
const std::string kStateFile = kDir + "/checkpoint";

std::string Prefix(int64_t step) { return kPath + "-" + std::to_string(step); }

Result<std::optional<std::string>> Latest(MemEnv& env) {
  CheckpointStateOptions options;
  options.env = &env;
  return LatestCheckpoint(kDir, options);
}

// The mutating calls of one Save(2) after a Save(1), each described.
std::vector<std::string> SaveSteps(int max_to_keep) {
  MemEnv env;
  StepModel model(&env, max_to_keep);
  EXPECT_TRUE(model.Save(kPath, 1).ok());
  env.set_log_mutations(true);
  EXPECT_TRUE(model.Save(kPath, 2).ok());
  return env.mutation_log();
}

// One Saver and the env it saved checkpoint 1 in (unless `fresh`).
struct World {
  explicit World(int max_to_keep, bool fresh = false)
      : model(&env, max_to_keep) {
    if (!fresh) {
      EXPECT_TRUE(model.Save(kPath, 1).ok());
      auto state = env.Contents(kStateFile);
      EXPECT_TRUE(state.ok()) << state.status();
      state_before = state.ok() ? *state : "";
    }
  }
  MemEnv env;
  StepModel model;
  std::string state_before;
};

class SaverFaultTest : public ::testing::TestWithParam<int> {
 protected:
  int max_to_keep() const { return GetParam(); }
};

TEST_P(SaverFaultTest, ASaveMakesMutatingCallsToCount) {
  const std::vector<std::string> steps = SaveSteps(max_to_keep());
  // At least: create, append, sync and close two files and the state
  // file, rename them, sync the directory.
  EXPECT_GE(steps.size(), 12u);
  std::string all;
  for (const std::string& s : steps) all += s + "\n";
  EXPECT_NE(all.find("SyncDir " + kDir), std::string::npos) << all;
}

TEST_P(SaverFaultTest, AnIOErrorAtAnyStepFailsTheSaveAndKeepsThePrevious) {
  const std::vector<std::string> steps = SaveSteps(max_to_keep());
  // The call that publishes the new state file (1-based).
  size_t state_rename = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].starts_with("RenameFile ") &&
        steps[i].ends_with(" -> " + kStateFile)) {
      state_rename = i + 1;
    }
  }
  ASSERT_GT(state_rename, 0u) << "no rename onto " << kStateFile;
  for (size_t n = 1; n <= steps.size(); ++n) {
    std::string trace = "I/O error at mutating call ";
    trace.append(std::to_string(n)).append(": ").append(steps[n - 1]);
    SCOPED_TRACE(trace);
    World world(max_to_keep());
    world.env.FailMutation(n, UnavailableError("injected I/O error"));
    Result<std::string> saved = world.model.Save(kPath, 2);
    world.env.ClearFaults();
    EXPECT_FALSE(saved.ok()) << "the Save succeeded";
    if (n > state_rename) {
      // The state file names the new checkpoint already (a directory sync
      // or an eviction failed after it): Save says so, and it stays.
      EXPECT_NE(saved.status().message().find("saved " + Prefix(2)),
                std::string::npos)
          << saved.status();
      auto latest = Latest(world.env);
      ASSERT_TRUE(latest.ok()) << latest.status();
      ASSERT_TRUE(latest->has_value());
      EXPECT_EQ(**latest, Prefix(2));
      EXPECT_EQ(*world.model.RestoreStep(**latest), 2);
      // At most the evicted checkpoint's marker, which the next Saver's
      // first Save acts on (deleting what is left of model.ckpt-1, which
      // the state file no longer lists).
      const std::vector<std::string> left =
          Leftovers(world.env, kDir, "model.ckpt");
      EXPECT_TRUE(left.empty() ||
                  left == std::vector<std::string>{"model.ckpt-1.evicting"})
          << left.size();
      StepModel next(&world.env);
      ASSERT_TRUE(next.saver().Save(kPath, 3, /*write_state=*/false).ok());
      EXPECT_EQ(Leftovers(world.env, kDir, "model.ckpt"),
                std::vector<std::string>{});
      // Evicted (max_to_keep 1) it is gone; listed (5) it stays.
      EXPECT_EQ(world.env.FileExists(kDir + "/model.ckpt-1.index").ok(),
                max_to_keep() > 1);
      continue;
    }
    EXPECT_EQ(*world.env.Contents(kStateFile), world.state_before);
    auto latest = Latest(world.env);
    ASSERT_TRUE(latest.ok()) << latest.status();
    ASSERT_TRUE(latest->has_value());
    EXPECT_EQ(**latest, Prefix(1));
    StepModel fresh(&world.env);
    auto restored = fresh.RestoreStep(Prefix(1));
    ASSERT_TRUE(restored.ok()) << restored.status();
    EXPECT_EQ(*restored, 1);
    EXPECT_EQ(Leftovers(world.env, kDir, "model.ckpt"),
              std::vector<std::string>{});
    // The same Saver saves again once the disk is back.
    ASSERT_TRUE(world.model.Save(kPath, 3).ok());
    EXPECT_EQ(**Latest(world.env), Prefix(3));
  }
}

TEST_P(SaverFaultTest, ACrashAfterAnyStepLeavesACompleteLatestCheckpoint) {
  const std::vector<std::string> steps = SaveSteps(max_to_keep());
  for (size_t n = 0; n <= steps.size(); ++n) {
    std::string trace = "crash after mutating call ";
    trace.append(std::to_string(n));
    if (n > 0) trace.append(": ").append(steps[n - 1]);
    SCOPED_TRACE(trace);
    World world(max_to_keep());
    world.env.FailMutation(n + 1, UnavailableError("power cut"),
                           MemEnv::kSticky);
    Result<std::string> saved = world.model.Save(kPath, 2);
    world.env.ClearFaults();
    world.env.SimulateCrash();
    auto latest = Latest(world.env);
    ASSERT_TRUE(latest.ok()) << latest.status();
    ASSERT_TRUE(latest->has_value()) << "no checkpoint after the crash";
    StepModel fresh(&world.env, max_to_keep());
    auto restored = fresh.RestoreStep(**latest);
    ASSERT_TRUE(restored.ok()) << restored.status();
    EXPECT_EQ(**latest, Prefix(*restored));
    if (saved.ok()) {
      EXPECT_EQ(*restored, 2) << "a Save that returned OK was lost";
    } else {
      EXPECT_TRUE(*restored == 1 || *restored == 2) << *restored;
    }
    // Whatever the crash left behind, the next Save works.
    ASSERT_TRUE(fresh.Save(kPath, 3).ok());
    EXPECT_EQ(**Latest(world.env), Prefix(3));
    EXPECT_EQ(*fresh.RestoreStep(Prefix(3)), 3);
  }
}

TEST_P(SaverFaultTest, ACrashDuringTheFirstSaveLeavesNoneOrIt) {
  MemEnv probe;
  StepModel counter(&probe, max_to_keep());
  ASSERT_TRUE(counter.Save(kPath, 1).ok());
  const uint64_t steps = probe.mutation_count();
  for (uint64_t n = 0; n <= steps; ++n) {
    SCOPED_TRACE("crash after mutating call " + std::to_string(n));
    World world(max_to_keep(), /*fresh=*/true);
    world.env.FailMutation(n + 1, UnavailableError("power cut"),
                           MemEnv::kSticky);
    Result<std::string> saved = world.model.Save(kPath, 1);
    world.env.ClearFaults();
    world.env.SimulateCrash();
    auto latest = Latest(world.env);
    ASSERT_TRUE(latest.ok()) << latest.status();
    if (saved.ok()) {
      ASSERT_TRUE(latest->has_value()) << "a Save that returned OK was lost";
    }
    if (latest->has_value()) {
      EXPECT_EQ(**latest, Prefix(1));
      EXPECT_EQ(*world.model.RestoreStep(**latest), 1);
    }
    StepModel fresh(&world.env, max_to_keep());
    ASSERT_TRUE(fresh.Save(kPath, 2).ok());
    EXPECT_EQ(**Latest(world.env), Prefix(2));
  }
}

TEST(SaverFaultKindTest, EachKindOfCallFailingOnceFailsTheSave) {
  for (MemEnvOp op :
       {MemEnvOp::kNewWritableFile, MemEnvOp::kAppend, MemEnvOp::kSync,
        MemEnvOp::kClose, MemEnvOp::kRenameFile, MemEnvOp::kSyncDir}) {
    SCOPED_TRACE(std::string(MemEnvOpName(op)));
    World world(5);
    world.env.FailNext(op, UnavailableError("injected"));
    EXPECT_TRUE(IsUnavailable(world.model.Save(kPath, 2).status()));
    world.env.ClearFaults();
    EXPECT_EQ(**Latest(world.env), Prefix(1));
  }
}

INSTANTIATE_TEST_SUITE_P(KeepFiveOrOne, SaverFaultTest, ::testing::Values(5, 1),
                         [](const auto& info) {
                           return "MaxToKeep" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace inflow
