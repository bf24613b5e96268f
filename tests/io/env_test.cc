// Copyright 2026 The inflow Authors.

#include "inflow/io/env.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

double WallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The same contract, checked on the POSIX Env (in a temporary directory)
// and on MemEnv.
class EnvContractTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      env_ = &Env::Default();
      dir_ = (std::filesystem::temp_directory_path() /
              ("inflow_env_test_" + std::to_string(::getpid())))
                 .string();
      std::filesystem::remove_all(dir_);
    } else {
      mem_ = std::make_unique<MemEnv>();
      env_ = mem_.get();
      dir_ = "/mem";
    }
    ASSERT_TRUE(env_->CreateDir(dir_).ok());
  }
  void TearDown() override {
    if (GetParam()) std::filesystem::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  Env* env_ = nullptr;
  std::unique_ptr<MemEnv> mem_;
  std::string dir_;
};

TEST_P(EnvContractTest, WrittenBytesReadBackAtAnyOffset) {
  auto file = env_->NewWritableFile(Path("a"));
  ASSERT_TRUE(file.ok());
  std::string big(200000, 'x');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  ASSERT_TRUE((*file)->Append("head").ok());
  ASSERT_TRUE((*file)->Append(big).ok());
  ASSERT_TRUE((*file)->Append("tail").ok());
  ASSERT_TRUE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ((*file)->Append("more").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(*env_->GetFileSize(Path("a")), big.size() + 8);
  EXPECT_EQ(*ReadFileToString(*env_, Path("a")), "head" + big + "tail");

  auto reader = env_->NewRandomAccessFile(Path("a"));
  ASSERT_TRUE(reader.ok());
  char buf[8];
  EXPECT_EQ(*ReadFully(**reader, big.size() + 4, 8, buf), 4u);
  EXPECT_EQ(std::string(buf, 4), "tail");
  EXPECT_EQ(*(*reader)->Read(big.size() + 8, 8, buf), 0u);
}

TEST_P(EnvContractTest, AppendableFileKeepsExistingBytes) {
  ASSERT_TRUE(WriteStringToFile(*env_, Path("a"), "one").ok());
  auto file = env_->NewAppendableFile(Path("a"));
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Append("two").ok());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(*ReadFileToString(*env_, Path("a")), "onetwo");
}

