// Copyright 2026 The inflow Authors.
//
// A power cut at each of a training run's mutating calls (MemEnv's crash
// model): every checkpoint the run reported saved is still there after
// it, and a resumed run reaches the final step. About 300 short trainings
// (18 s in the release build): release-only, as the sanitizer builds
// would take minutes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/io/env.h"
#include "inflow/io/mem_env.h"
#include "inflow/train/trainer.h"

#include "trainer_test_data.h"

namespace inflow {
namespace {

using testing::MemEnvOptions;
using testing::StepOf;
using testing::WriteMemEnvData;

TEST(TrainerCrashTest, APowerCutAtAnyCallKeepsEveryReportedCheckpoint) {
  // The mutating calls of one run, after the data is written.
  uint64_t calls = 0;
  {
    MemEnv env;
    WriteMemEnvData(env);
    const uint64_t before = env.mutation_count();
    ASSERT_TRUE(Train(MemEnvOptions(env)).ok());
    calls = env.mutation_count() - before;
  }
  ASSERT_GT(calls, 10u);

  int failed_runs = 0;
  for (uint64_t n = 1; n <= calls; ++n) {
    SCOPED_TRACE("power cut at mutating call " + std::to_string(n) + " of " +
                 std::to_string(calls));
    MemEnv env;
    WriteMemEnvData(env);
    env.FailMutation(n, UnavailableError("injected power cut"),
                     MemEnv::kSticky);
    int64_t reported = 0;  // the last step a "saved" message named
    TrainCallbacks cb;
    cb.on_message = [&](const std::string& m) {
      if (m.rfind("saved ", 0) == 0) reported = StepOf(m.substr(6));
    };
    Result<TrainSummary> s = Train(MemEnvOptions(env), cb);
    if (!s.ok()) {
      ++failed_runs;
      EXPECT_NE(s.status().message().find("injected power cut"),
                std::string::npos)
          << s.status();
    }
    env.ClearFaults();
    env.SimulateCrash();

    // Every checkpoint reported saved survived the cut.
    Result<std::optional<std::string>> latest =
        LatestCheckpoint("/inflow-mem/ckpt", {.env = &env});
    ASSERT_TRUE(latest.ok()) << latest.status();
    const int64_t kept = latest->has_value() ? StepOf(**latest) : 0;
    EXPECT_GE(kept, reported);

    // And the run resumes from what is left to the final step.
    TrainOptions again = MemEnvOptions(env);
    again.resume = true;
    Result<TrainSummary> resumed = Train(again);
    ASSERT_TRUE(resumed.ok()) << resumed.status();
    EXPECT_EQ(resumed->steps, 10);
    EXPECT_EQ(resumed->start_step, kept);
  }
  // The last calls (event file close, summary.json) fail the run too.
  EXPECT_EQ(failed_runs, static_cast<int>(calls));
}

}  // namespace
}  // namespace inflow
