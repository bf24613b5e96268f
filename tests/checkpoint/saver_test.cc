// Copyright 2026 The inflow Authors.
//
// Saver: naming, retention (as TF's saver.py) and the state file it
// writes (saver_failures_test.cc: Restore, and what a failed Save leaves). The
// clock is injected; files live in an in-memory Env.

#include "inflow/checkpoint/saver.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"

#include "checkpoint/recording_env.h"
#include "saver_test_fixture.h"

namespace inflow {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAreArray;

TEST_F(SaverTest, PrefixIsSavePathDashStepOptionallyPadded) {
  auto saver = NewSaver(Options());
  EXPECT_EQ(saver->Save("/d/model.ckpt", 1000).value(), "/d/model.ckpt-1000");
  EXPECT_EQ(saver->Save("/d/model.ckpt").value(), "/d/model.ckpt");
  EXPECT_EQ(saver->Save("/d/model.ckpt", -3).value(), "/d/model.ckpt--3");
  SaverOptions padded = Options();
  padded.pad_step_number = true;
  auto padded_saver = NewSaver(padded);
  EXPECT_EQ(padded_saver->Save("/d/model.ckpt", 1000).value(),
            "/d/model.ckpt-00001000");
  EXPECT_EQ(padded_saver->Save("/d/model.ckpt", 123456789).value(),
            "/d/model.ckpt-123456789");
  EXPECT_TRUE(env_.FileExists("/d/model.ckpt-00001000.index").ok());
  EXPECT_TRUE(
      env_.FileExists("/d/model.ckpt-00001000.data-00000-of-00001").ok());
}

TEST_F(SaverTest, NothingRegisteredIsNoVariablesToSaveUnlessAllowEmpty) {
  Saver empty(Options());
  Result<std::string> saved = empty.Save("/d/model.ckpt", 1);
  EXPECT_TRUE(IsInvalidArgument(saved.status())) << saved.status();
  EXPECT_EQ(saved.status().message(), "No variables to save");
  SaverOptions allow = Options();
  allow.allow_empty = true;
  Saver allowed(allow);
  EXPECT_EQ(allowed.Save("/d/model.ckpt", 1).value(), "");
  EXPECT_THAT(Files(), IsEmpty());
}

TEST_F(SaverTest, SavePathNamedLikeTheStateFileIsRejectedWithoutAStep) {
  auto saver = NewSaver(Options());
  Result<std::string> saved = saver->Save("/d/checkpoint");
  EXPECT_TRUE(IsInvalidArgument(saved.status())) << saved.status();
  EXPECT_EQ(saved.status().message(),
            "'latest_filename' collides with 'save_path': 'checkpoint' and "
            "'/d/checkpoint'");
  // With a step the prefix is checkpoint-1: no collision.
  EXPECT_EQ(saver->Save("/d/checkpoint", 1).value(), "/d/checkpoint-1");
  SaverOptions sub = Options();
  sub.latest_filename = "a/b";
  EXPECT_TRUE(IsInvalidArgument(NewSaver(sub)->Save("/d/m", 1).status()));
}

TEST_F(SaverTest, MissingParentDirectoriesAreCreated) {
  auto saver = NewSaver(Options());
  ASSERT_TRUE(saver->Save("/d/run/1/model.ckpt", 5).ok());
  EXPECT_TRUE(env_.FileExists("/d/run/1/model.ckpt-5.index").ok());
  EXPECT_EQ(LatestCheckpoint("/d/run/1", {.env = &env_}).value(),
            "/d/run/1/model.ckpt-5");
}

TEST_F(SaverTest, MaxToKeepTwoOverFiveSavesKeepsAndListsTheTwoNewest) {
  SaverOptions options = Options();
  options.max_to_keep = 2;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  EXPECT_EQ(Files(), FilesOf({1}));
  EXPECT_EQ(StateText(), StateOf({1}));
  for (int step = 2; step <= 5; ++step) {
    now_ += 10;
    ASSERT_TRUE(saver->Save("/d/model.ckpt", step).ok());
    EXPECT_EQ(Files(), FilesOf({step - 1, step})) << step;
    EXPECT_EQ(StateText(), StateOf({step - 1, step})) << step;
  }
  EXPECT_THAT(saver->last_checkpoints(),
              ElementsAre(Pair("/d/model.ckpt-4", 1030.0),
                          Pair("/d/model.ckpt-5", 1040.0)));
}

TEST_F(SaverTest, TheStateFileIsReplacedBeforeTheEvictedFilesAreDeleted) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  env_.log().clear();
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 2).ok());
  std::vector<std::string> tail;
  for (const std::string& line : env_.log()) {
    if (line.rfind("rename", 0) == 0 || line.rfind("delete", 0) == 0) {
      tail.push_back(line);
    }
  }
  // The two bundle renames, the state file's, then the old files in TF's
  // order (.meta, .index, .data), then the eviction marker.
  ASSERT_GE(tail.size(), 7u);
  EXPECT_THAT(tail[tail.size() - 5], HasSubstr(" -> /d/checkpoint"));
  EXPECT_EQ(tail[tail.size() - 4], "delete /d/model.ckpt-1.meta");
  EXPECT_EQ(tail[tail.size() - 3], "delete /d/model.ckpt-1.index");
  EXPECT_EQ(tail[tail.size() - 2],
            "delete /d/model.ckpt-1.data-00000-of-00001");
  EXPECT_EQ(tail[tail.size() - 1], "delete /d/model.ckpt-1.evicting");
}

