// Copyright 2026 The inflow Authors.
//
// AtomicPublish (io/atomic_publish.h) on MemEnv's crash model: a failure
// or a crash at any step leaves each final name with its old content or
// its new content, never part of one, and every failure names the file.

#include "io/atomic_publish.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

#include "io/path.h"

namespace inflow::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kOld[] = "old content";
// Written in two appends, so that a partial file would show.
constexpr char kNewA[] = "new content, ";
constexpr char kNewB[] = "both halves";
const std::string kNew = std::string(kNewA) + kNewB;

// A directory /d holding `files` (name -> content), all durable.
std::unique_ptr<MemEnv> EnvWith(
    const std::vector<std::pair<std::string, std::string>>& files) {
  auto env = std::make_unique<MemEnv>();
  EXPECT_TRUE(env->CreateDir("/d").ok());
  EXPECT_TRUE(env->CreateDir("/e").ok());
  EXPECT_TRUE(env->SyncDir("/").ok());
  for (const auto& [path, content] : files) {
    EXPECT_TRUE(WriteFileAtomically(*env, path, path + ".first", content).ok());
  }
  return env;
}

std::string Content(MemEnv& env, const std::string& path) {
  Result<std::string> c = env.Contents(path);
  return c.ok() ? *c : "<" + c.status().ToString() + ">";
}

std::vector<std::string> Children(MemEnv& env, const std::string& dir) {
  Result<std::vector<std::string>> names = env.GetChildren(dir);
  EXPECT_TRUE(names.ok()) << names.status();
  return names.ok() ? *names : std::vector<std::string>{};
}

// Publishes kNew as `final_path` in two appends. The temporary's name does
// not contain the final one, so an error that names only the temporary
// does not pass for one that names the file.
Status PublishNew(Env& env, const std::string& final_path) {
  AtomicPublish publish(env);
  INFLOW_ASSIGN_OR_RETURN(WritableFile * file,
                          publish.Create(final_path, "/d/tmp.1"));
  for (const char* part : {kNewA, kNewB}) {
    Status s = file->Append(part);
    if (!s.ok()) return s;
  }
  return publish.Commit();
}

// The number of mutating calls `publish` makes on a fresh environment.
template <typename Setup, typename Publish>
uint64_t CountSteps(Setup setup, Publish publish) {
  std::unique_ptr<MemEnv> env = setup();
  const uint64_t before = env->mutation_count();
  EXPECT_TRUE(publish(*env).ok());
  return env->mutation_count() - before;
}

TEST(AtomicPublishTest, CommitReplacesTheFileAndLeavesNoTemporary) {
  auto env = EnvWith({{"/d/f", kOld}});
  ASSERT_TRUE(PublishNew(*env, "/d/f").ok());
  EXPECT_EQ(Content(*env, "/d/f"), kNew);
  EXPECT_THAT(Children(*env, "/d"), ElementsAre("f"));
  env->SimulateCrash();
  EXPECT_EQ(Content(*env, "/d/f"), kNew);
}

// The four steps, in order: write, sync, rename, sync the directory.
TEST(AtomicPublishTest, TheStepsAreWriteSyncRenameSyncDir) {
  auto env = EnvWith({{"/d/f", kOld}});
  env->set_log_mutations(true);
  ASSERT_TRUE(WriteFileAtomically(*env, "/d/f", "/d/tmp.2", kNew).ok());
  EXPECT_THAT(
      env->mutation_log(),
      ElementsAre(StartsWith("NewWritableFile /d/tmp.2"), StartsWith("Append"),
                  "Sync /d/tmp.2", "Close /d/tmp.2",
                  "RenameFile /d/tmp.2 -> /d/f", "SyncDir /d"));
}

TEST(AtomicPublishTest, ACrashAtEveryStepLeavesTheOldOrTheNewFile) {
  auto setup = [] { return EnvWith({{"/d/f", kOld}}); };
  auto publish = [](Env& env) { return PublishNew(env, "/d/f"); };
  const uint64_t steps = CountSteps(setup, publish);
  ASSERT_EQ(steps, 7u);  // create, 2 appends, sync, close, rename, syncdir
  for (uint64_t n = 1; n <= steps; ++n) {
    SCOPED_TRACE("crash at step " + std::to_string(n));
    std::unique_ptr<MemEnv> env = setup();
    env->FailMutation(n, UnavailableError("injected"), MemEnv::kSticky);
    Status s = publish(*env);
    ASSERT_TRUE(IsUnavailable(s)) << s;
    if (n != 2 && n != 3) {  // the appends are the caller's calls
      EXPECT_THAT(std::string(s.message()), HasSubstr("publishing /d/f"));
    }
    env->ClearFaults();
    env->SimulateCrash();
    // Never a part of either; and the new file is durable only once the
    // directory sync, the last step, has run.
    EXPECT_EQ(Content(*env, "/d/f"), kOld);
  }
}

