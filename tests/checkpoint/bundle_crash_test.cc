// Copyright 2026 The inflow Authors.
//
// Crash safety of BundleWriter and MergeBundles on MemEnv's POSIX crash
// model: a power cut after any mutating call leaves either no readable
// bundle (NOT_FOUND) or the whole bundle, never an index without its data;
// a Finish() that returned OK survives the cut.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/bundle_test_util.h"

namespace inflow {
namespace {

using Tensors = std::vector<std::pair<std::string, Tensor>>;

Tensors Version(int v) {
  return {{"a/kernel", testing::PatternTensor(DType::kFloat32, {64}, v)},
          {"b/words", testing::PatternTensor(DType::kString, {5}, v)},
          {"c/step", Tensor::Scalar<int64_t>(v)}};
}

Status Write(MemEnv& env, const std::string& prefix, const Tensors& tensors,
             bool sync = true) {
  BundleWriterOptions options;
  options.env = &env;
  options.sync = sync;
  BundleWriter writer(prefix, options);
  for (const auto& [name, t] : tensors) {
    INFLOW_RETURN_IF_ERROR(writer.Add(name, t));
  }
  return writer.Finish();
}

// NOT_FOUND, or the index and every tensor as in one of `versions`.
// Returns the index of the version found, -1 for none.
int Recovered(MemEnv& env, const std::string& prefix,
              const std::vector<Tensors>& versions, const std::string& what) {
  Result<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open(prefix, &env);
  if (IsNotFound(reader.status())) return -1;
  EXPECT_TRUE(reader.ok()) << what << ": " << reader.status();
  if (!reader.ok()) return -1;
  Result<Tensor> step = (*reader)->Read("c/step");
  EXPECT_TRUE(step.ok()) << what << ": " << step.status();
  if (!step.ok()) return -1;
  const int v = static_cast<int>(step->flat<int64_t>()[0]);
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i][2].second != *step) continue;
    for (const auto& [name, want] : versions[i]) {
      Result<Tensor> got = (*reader)->Read(name);
      EXPECT_TRUE(got.ok()) << what << ": " << got.status();
      if (got.ok()) {
        EXPECT_EQ(*got, want) << what << ": " << name;
      }
    }
    return static_cast<int>(i);
  }
  ADD_FAILURE() << what << ": step " << v << " is no version written";
  return -1;
}

TEST(BundleCrashTest, SyncedBundleSurvivesACrashAfterFinish) {
  MemEnv env;
  ASSERT_TRUE(Write(env, "d/m", Version(1)).ok());
  env.SimulateCrash();
  EXPECT_EQ(Recovered(env, "d/m", {Version(1)}, "after Finish"), 0);
}

TEST(BundleCrashTest, UnsyncedBundleIsGoneAfterACrashNotDamaged) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("d").ok());
  ASSERT_TRUE(env.SyncDir(".").ok());
  ASSERT_TRUE(Write(env, "d/m", Version(1), /*sync=*/false).ok());
  env.SimulateCrash();
  EXPECT_TRUE(IsNotFound(BundleReader::Open("d/m", &env).status()));
}

TEST(BundleCrashTest, CrashAtEveryStepOfAWriteLeavesNothingOrEverything) {
  uint64_t steps;
  {
    MemEnv env;
    const uint64_t before = env.mutation_count();
    ASSERT_TRUE(Write(env, "d/m", Version(1)).ok());
    steps = env.mutation_count() - before;
  }
  ASSERT_GT(steps, 5u);
  for (uint64_t n = 1; n <= steps; ++n) {
    MemEnv env;
    env.FailMutation(n, UnavailableError("power cut"), MemEnv::kSticky);
    const bool finished = Write(env, "d/m", Version(1)).ok();
    env.ClearFaults();
    env.SimulateCrash();
    const int found = Recovered(env, "d/m", {Version(1)},
                                "crash at step " + std::to_string(n));
    EXPECT_TRUE(found == 0 || !finished) << "step " << n;
    EXPECT_FALSE(finished) << "step " << n << " was not needed";
  }
}

TEST(BundleCrashTest, CrashWhileOverwritingNeverPairsOldIndexWithNewData) {
  uint64_t steps;
  {
    MemEnv env;
    ASSERT_TRUE(Write(env, "d/m", Version(1)).ok());
    const uint64_t before = env.mutation_count();
    ASSERT_TRUE(Write(env, "d/m", Version(2)).ok());
    steps = env.mutation_count() - before;
  }
  for (uint64_t n = 1; n <= steps; ++n) {
    MemEnv env;
    ASSERT_TRUE(Write(env, "d/m", Version(1)).ok());
    env.FailMutation(n, UnavailableError("power cut"), MemEnv::kSticky);
    const bool finished = Write(env, "d/m", Version(2)).ok();
    env.ClearFaults();
    env.SimulateCrash();
    const int found = Recovered(env, "d/m", {Version(1), Version(2)},
                                "crash at step " + std::to_string(n));
    if (finished) {
      EXPECT_EQ(found, 1) << "step " << n;
    }
  }
}

TEST(BundleCrashTest, CrashAtEveryStepOfAMergeLeavesNoHalfMergedIndex) {
  const std::vector<std::string> parts = {"t/p0", "t/p1"};
  auto setup = [&](MemEnv& env) {
    Tensors all = Version(3);
    ASSERT_TRUE(Write(env, parts[0], {all[0], all[2]}).ok());
    ASSERT_TRUE(Write(env, parts[1], {all[1]}).ok());
  };
  uint64_t steps;
  {
    MemEnv env;
    setup(env);
    const uint64_t before = env.mutation_count();
    ASSERT_TRUE(MergeBundles(env, parts, "out/m").ok());
    steps = env.mutation_count() - before;
  }
  for (uint64_t n = 1; n <= steps; ++n) {
    MemEnv env;
    setup(env);
    env.FailMutation(n, UnavailableError("power cut"), MemEnv::kSticky);
    const bool merged = MergeBundles(env, parts, "out/m").ok();
    env.ClearFaults();
    env.SimulateCrash();
    const std::string what = "crash at step " + std::to_string(n);
    Result<std::unique_ptr<BundleReader>> reader =
        BundleReader::Open("out/m", &env);
    if (IsNotFound(reader.status())) {
      EXPECT_FALSE(merged) << what;
      continue;
    }
    ASSERT_TRUE(reader.ok()) << what << ": " << reader.status();
    for (const auto& [name, want] : Version(3)) {
      Result<Tensor> got = (*reader)->Read(name);
      ASSERT_TRUE(got.ok()) << what << ": " << got.status();
      EXPECT_EQ(*got, want) << what;
    }
  }
}

}  // namespace
}  // namespace inflow
