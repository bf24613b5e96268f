// Copyright 2026 The inflow Authors.
//
// Every byte of a small bundle's index and of its data file damaged in
// turn, and every truncation: each read is DATA_LOSS naming the file, or
// returns the value that was written. Never a crash (runs under ASan and
// UBSan).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

const char kPrefix[] = "ck/m";

struct Written {
  std::vector<std::pair<std::string, Tensor>> tensors;
  std::string index;
  std::string data;
};

Written WriteSmallBundle(MemEnv& env) {
  Written w;
  w.tensors = {
      {"a/kernel", Tensor::FromVector<float>({1.5f, -2.0f, 3.25f})},
      {"b/step", Tensor::Scalar<int64_t>(1000)},
      {"c/words", Tensor::FromVector<std::string>({"ab", "", "xyz"})},
      {"d/flag", Tensor::FromVector<bool>({true, false})},
      {"e/empty", Tensor(DType::kInt32, {0})},
  };
  BundleWriterOptions options;
  options.env = &env;
  BundleWriter writer(kPrefix, options);
  for (const auto& [name, t] : w.tensors) EXPECT_TRUE(writer.Add(name, t).ok());
  EXPECT_TRUE(writer.Finish().ok());
  w.index = env.Contents(BundleIndexFilename(kPrefix)).value();
  w.data = env.Contents(BundleDataFilename(kPrefix, 0, 1)).value();
  return w;
}

bool Mentions(const Status& s, const std::string& text) {
  return s.message().find(text) != std::string_view::npos;
}

// Opens and reads everything; every failure must be DATA_LOSS naming
// `file`. Returns how many reads failed.
int ReadAll(MemEnv& env, const Written& w, const std::string& file,
            const std::string& what) {
  Result<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open(kPrefix, &env);
  if (!reader.ok()) {
    EXPECT_TRUE(IsDataLoss(reader.status())) << what << ": " << reader.status();
    EXPECT_TRUE(Mentions(reader.status(), file))
        << what << ": " << reader.status();
    return 1;
  }
  int failed = 0;
  for (const auto& [name, want] : w.tensors) {
    Result<Tensor> got = (*reader)->Read(name);
    if (got.ok()) {
      EXPECT_EQ(*got, want) << what << ": " << name;
      continue;
    }
    ++failed;
    EXPECT_TRUE(IsDataLoss(got.status())) << what << ": " << got.status();
    EXPECT_TRUE(Mentions(got.status(), file)) << what << ": " << got.status();
  }
  Status verify = (*reader)->Verify();
  EXPECT_EQ(verify.ok(), failed == 0) << what << ": " << verify;
  return failed;
}

TEST(BundleCorruptionTest, EveryDamagedIndexByteIsDataLossOrACorrectRead) {
  MemEnv env;
  const Written w = WriteSmallBundle(env);
  const std::string path = BundleIndexFilename(kPrefix);
  int detected = 0;
  for (size_t i = 0; i < w.index.size(); ++i) {
    for (int flip : {0x01, 0x80, 0xff}) {
      std::string bad = w.index;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      ASSERT_TRUE(WriteStringToFile(env, path, bad).ok());
      detected += ReadAll(env, w, path, "index byte " + std::to_string(i)) > 0;
    }
  }
  // Only the footer's zero padding may go unnoticed.
  EXPECT_GE(detected, 3 * static_cast<int>(w.index.size() - 48));
}

TEST(BundleCorruptionTest, EveryDamagedDataByteIsDataLossForItsTensorOnly) {
  MemEnv env;
  const Written w = WriteSmallBundle(env);
  const std::string path = BundleDataFilename(kPrefix, 0, 1);
  for (size_t i = 0; i < w.data.size(); ++i) {
    for (int flip : {0x01, 0x80, 0xff}) {
      std::string bad = w.data;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      ASSERT_TRUE(WriteStringToFile(env, path, bad).ok());
      const std::string what = "data byte " + std::to_string(i);
      EXPECT_EQ(ReadAll(env, w, path, what), 1) << what;
    }
  }
}

TEST(BundleCorruptionTest, EveryTruncationIsDataLossOrACorrectRead) {
  MemEnv env;
  const Written w = WriteSmallBundle(env);
  const std::string index = BundleIndexFilename(kPrefix);
  const std::string data = BundleDataFilename(kPrefix, 0, 1);
  for (size_t n = 0; n < w.index.size(); ++n) {
    ASSERT_TRUE(WriteStringToFile(env, index, w.index.substr(0, n)).ok());
    EXPECT_GT(ReadAll(env, w, index, "index cut at " + std::to_string(n)), 0);
  }
  ASSERT_TRUE(WriteStringToFile(env, index, w.index).ok());
  for (size_t n = 0; n < w.data.size(); ++n) {
    ASSERT_TRUE(WriteStringToFile(env, data, w.data.substr(0, n)).ok());
    EXPECT_GT(ReadAll(env, w, data, "data cut at " + std::to_string(n)), 0);
  }
}

TEST(BundleCorruptionTest, ReadErrorsFromTheFileSystemPassThrough) {
  MemEnv env;
  const Written w = WriteSmallBundle(env);
  const std::string data = BundleDataFilename(kPrefix, 0, 1);
  env.InjectReadError(data, 2, UnavailableError("nfs hiccup"));
  std::unique_ptr<BundleReader> reader =
      BundleReader::Open(kPrefix, &env).value();
  EXPECT_TRUE(IsUnavailable(reader->Read("a/kernel").status()));
  env.ClearFaults();
  EXPECT_EQ(reader->Read("a/kernel").value(), w.tensors[0].second);
}

TEST(BundleCorruptionTest, ShortReadsStillReadEverything) {
  MemEnv env;
  const Written w = WriteSmallBundle(env);
  env.SetMaxReadChunk(3);
  EXPECT_EQ(ReadAll(env, w, "", "short reads"), 0);
}

}  // namespace
}  // namespace inflow