TEST_P(EnvContractTest, MissingFilesAreNotFound) {
  EXPECT_EQ(env_->NewRandomAccessFile(Path("none")).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(env_->GetFileSize(Path("none")).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(env_->FileExists(Path("none")).code(), StatusCode::kNotFound);
  EXPECT_EQ(env_->DeleteFile(Path("none")).code(), StatusCode::kNotFound);
}

TEST_P(EnvContractTest, RenameReplacesAndChildrenList) {
  ASSERT_TRUE(WriteStringToFile(*env_, Path("a"), "new").ok());
  ASSERT_TRUE(WriteStringToFile(*env_, Path("b"), "old").ok());
  ASSERT_TRUE(env_->RenameFile(Path("a"), Path("b")).ok());
  EXPECT_EQ(*ReadFileToString(*env_, Path("b")), "new");
  EXPECT_EQ(env_->FileExists(Path("a")).code(), StatusCode::kNotFound);
  ASSERT_TRUE(WriteStringToFile(*env_, Path("c"), "").ok());
  auto children = env_->GetChildren(dir_);
  ASSERT_TRUE(children.ok());
  std::sort(children->begin(), children->end());
  EXPECT_EQ(*children, (std::vector<std::string>{"b", "c"}));
  ASSERT_TRUE(env_->DeleteFile(Path("c")).ok());
  EXPECT_TRUE(env_->SyncDir(dir_).ok());
}

TEST_P(EnvContractTest, DeleteDirRemovesOnlyAnEmptyDirectory) {
  ASSERT_TRUE(env_->CreateDir(Path("sub")).ok());
  ASSERT_TRUE(WriteStringToFile(*env_, Path("sub/f"), "x").ok());
  EXPECT_EQ(env_->DeleteDir(Path("sub")).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(env_->DeleteFile(Path("sub/f")).ok());
  EXPECT_TRUE(env_->DeleteDir(Path("sub")).ok());
  EXPECT_EQ(env_->FileExists(Path("sub")).code(), StatusCode::kNotFound);
  EXPECT_EQ(env_->DeleteDir(Path("sub")).code(), StatusCode::kNotFound);
}

TEST_P(EnvContractTest, DeleteDirOfAFileIsFailedPrecondition) {
  ASSERT_TRUE(WriteStringToFile(*env_, Path("f"), "x").ok());
  EXPECT_EQ(env_->DeleteDir(Path("f")).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(env_->DeleteDir(Path("f/g")).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(env_->FileExists(Path("f")).ok());
}

TEST_P(EnvContractTest, IsDirectoryTellsDirectoriesFilesAndMissingPaths) {
  ASSERT_TRUE(WriteStringToFile(*env_, Path("f"), "x").ok());
  EXPECT_TRUE(env_->IsDirectory(dir_).ok());
  EXPECT_TRUE(env_->IsDirectory(dir_ + "/").ok());
  EXPECT_EQ(env_->IsDirectory(Path("f")).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(env_->IsDirectory(Path("f/g")).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(env_->IsDirectory(Path("none")).code(), StatusCode::kNotFound);
  EXPECT_EQ(env_->IsDirectory(Path("none/deeper")).code(),
            StatusCode::kNotFound);
}

TEST_P(EnvContractTest, CreateDirNeedsItsParentAndRefusesAFile) {
  EXPECT_EQ(env_->CreateDir(Path("a/b")).code(), StatusCode::kNotFound);
  ASSERT_TRUE(env_->CreateDir(Path("a")).ok());
  EXPECT_TRUE(env_->CreateDir(Path("a")).ok());  // exists: fine
  ASSERT_TRUE(WriteStringToFile(*env_, Path("f"), "x").ok());
  EXPECT_EQ(env_->CreateDir(Path("f")).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(env_->CreateDir(Path("f/g")).code(),
            StatusCode::kFailedPrecondition);
  auto children = env_->GetChildren(dir_);
  ASSERT_TRUE(children.ok());
  std::sort(children->begin(), children->end());
  EXPECT_EQ(*children, (std::vector<std::string>{"a", "f"}));
}

TEST_P(EnvContractTest, GetModificationTimeIsTheLastWriteInEpochSeconds) {
  const double before = std::floor(WallSeconds()) - 1;
  ASSERT_TRUE(WriteStringToFile(*env_, Path("f"), "x").ok());
  ASSERT_TRUE(env_->CreateDir(Path("d")).ok());
  const double after = WallSeconds() + 1;
  for (const char* name : {"f", "d"}) {
    auto mtime = env_->GetModificationTime(Path(name));
    ASSERT_TRUE(mtime.ok()) << mtime.status();
    EXPECT_GE(*mtime, before) << name;
    EXPECT_LE(*mtime, after) << name;
  }
  EXPECT_EQ(env_->GetModificationTime(Path("none")).status().code(),
            StatusCode::kNotFound);
}

TEST_P(EnvContractTest, RecursivelyCreateDirMakesEveryMissingParent) {
  ASSERT_TRUE(RecursivelyCreateDir(*env_, Path("a/b/c")).ok());
  EXPECT_TRUE(env_->IsDirectory(Path("a")).ok());
  EXPECT_TRUE(env_->IsDirectory(Path("a/b/c")).ok());
  EXPECT_TRUE(RecursivelyCreateDir(*env_, Path("a/b/c/")).ok());  // exists
  EXPECT_TRUE(RecursivelyCreateDir(*env_, Path("a/b/d")).ok());
  auto children = env_->GetChildren(Path("a/b"));
  ASSERT_TRUE(children.ok());
  std::sort(children->begin(), children->end());
  EXPECT_EQ(*children, (std::vector<std::string>{"c", "d"}));
}

TEST_P(EnvContractTest, RecursivelyCreateDirThroughAFileIsFailedPrecondition) {
  ASSERT_TRUE(WriteStringToFile(*env_, Path("f"), "x").ok());
  Status s = RecursivelyCreateDir(*env_, Path("f/x/y"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find(Path("f") + " is not a directory"),
            std::string::npos)
      << s;
  EXPECT_EQ(RecursivelyCreateDir(*env_, Path("f")).code(),
            StatusCode::kFailedPrecondition);
}

TEST_P(EnvContractTest, GetMatchingPathsGlobsTheFileNameSorted) {
  for (const char* name : {"s-2", "s-10", "s-1", "t-1"}) {
    ASSERT_TRUE(WriteStringToFile(*env_, Path(name), "").ok());
  }
  auto paths = GetMatchingPaths(*env_, Path("s-*"));
  ASSERT_TRUE(paths.ok()) << paths.status();
  EXPECT_EQ(*paths,
            (std::vector<std::string>{Path("s-1"), Path("s-10"), Path("s-2")}));
  EXPECT_TRUE(GetMatchingPaths(*env_, Path("u-*"))->empty());
  EXPECT_TRUE(GetMatchingPaths(*env_, Path("none/*"))->empty());
}

INSTANTIATE_TEST_SUITE_P(PosixAndMemory, EnvContractTest,
                         ::testing::Values(true, false), [](const auto& info) {
                           return std::string(info.param ? "Posix" : "Mem");
                         });

TEST(MemEnvTest, ShortReadsReturnAtMostTheChunk) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "f", "0123456789").ok());
  env.SetMaxReadChunk(3);
  auto file = env.NewRandomAccessFile("f");
  char buf[10];
  EXPECT_EQ(*(*file)->Read(0, 10, buf), 3u);
  EXPECT_EQ(*ReadFully(**file, 0, 10, buf), 10u);
  EXPECT_EQ(std::string(buf, 10), "0123456789");
}

TEST(MemEnvTest, ReadErrorAtOffsetStopsReadsThere) {
  MemEnv env;
  ASSERT_TRUE(WriteStringToFile(env, "f", "0123456789").ok());
  env.InjectReadError("f", 4, UnavailableError("bad sector"));
  auto file = env.NewRandomAccessFile("f");
  char buf[10];
  EXPECT_EQ(*(*file)->Read(0, 10, buf), 4u);
  EXPECT_EQ((*file)->Read(4, 6, buf).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(*(*file)->Read(5, 5, buf), 5u);
  env.ClearFaults();
  EXPECT_EQ(*(*file)->Read(0, 10, buf), 10u);
}

TEST(MemEnvTest, WriteErrorKeepsBytesBeforeTheOffset) {
  MemEnv env;
  env.InjectWriteError("f", 5, ResourceExhaustedError("disk full"));
  auto file = env.NewWritableFile("f");
  EXPECT_TRUE((*file)->Append("abc").ok());
  EXPECT_EQ((*file)->Append("defg").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(*env.Contents("f"), "abcde");
}

TEST(MemEnvTest, ACrashKeepsOnlySyncedBytes) {
  MemEnv env;
  auto file = env.NewWritableFile("f");
  ASSERT_TRUE((*file)->Append("durable").ok());
  ASSERT_TRUE((*file)->Sync().ok());
  ASSERT_TRUE((*file)->Append("-lost").ok());
  auto never = env.NewWritableFile("g");
  ASSERT_TRUE((*never)->Append("gone").ok());
  ASSERT_TRUE(env.SyncDir("").ok());  // both names durable
  env.SimulateCrash();
  EXPECT_EQ(*env.Contents("f"), "durable");
  EXPECT_EQ(*env.Contents("g"), "");
}

}  // namespace
}  // namespace inflow
