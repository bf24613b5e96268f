// Copyright 2026 The inflow Authors.

#include "inflow/io/glob.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/env.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

using Paths = std::vector<std::string>;

TEST(GlobMatchTest, StarMatchesAnyRunIncludingNoneAndLeadingDots) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*", ".hidden"));  // TF: fnmatch without FNM_PERIOD
  EXPECT_TRUE(GlobMatch("train-*.rec", "train-.rec"));
  EXPECT_TRUE(GlobMatch("train-*.rec", "train-00001.rec"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXbYbZ"));
  EXPECT_FALSE(GlobMatch("train-*.rec", "train-1.rec.bak"));
}

TEST(GlobMatchTest, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(GlobMatch("f?", "f1"));
  EXPECT_FALSE(GlobMatch("f?", "f"));
  EXPECT_FALSE(GlobMatch("f?", "f12"));
}

TEST(GlobMatchTest, BracketsMatchSetsRangesAndTheirComplements) {
  EXPECT_TRUE(GlobMatch("f[abc]", "fb"));
  EXPECT_FALSE(GlobMatch("f[abc]", "fd"));
  EXPECT_TRUE(GlobMatch("f[0-3]", "f2"));
  EXPECT_FALSE(GlobMatch("f[0-3]", "f4"));
  EXPECT_TRUE(GlobMatch("f[!0-3]", "f4"));
  EXPECT_FALSE(GlobMatch("f[!0-3]", "f1"));
  EXPECT_TRUE(GlobMatch("f[^a]", "fb"));
  EXPECT_TRUE(GlobMatch("f[]]", "f]"));  // a leading ']' is literal
  EXPECT_TRUE(GlobMatch("f[a-]", "f-"));
}

TEST(GlobMatchTest, BackslashEscapesAndMalformedPatternsMatchNothing) {
  EXPECT_TRUE(GlobMatch("f\\*", "f*"));
  EXPECT_FALSE(GlobMatch("f\\*", "fx"));
  EXPECT_FALSE(GlobMatch("f[ab", "fa"));
  EXPECT_FALSE(GlobMatch("f\\", "f"));
  EXPECT_FALSE(HasGlobChars("plain\\*name"));
  EXPECT_TRUE(HasGlobChars("x[12]"));
}

class GetMatchingPathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"/d/b1", "/d/a2", "/d/.h", "/d/c3"}) {
      ASSERT_TRUE(WriteStringToFile(env_, name, "").ok());
    }
  }
  MemEnv env_;
};

TEST_F(GetMatchingPathsTest, MatchesOfTheFileNameComeSorted) {
  auto paths = GetMatchingPaths(env_, "/d/[!a]?");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, (Paths{"/d/.h", "/d/b1", "/d/c3"}));
}

TEST_F(GetMatchingPathsTest, NoMatchOrAMissingDirectoryGiveNoPaths) {
  auto none = GetMatchingPaths(env_, "/d/*.tfrecord");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  auto no_dir = GetMatchingPaths(env_, "/nowhere/*");
  ASSERT_TRUE(no_dir.ok()) << no_dir.status();
  EXPECT_TRUE(no_dir->empty());
}

TEST_F(GetMatchingPathsTest, APlainNameGivesItselfOnlyIfItExists) {
  EXPECT_EQ(*GetMatchingPaths(env_, "/d/b1"), Paths{"/d/b1"});
  EXPECT_TRUE(GetMatchingPaths(env_, "/d/zz")->empty());
}

TEST_F(GetMatchingPathsTest, WildcardsInTheDirectoryAreInvalidArgument) {
  auto paths = GetMatchingPaths(env_, "/*/b1");
  EXPECT_TRUE(IsInvalidArgument(paths.status())) << paths.status();
}

TEST(GetMatchingPathsPosixTest, MatchesInARealDirectory) {
  char dir_template[] = "/tmp/inflow_glob_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  Env& env = Env::Default();
  for (const char* name : {"/s-2.rec", "/s-1.rec", "/other"}) {
    ASSERT_TRUE(WriteStringToFile(env, dir + name, "x").ok());
  }
  auto paths = GetMatchingPaths(env, dir + "/s-*.rec");
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths, (Paths{dir + "/s-1.rec", dir + "/s-2.rec"}));
  for (const char* name : {"/s-1.rec", "/s-2.rec", "/other"}) {
    ASSERT_TRUE(env.DeleteFile(dir + name).ok());
  }
  ASSERT_EQ(rmdir(dir.c_str()), 0);
}

}  // namespace
}  // namespace inflow