TEST(AtomicPublishTest, AFailureAtEveryStepNamesTheFileAndLeavesNoTemporary) {
  auto setup = [] { return EnvWith({{"/d/f", kOld}}); };
  auto publish = [](Env& env) {
    return WriteFileAtomically(env, "/d/f", "/d/tmp.3", kNew);
  };
  const uint64_t steps = CountSteps(setup, publish);
  ASSERT_EQ(steps, 6u);
  for (uint64_t n = 1; n <= steps; ++n) {
    SCOPED_TRACE("failure at step " + std::to_string(n));
    std::unique_ptr<MemEnv> env = setup();
    env->FailMutation(n, UnavailableError("injected"), MemEnv::kOnce);
    bool renamed = true;
    Status s = WriteFileAtomically(*env, "/d/f", "/d/tmp.3", kNew,
                                   /*sync=*/true, &renamed);
    ASSERT_TRUE(IsUnavailable(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("publishing /d/f"));
    EXPECT_THAT(Children(*env, "/d"), ElementsAre("f"));
    // Only the directory sync fails after the rename.
    EXPECT_EQ(renamed, n == steps);
    EXPECT_EQ(Content(*env, "/d/f"), n == steps ? kNew : kOld);
    // And a crash then still finds the old file or the new one.
    env->SimulateCrash();
    const std::string content = Content(*env, "/d/f");
    EXPECT_TRUE(content == kOld || content == kNew) << content;
  }
}

TEST(AtomicPublishTest, EachKindOfFailureIsReportedNamingTheFile) {
  for (MemEnvOp op :
       {MemEnvOp::kNewWritableFile, MemEnvOp::kAppend, MemEnvOp::kSync,
        MemEnvOp::kClose, MemEnvOp::kRenameFile, MemEnvOp::kSyncDir}) {
    SCOPED_TRACE(std::string(MemEnvOpName(op)));
    auto env = EnvWith({{"/d/f", kOld}});
    env->FailNext(op, DataLossError("injected"));
    Status s = WriteFileAtomically(*env, "/d/f", "/d/tmp.4", kNew);
    EXPECT_TRUE(IsDataLoss(s)) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("publishing /d/f"));
    EXPECT_THAT(std::string(s.message()), HasSubstr(MemEnvOpName(op)));
    EXPECT_EQ(Content(*env, "/d/f"), op == MemEnvOp::kSyncDir ? kNew : kOld);
    EXPECT_THAT(Children(*env, "/d"), ElementsAre("f"));
  }
}

TEST(AtomicPublishTest, ANewFileIsMissingOrCompleteAfterACrashAtEveryStep) {
  auto setup = [] { return EnvWith({}); };
  auto publish = [](Env& env) { return PublishNew(env, "/d/g"); };
  const uint64_t steps = CountSteps(setup, publish);
  for (uint64_t n = 1; n <= steps; ++n) {
    SCOPED_TRACE("crash at step " + std::to_string(n));
    std::unique_ptr<MemEnv> env = setup();
    env->FailMutation(n, UnavailableError("injected"), MemEnv::kSticky);
    EXPECT_FALSE(publish(*env).ok());
    env->ClearFaults();
    env->SimulateCrash();
    EXPECT_TRUE(IsNotFound(env->FileExists("/d/g"))) << Content(*env, "/d/g");
  }
}

