// Copyright 2026 The inflow Authors.
//
// Train() on a MemEnv: a whole run (data, checkpoints, events, summary)
// in memory, and what a power cut after it leaves.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/io/env.h"
#include "inflow/io/mem_env.h"
#include "inflow/summary/events_reader.h"
#include "inflow/train/trainer.h"

#include "trainer_test_data.h"

namespace inflow {
namespace {

using testing::MemEnvOptions;
using testing::WriteMemEnvData;

TEST(TrainerMemEnvTest, AWholeRunReadsAndWritesOnlyThroughTheEnv) {
  MemEnv env;
  WriteMemEnvData(env);
  Result<TrainSummary> s = Train(MemEnvOptions(env));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->steps, 10);
  EXPECT_EQ(s->checkpoint, "/inflow-mem/ckpt/model.ckpt-10");
  EXPECT_GT(s->test_accuracy, 0.5);

  // Nothing on the real disk; everything in the MemEnv.
  EXPECT_FALSE(Env::Default().FileExists("/inflow-mem").ok());
  Result<std::optional<std::string>> latest =
      LatestCheckpoint("/inflow-mem/ckpt", {.env = &env});
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(latest->value_or(""), "/inflow-mem/ckpt/model.ckpt-10");
  EXPECT_TRUE(env.FileExists("/inflow-mem/ckpt/model.ckpt-5.index").ok());
  EXPECT_TRUE(env.FileExists("/inflow-mem/ckpt/model.ckpt-10.meta").ok());
  EXPECT_EQ(ReadFileToString(env, "/inflow-mem/ckpt/summary.json").value(),
            s->ToJson() + "\n");
  std::vector<std::string> events =
      GetMatchingPaths(env, "/inflow-mem/logs/events.out.tfevents.*").value();
  ASSERT_EQ(events.size(), 1u);
  auto reader = EventsReader::Open(env, events[0]);
  ASSERT_TRUE(reader.ok()) << reader.status();

  // The checkpoint evaluates, through the same Env, to the run's accuracy.
  Result<Evaluation> e = EvaluateCheckpoint(
      "/inflow-mem/ckpt", "/inflow-mem/data", false, 1, false, &env);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->checkpoint, "/inflow-mem/ckpt/model.ckpt-10");
  EXPECT_DOUBLE_EQ(e->test_accuracy, s->test_accuracy);

  // What a power cut after Train returned leaves: all of it.
  env.SimulateCrash();
  EXPECT_EQ(
      LatestCheckpoint("/inflow-mem/ckpt", {.env = &env}).value().value_or(""),
      "/inflow-mem/ckpt/model.ckpt-10");
  EXPECT_EQ(ReadFileToString(env, "/inflow-mem/ckpt/summary.json").value(),
            s->ToJson() + "\n");
}

}  // namespace
}  // namespace inflow