TEST_F(SaverTest, EvictionDeletesTheMetaGraphToo) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  ASSERT_TRUE(WriteStringToFile(env_, "/d/model.ckpt-1.meta", "graph").ok());
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 2).ok());
  EXPECT_EQ(Files(), FilesOf({2}));
}

TEST_F(SaverTest, ResavingAPrefixMovesItToTheNewestPlace) {
  SaverOptions options = Options();
  options.max_to_keep = 3;
  auto saver = NewSaver(options);
  for (int step : {1, 2, 3})
    ASSERT_TRUE(saver->Save("/d/model.ckpt", step).ok());
  now_ = 2000;
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  EXPECT_EQ(StateText(), StateOf({2, 3, 1}));
  EXPECT_THAT(saver->last_checkpoints(),
              ElementsAre(Pair("/d/model.ckpt-2", 1000.0),
                          Pair("/d/model.ckpt-3", 1000.0),
                          Pair("/d/model.ckpt-1", 2000.0)));
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 4).ok());  // evicts 2, not 1
  EXPECT_EQ(Files(), FilesOf({1, 3, 4}));
  EXPECT_EQ(StateText(), StateOf({3, 1, 4}));
}

TEST_F(SaverTest, KeepEveryNHoursPreservesOneEvictedCheckpointPerPeriod) {
  // Constructed at t=0: the first checkpoint evicted after t=3600 is kept,
  // then the first one after 7200, and so on; kept ones are unlisted.
  now_ = 0;
  SaverOptions options = Options();
  options.max_to_keep = 1;
  options.keep_checkpoint_every_n_hours = 1.0;
  auto saver = NewSaver(options);
  const std::vector<std::pair<int, double>> saves = {
      {1, 1000}, {2, 2000}, {3, 5000}, {4, 6000},
      {5, 7000}, {6, 9000}, {7, 9500}};
  for (const auto& [step, t] : saves) {
    now_ = t;
    ASSERT_TRUE(saver->Save("/d/model.ckpt", step).ok());
  }
  // 3 (saved at 5000 > 3600) and 6 (9000 > 7200) were kept on eviction.
  EXPECT_EQ(Files(), FilesOf({3, 6, 7}));
  EXPECT_EQ(StateText(), StateOf({7}));
}

