// Copyright 2026 The inflow Authors.
//
// MemEnv's crash model and its mutating-call faults (io/mem_env.h).

#include "inflow/io/mem_env.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace inflow {
namespace {

using Names = std::vector<std::string>;

// Creates `path` with `data`, synced (the bytes are durable; the name is
// not until SyncDir).
void WriteSynced(MemEnv& env, const std::string& path,
                 const std::string& data) {
  auto file = env.NewWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE((*file)->Append(data).ok());
  ASSERT_TRUE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Close().ok());
}

class MemEnvCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(env_.CreateDir("/d").ok());
    ASSERT_TRUE(env_.SyncDir("/").ok());
  }
  Names Children(const std::string& dir) {
    auto names = env_.GetChildren(dir);
    EXPECT_TRUE(names.ok()) << names.status();
    return names.ok() ? *names : Names{};
  }
  MemEnv env_;
};

TEST_F(MemEnvCrashTest, AFileCreatedWithoutSyncDirVanishes) {
  WriteSynced(env_, "/d/new", "bytes");
  env_.SimulateCrash();
  EXPECT_TRUE(IsNotFound(env_.FileExists("/d/new")));
  EXPECT_EQ(Children("/d"), Names{});
}

TEST_F(MemEnvCrashTest, AFileCreatedAndDirSyncedKeepsOnlyItsSyncedBytes) {
  auto file = env_.NewWritableFile("/d/f");
  ASSERT_TRUE((*file)->Append("durable").ok());
  ASSERT_TRUE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Append("-lost").ok());
  ASSERT_TRUE((*file)->Close().ok());
  WriteSynced(env_, "/d/g", "");
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/f"), "durable");
  EXPECT_EQ(Children("/d"), (Names{"f", "g"}));
}

TEST_F(MemEnvCrashTest,
       ARenameWithoutSyncDirIsUndoneAndTheReplacedFileReturns) {
  WriteSynced(env_, "/d/target", "old");
  WriteSynced(env_, "/d/tmp", "new");
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  ASSERT_TRUE(env_.RenameFile("/d/tmp", "/d/target").ok());
  EXPECT_EQ(*env_.Contents("/d/target"), "new");
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/target"), "old");
  EXPECT_EQ(*env_.Contents("/d/tmp"), "new");
}