// Three files in two directories: at every crash, each final name holds
// its old or its new content; the directories are synced once each.
TEST(AtomicPublishTest, SeveralFilesAreEachOldOrNewAfterACrashAtEveryStep) {
  const std::vector<std::string> paths = {"/d/a", "/e/b", "/d/c"};
  auto setup = [&] {
    return EnvWith({{"/d/a", "old a"}, {"/e/b", "old b"}, {"/d/c", "old c"}});
  };
  auto publish = [&](Env& env) -> Status {
    AtomicPublish publish(env);
    for (const std::string& path : paths) {
      INFLOW_ASSIGN_OR_RETURN(WritableFile * file,
                              publish.Create(path, path + ".tmp"));
      INFLOW_RETURN_IF_ERROR(file->Append("new " + path.substr(3)));
    }
    return publish.Commit();
  };
  {
    std::unique_ptr<MemEnv> env = setup();
    env->set_log_mutations(true);
    ASSERT_TRUE(publish(*env).ok());
    std::vector<std::string> syncs;
    for (const std::string& line : env->mutation_log()) {
      if (line.rfind("SyncDir", 0) == 0) syncs.push_back(line);
    }
    EXPECT_THAT(syncs, ElementsAre("SyncDir /d", "SyncDir /e"));
  }
  const uint64_t steps = CountSteps(setup, publish);
  for (uint64_t n = 1; n <= steps; ++n) {
    SCOPED_TRACE("crash at step " + std::to_string(n));
    std::unique_ptr<MemEnv> env = setup();
    env->FailMutation(n, UnavailableError("injected"), MemEnv::kSticky);
    Status s = publish(*env);
    EXPECT_FALSE(s.ok());
    env->ClearFaults();
    env->SimulateCrash();
    for (const std::string& path : paths) {
      const std::string name = path.substr(3);
      const std::string content = Content(*env, path);
      EXPECT_TRUE(content == "old " + name || content == "new " + name)
          << path << ": " << content;
    }
  }
}

TEST(AtomicPublishTest, AFailedRenameDeletesTheRestAndKeepsTheRenamedDurable) {
  auto env = EnvWith({});
  AtomicPublish publish(*env);
  publish.Add("/d/a", "/d/a.tmp");
  publish.Add("/d/b", "/d/b.tmp");  // never written: its rename fails
  publish.Add("/d/c", "/d/c.tmp");
  ASSERT_TRUE(WriteStringToFile(*env, "/d/a.tmp", "A").ok());
  ASSERT_TRUE(WriteStringToFile(*env, "/d/c.tmp", "C").ok());
  Status s = publish.Commit();
  EXPECT_TRUE(IsNotFound(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("publishing /d/b"));
  EXPECT_EQ(publish.renamed(), 1u);
  EXPECT_THAT(Children(*env, "/d"), ElementsAre("a"));
  env->SimulateCrash();
  EXPECT_TRUE(env->FileExists("/d/a").ok());
}

TEST(AtomicPublishTest, AbandonAndTheDestructorDeleteTheTemporaries) {
  auto env = EnvWith({{"/d/f", kOld}});
  {
    AtomicPublish publish(*env);
    Result<WritableFile*> file = publish.Create("/d/f", "/d/f.tmp");
    ASSERT_TRUE(file.ok()) << file.status();
    ASSERT_TRUE((*file)->Append("partial").ok());
    publish.Add("/d/g", "/d/g.tmp");
    ASSERT_TRUE(WriteStringToFile(*env, "/d/g.tmp", "G").ok());
  }
  EXPECT_THAT(Children(*env, "/d"), ElementsAre("f"));
  EXPECT_EQ(Content(*env, "/d/f"), kOld);
  AtomicPublish publish(*env);
  ASSERT_TRUE(publish.Create("/d/f", "/d/f.tmp").ok());
  publish.Abandon();
  EXPECT_TRUE(publish.Commit().ok());  // nothing left to publish
  EXPECT_THAT(Children(*env, "/d"), ElementsAre("f"));
  EXPECT_EQ(Content(*env, "/d/f"), kOld);
}

TEST(AtomicPublishTest, WithoutSyncNothingIsSynced) {
  auto env = EnvWith({{"/d/f", kOld}});
  env->set_log_mutations(true);
  ASSERT_TRUE(WriteFileAtomically(*env, "/d/f", "/d/tmp.5", kNew,
                                  /*sync=*/false)
                  .ok());
  EXPECT_THAT(env->mutation_log(),
              ElementsAre(StartsWith("NewWritableFile"), StartsWith("Append"),
                          "Close /d/tmp.5", "RenameFile /d/tmp.5 -> /d/f"));
  EXPECT_EQ(Content(*env, "/d/f"), kNew);
}

TEST(AtomicPublishTest, DirectoryOfIsWhatSyncDirTakes) {
  EXPECT_EQ(DirectoryOf("a/b"), "a");
  EXPECT_EQ(DirectoryOf("a/b/c"), "a/b");
  EXPECT_EQ(DirectoryOf("a//b"), "a");
  EXPECT_EQ(DirectoryOf("/b"), "/");
  EXPECT_EQ(DirectoryOf("b"), ".");
}

TEST(AtomicPublishTest, RandomHexHasTheDigitsAskedFor) {
  for (size_t n : {0u, 1u, 16u, 17u, 32u}) {
    const std::string hex = RandomHex(n);
    EXPECT_EQ(hex.size(), n);
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  }
  EXPECT_NE(RandomHex(32), RandomHex(32));
}

}  // namespace
}  // namespace inflow::internal
