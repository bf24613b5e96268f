// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/pending_files.h"

#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

TEST(PendingFilesTest, FinalNamesAppearOnlyAtCommit) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("/out").ok());
  PendingFiles pending(env);
  const std::string a = pending.Add("/out/a.tfrecord");
  const std::string b = pending.Add("/out/b.tfrecord");
  EXPECT_EQ(a, PendingFiles::TemporaryPath("/out/a.tfrecord"));
  ASSERT_TRUE(WriteStringToFile(env, a, "A").ok());
  ASSERT_TRUE(WriteStringToFile(env, b, "B").ok());
  EXPECT_TRUE(IsNotFound(env.FileExists("/out/a.tfrecord")));
  ASSERT_TRUE(pending.Commit().ok());
  EXPECT_EQ(*ReadFileToString(env, "/out/a.tfrecord"), "A");
  EXPECT_EQ(*ReadFileToString(env, "/out/b.tfrecord"), "B");
  EXPECT_TRUE(IsNotFound(env.FileExists(a)));
  EXPECT_EQ(env.GetChildren("/out")->size(), 2u);
}

TEST(PendingFilesTest, WithoutCommitTheTemporariesAreDeletedAndNothingFinal) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("/out").ok());
  std::string tmp;
  {
    PendingFiles pending(env);
    tmp = pending.Add("/out/a.tfrecord");
    ASSERT_TRUE(WriteStringToFile(env, tmp, "half").ok());
  }
  EXPECT_TRUE(IsNotFound(env.FileExists(tmp)));
  EXPECT_TRUE(IsNotFound(env.FileExists("/out/a.tfrecord")));
}

TEST(PendingFilesTest, TemporaryNamesAreHiddenAndRecognised) {
  const std::string tmp = PendingFiles::TemporaryPath("/out/train.tfrecord");
  EXPECT_EQ(tmp.rfind("/out/.train.tfrecord.tmp-", 0), 0u) << tmp;
  const std::string name = tmp.substr(5);
  EXPECT_TRUE(PendingFiles::IsTemporaryName(name));
  EXPECT_TRUE(PendingFiles::IsTemporaryName(".x.tmp-123"));
  EXPECT_FALSE(PendingFiles::IsTemporaryName("train.tfrecord"));
  EXPECT_FALSE(PendingFiles::IsTemporaryName(".x.tmp-12a"));
  EXPECT_FALSE(PendingFiles::IsTemporaryName(".x.tmp-"));
}

TEST(PendingFilesTest, AFailedRenameIsReportedAndTheRestDeleted) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("/out").ok());
  PendingFiles pending(env);
  const std::string a = pending.Add("/out/a");
  const std::string b = pending.Add("/out/b");
  // `a` was never written: its rename fails.
  ASSERT_TRUE(WriteStringToFile(env, b, "B").ok());
  Status s = pending.Commit();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/out/a"), std::string_view::npos) << s;
  EXPECT_TRUE(IsNotFound(env.FileExists(b)));
  EXPECT_TRUE(IsNotFound(env.FileExists("/out/b")));
}

}  // namespace
}  // namespace inflow