TEST_F(SaverTest, ANewSaverNeitherListsNorDeletesAnOldRunsCheckpoints) {
  SaverOptions options = Options();
  options.max_to_keep = 2;
  {
    auto first_run = NewSaver(options);
    for (int step : {1, 2}) {
      ASSERT_TRUE(first_run->Save("/d/model.ckpt", step).ok());
    }
  }
  auto second_run = NewSaver(options);
  for (int step : {3, 4, 5}) {
    ASSERT_TRUE(second_run->Save("/d/model.ckpt", step).ok());
  }
  EXPECT_EQ(Files(), FilesOf({1, 2, 4, 5}));
  EXPECT_EQ(StateText(), StateOf({4, 5}));
}

TEST_F(SaverTest, RecoverLastCheckpointsAdoptsExistingOnesWithTheirMtime) {
  SaverOptions options = Options();
  options.max_to_keep = 2;
  {
    auto first_run = NewSaver(options);
    for (int step : {1, 2}) {
      ASSERT_TRUE(first_run->Save("/d/model.ckpt", step).ok());
    }
  }
  env_.SetModificationTime("/d/model.ckpt-1.index", 111.0);
  env_.SetModificationTime("/d/model.ckpt-2.index", 222.0);
  auto second_run = NewSaver(options);
  Result<std::optional<CheckpointState>> state =
      GetCheckpointState("/d", {.env = &env_});
  ASSERT_TRUE(state.ok() && state->has_value());
  std::vector<std::string> paths = (*state)->all_model_checkpoint_paths;
  paths.insert(paths.begin(), "/d/model.ckpt-gone");
  ASSERT_TRUE(second_run->RecoverLastCheckpoints(paths).ok());
  EXPECT_THAT(second_run->last_checkpoints(),
              ElementsAre(Pair("/d/model.ckpt-1", 111.0),
                          Pair("/d/model.ckpt-2", 222.0)));
  ASSERT_TRUE(second_run->Save("/d/model.ckpt", 3).ok());
  EXPECT_EQ(Files(), FilesOf({2, 3}));
  EXPECT_EQ(StateText(), StateOf({2, 3}));
}

TEST_F(SaverTest, CheckpointsSetWithInfiniteTimeAreUnlistedButKept) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  saver->SetLastCheckpointsWithTime(
      {{"/d/model.ckpt-1", std::numeric_limits<double>::infinity()}});
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 2).ok());
  EXPECT_EQ(Files(), FilesOf({1, 2}));
  EXPECT_EQ(StateText(), StateOf({2}));
}

TEST_F(SaverTest, MaxToKeepZeroKeepsEveryFileAndListsOnlyTheNewest) {
  SaverOptions options = Options();
  options.max_to_keep = 0;
  auto saver = NewSaver(options);
  for (int step = 1; step <= 4; ++step) {
    ASSERT_TRUE(saver->Save("/d/model.ckpt", step).ok());
    EXPECT_EQ(StateText(), StateOf({step}));
  }
  EXPECT_EQ(Files(), FilesOf({1, 2, 3, 4}));
  EXPECT_THAT(saver->last_checkpoints(), IsEmpty());
}

TEST_F(SaverTest, WriteStateFalseWritesNoStateAndDeletesNothing) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  for (int step = 1; step <= 3; ++step) {
    ASSERT_TRUE(saver->Save("/d/model.ckpt", step, /*write_state=*/false).ok());
  }
  std::vector<std::string> expected = FilesOf({1, 2, 3});
  expected.erase(std::find(expected.begin(), expected.end(), "checkpoint"));
  EXPECT_EQ(Files(), expected);
  EXPECT_THAT(saver->last_checkpoints(), IsEmpty());
}

TEST_F(SaverTest, SaveRelativePathsWritesPathsRelativeToTheDirectory) {
  SaverOptions options = Options();
  options.save_relative_paths = true;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 2).ok());
  EXPECT_EQ(StateText(),
            "model_checkpoint_path: \"model.ckpt-2\"\n"
            "all_model_checkpoint_paths: \"model.ckpt-1\"\n"
            "all_model_checkpoint_paths: \"model.ckpt-2\"\n");
  EXPECT_EQ(LatestCheckpoint("/d", {.env = &env_}).value(), "/d/model.ckpt-2");
}

}  // namespace
}  // namespace inflow