TEST_F(MemEnvCrashTest, ARenameFollowedBySyncDirKeepsTheNewName) {
  WriteSynced(env_, "/d/target", "old");
  WriteSynced(env_, "/d/tmp", "new");
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  ASSERT_TRUE(env_.RenameFile("/d/tmp", "/d/target").ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/target"), "new");
  EXPECT_EQ(Children("/d"), Names{"target"});
}

TEST_F(MemEnvCrashTest, ARenamedFileThatWasNeverSyncedComesBackEmpty) {
  auto file = env_.NewWritableFile("/d/tmp");
  ASSERT_TRUE((*file)->Append("unsynced").ok());
  ASSERT_TRUE((*file)->Close().ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  ASSERT_TRUE(env_.RenameFile("/d/tmp", "/d/final").ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/final"), "");
}

TEST_F(MemEnvCrashTest, ADeletionWithoutSyncDirIsUndone) {
  WriteSynced(env_, "/d/f", "kept");
  WriteSynced(env_, "/d/g", "gone");
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  ASSERT_TRUE(env_.DeleteFile("/d/f").ok());
  ASSERT_TRUE(env_.DeleteFile("/d/g").ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/f"), "kept");
  EXPECT_EQ(*env_.Contents("/d/g"), "gone");
  ASSERT_TRUE(env_.DeleteFile("/d/g").ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  env_.SimulateCrash();
  EXPECT_EQ(Children("/d"), Names{"f"});
}

TEST_F(MemEnvCrashTest,
       ADirectoryWhoseCreationWasNotSyncedVanishesWithItsFiles) {
  ASSERT_TRUE(env_.CreateDir("/d/sub").ok());
  WriteSynced(env_, "/d/sub/f", "x");
  ASSERT_TRUE(env_.SyncDir("/d/sub").ok());  // f is in sub, sub not in d
  env_.SimulateCrash();
  EXPECT_TRUE(IsNotFound(env_.IsDirectory("/d/sub")));
  EXPECT_TRUE(IsNotFound(env_.FileExists("/d/sub/f")));

  ASSERT_TRUE(env_.CreateDir("/d/sub").ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  WriteSynced(env_, "/d/sub/f", "x");
  ASSERT_TRUE(env_.SyncDir("/d/sub").ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/sub/f"), "x");
}

TEST_F(MemEnvCrashTest, ADeletedDirectoryReturnsWithoutSyncDir) {
  ASSERT_TRUE(env_.CreateDir("/d/sub").ok());
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  ASSERT_TRUE(env_.DeleteDir("/d/sub").ok());
  env_.SimulateCrash();
  EXPECT_TRUE(env_.IsDirectory("/d/sub").ok());
}

TEST_F(MemEnvCrashTest, RecursivelyCreateDirMakesItsDirectoriesDurable) {
  ASSERT_TRUE(RecursivelyCreateDir(env_, "/d/a/b").ok());
  env_.SimulateCrash();
  EXPECT_TRUE(env_.IsDirectory("/d/a/b").ok());
}

TEST_F(MemEnvCrashTest, ATruncatedFileIsEmptyAfterACrashUntilSyncedAgain) {
  WriteSynced(env_, "/d/state", "version 1");
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  auto file = env_.NewWritableFile("/d/state");  // truncates in place
  ASSERT_TRUE((*file)->Append("version 2").ok());
  ASSERT_TRUE((*file)->Close().ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/state"), "");
}

TEST_F(MemEnvCrashTest, AFileOpenAcrossACrashRefusesLaterCalls) {
  auto file = env_.NewWritableFile("/d/f");
  ASSERT_TRUE(env_.SyncDir("/d").ok());
  env_.SimulateCrash();
  EXPECT_EQ((*file)->Append("x").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*file)->Sync().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE((*file)->Close().ok());
  EXPECT_EQ(*env_.Contents("/d/f"), "");
}

TEST_F(MemEnvCrashTest, AFileInAMissingDirectoryCreatesItDurably) {
  WriteSynced(env_, "/d/x/y/f", "z");
  EXPECT_TRUE(env_.IsDirectory("/d/x/y").ok());
  ASSERT_TRUE(env_.SyncDir("/d/x/y").ok());
  env_.SimulateCrash();
  EXPECT_EQ(*env_.Contents("/d/x/y/f"), "z");
}

TEST_F(MemEnvCrashTest, SyncDirOfAMissingDirectoryIsNotFound) {
  EXPECT_TRUE(IsNotFound(env_.SyncDir("/nowhere")));
  WriteSynced(env_, "/d/f", "");
  EXPECT_EQ(env_.SyncDir("/d/f").code(), StatusCode::kFailedPrecondition);
}

// --- Mutating-call faults. ---

// One write-then-rename: 7 mutating calls.
Status Publish(MemEnv& env) {
  INFLOW_ASSIGN_OR_RETURN(auto file, env.NewWritableFile("/d/tmp"));  // 1
  INFLOW_RETURN_IF_ERROR(file->Append("payload"));                    // 2
  INFLOW_RETURN_IF_ERROR(file->Flush());                              // 3
  INFLOW_RETURN_IF_ERROR(file->Sync());                               // 4
  INFLOW_RETURN_IF_ERROR(file->Close());                              // 5
  INFLOW_RETURN_IF_ERROR(env.RenameFile("/d/tmp", "/d/final"));       // 6
  return env.SyncDir("/d");                                           // 7
}

TEST_F(MemEnvCrashTest, EveryMutatingCallIsCountedAndLogged) {
  env_.set_log_mutations(true);
  const uint64_t before = env_.mutation_count();
  ASSERT_TRUE(Publish(env_).ok());
  EXPECT_EQ(env_.mutation_count() - before, 7u);
  EXPECT_EQ(env_.mutation_log(),
            (Names{"NewWritableFile /d/tmp", "Append 7 bytes to /d/tmp",
                   "Flush /d/tmp", "Sync /d/tmp", "Close /d/tmp",
                   "RenameFile /d/tmp -> /d/final", "SyncDir /d"}));
  // Reads, listings and a second Close are not mutating calls.
  const uint64_t after = env_.mutation_count();
  EXPECT_TRUE(ReadFileToString(env_, "/d/final").ok());
  EXPECT_TRUE(env_.GetChildren("/d").ok());
  EXPECT_TRUE(env_.FileExists("/d/final").ok());
  EXPECT_EQ(env_.mutation_count(), after);
}

TEST_F(MemEnvCrashTest, AFailedCallHasNoEffectAndNamesItself) {
  WriteSynced(env_, "/d/final", "old");
  env_.FailMutation(6, UnavailableError("disk gone"));
  Status s = Publish(env_);
  EXPECT_TRUE(IsUnavailable(s)) << s;
  EXPECT_NE(s.message().find("(RenameFile /d/tmp -> /d/final)"),
            std::string::npos)
      << s;
  EXPECT_EQ(*env_.Contents("/d/final"), "old");
  EXPECT_EQ(*env_.Contents("/d/tmp"), "payload");
  EXPECT_TRUE(Publish(env_).ok());  // once: the next run succeeds
  EXPECT_EQ(*env_.Contents("/d/final"), "payload");
}

TEST_F(MemEnvCrashTest, EachStepCanFailOnceAndTheFailingCallDoesNothing) {
  for (uint64_t n = 1; n <= 7; ++n) {
    MemEnv env;
    ASSERT_TRUE(env.CreateDir("/d").ok());
    env.FailMutation(n, UnavailableError("injected"));
    EXPECT_TRUE(IsUnavailable(Publish(env))) << "step " << n;
    // The steps before n ran; the failing one left no trace.
    EXPECT_EQ(env.FileExists("/d/tmp").ok(), n >= 2 && n != 7) << n;
    if (n == 2) {
      EXPECT_EQ(*env.Contents("/d/tmp"), "");
    }
    EXPECT_EQ(env.FileExists("/d/final").ok(), n == 7) << n;
  }
}

TEST_F(MemEnvCrashTest, AStickyFailureFailsEveryLaterCallUntilCleared) {
  env_.FailMutation(2, UnavailableError("power cut"), MemEnv::kSticky);
  auto file = env_.NewWritableFile("/d/f");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(IsUnavailable((*file)->Append("x")));
  EXPECT_TRUE(IsUnavailable((*file)->Sync()));
  EXPECT_TRUE(IsUnavailable(env_.SyncDir("/d")));
  EXPECT_TRUE(IsUnavailable(env_.CreateDir("/e")));
  EXPECT_TRUE(env_.FileExists("/d/f").ok());  // reads still work
  env_.ClearFaults();
  env_.SimulateCrash();
  EXPECT_TRUE(IsNotFound(env_.FileExists("/d/f")));
  EXPECT_TRUE(env_.CreateDir("/e").ok());
}

TEST_F(MemEnvCrashTest, FailNextFailsOnlyTheNextCallOfItsKind) {
  env_.FailNext(MemEnvOp::kSync, DataLossError("bad block"));
  env_.FailNext(MemEnvOp::kSyncDir, UnavailableError("no dir sync"));
  auto file = env_.NewWritableFile("/d/f");
  ASSERT_TRUE((*file)->Append("x").ok());
  EXPECT_TRUE(IsDataLoss((*file)->Sync()));
  EXPECT_TRUE((*file)->Sync().ok());
  EXPECT_TRUE(IsUnavailable(env_.SyncDir("/d")));
  EXPECT_TRUE(env_.SyncDir("/d").ok());
  env_.FailNext(MemEnvOp::kClose, UnavailableError("close failed"));
  EXPECT_TRUE(IsUnavailable((*file)->Close()));
  // A failed Close still closes the file.
  EXPECT_EQ((*file)->Append("y").code(), StatusCode::kFailedPrecondition);
}

TEST_F(MemEnvCrashTest, ClearFaultsDisarmsEveryFault) {
  env_.FailMutation(1, UnavailableError("x"));
  env_.FailNext(MemEnvOp::kRenameFile, UnavailableError("x"));
  env_.ClearFaults();
  EXPECT_TRUE(Publish(env_).ok());
}

}  // namespace
}  // namespace inflow
