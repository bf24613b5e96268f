// Copyright 2026 The inflow Authors.

#include "inflow/input/file_match.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

using Paths = std::vector<std::string>;

class MatchFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"/d/b1", "/d/a2", "/d/.h", "/d/c3", "/e/x"}) {
      ASSERT_TRUE(WriteStringToFile(env_, name, "").ok());
    }
  }
  MemEnv env_;
};

TEST_F(MatchFilesTest, AllMatchesAreSortedTogetherAndRepeatsKeptAsTF) {
  // tf.io.matching_files(["d/c*", "d/*"]) gives .h a2 b1 c3 c3.
  auto paths = MatchFiles(env_, {"/d/c*", "/d/*"});
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, (Paths{"/d/.h", "/d/a2", "/d/b1", "/d/c3", "/d/c3"}));
}

TEST_F(MatchFilesTest, BracketAndQuestionMarkSelectFiles) {
  auto paths = MatchFiles(env_, {"/d/[!a]?", "/e/?"});
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, (Paths{"/d/.h", "/d/b1", "/d/c3", "/e/x"}));
}

TEST_F(MatchFilesTest, APlainNameMustExist) {
  auto paths = MatchFiles(env_, {"/d/b1"});
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, Paths{"/d/b1"});
  auto missing = MatchFiles(env_, {"/d/b1", "/d/zz"});
  EXPECT_TRUE(IsNotFound(missing.status()));
  EXPECT_NE(missing.status().message().find("\"/d/zz\""), std::string::npos)
      << missing.status();
}

TEST_F(MatchFilesTest, NoMatchIsNotFoundNamingThePattern) {
  auto none = MatchFiles(env_, {"/d/*.tfrecord"});
  EXPECT_TRUE(IsNotFound(none.status())) << none.status();
  EXPECT_NE(none.status().message().find("/d/*.tfrecord"), std::string::npos)
      << none.status();
  auto no_dir = MatchFiles(env_, {"/nowhere/*"});
  EXPECT_TRUE(IsNotFound(no_dir.status())) << no_dir.status();
  EXPECT_NE(no_dir.status().message().find("/nowhere/*"), std::string::npos);
}

TEST_F(MatchFilesTest, WildcardsInTheDirectoryOrNoPatternsAreInvalidArgument) {
  EXPECT_TRUE(IsInvalidArgument(MatchFiles(env_, {"/*/x"}).status()));
  EXPECT_TRUE(IsInvalidArgument(MatchFiles(env_, {}).status()));
}

TEST(MatchFilesPosixTest, MatchesInARealDirectory) {
  char dir_template[] = "/tmp/inflow_match_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  Env& env = Env::Default();
  for (const char* name : {"/s-1.rec", "/s-2.rec", "/other"}) {
    ASSERT_TRUE(WriteStringToFile(env, dir + name, "x").ok());
  }
  auto paths = MatchFiles(env, {dir + "/s-*.rec"});
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, (Paths{dir + "/s-1.rec", dir + "/s-2.rec"}));
  for (const char* name : {"/s-1.rec", "/s-2.rec", "/other"}) {
    ASSERT_TRUE(env.DeleteFile(dir + name).ok());
  }
  ASSERT_EQ(rmdir(dir.c_str()), 0);
}

}  // namespace
}  // namespace inflow
