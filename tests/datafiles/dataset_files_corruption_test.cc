// Copyright 2026 The inflow Authors.
//
// Corruption sweeps over small IDX and NPY files, plain and gzip: every
// truncation is an error naming the file, and every single-byte change
// either reads or is an error naming the file; none crashes (the sanitizer
// builds run this).

#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/datafiles/idx.h"
#include "inflow/datafiles/npy.h"
#include "inflow/io/mem_env.h"

#include "datafiles/dataset_bytes.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

using Reader = std::function<Result<Tensor>(Env&, const std::string&)>;

struct Golden {
  std::string name;
  std::string bytes;
  Reader read;
};

std::vector<Golden> Goldens() {
  std::string pixels;
  for (int i = 0; i < 2 * 3 * 3; ++i)
    pixels.push_back(static_cast<char>(i * 7));
  const std::string idx = testing::IdxBytes(0x08, {2, 3, 3}, pixels);
  const std::string idx32 =
      testing::IdxBytes(0x0C, {3}, std::string("\0\0\0\1\0\0\0\2\0\0\0\3", 12));
  const std::string npy1 = testing::NpyBytes(
      1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }",
      "abcdefgh");
  const std::string npy3 = testing::NpyBytes(
      3, "{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }",
      std::string("\0\1\1\0", 4));
  Reader idx_reader = [](Env& env, const std::string& path) {
    return ReadIdxFile(env, path);
  };
  Reader npy_reader = [](Env& env, const std::string& path) {
    return ReadNpyFile(env, path);
  };
  return {
      {"idx", idx, idx_reader},
      {"idx_int32", idx32, idx_reader},
      {"idx_gzip", testing::Gzip(idx), idx_reader},
      {"npy_v1", npy1, npy_reader},
      {"npy_v3_fortran_bool", npy3, npy_reader},
      {"npy_gzip", testing::Gzip(npy1), npy_reader},
  };
}

TEST(DatasetFilesCorruptionTest, EveryTruncationIsDataLossNamingTheFile) {
  for (const Golden& g : Goldens()) {
    MemEnv env;
    const std::string path = "/d/" + g.name;
    ASSERT_TRUE(WriteStringToFile(env, path, g.bytes).ok());
    ASSERT_TRUE(g.read(env, path).ok()) << g.name;
    for (size_t n = 0; n < g.bytes.size(); ++n) {
      ASSERT_TRUE(WriteStringToFile(env, path, g.bytes.substr(0, n)).ok());
      Result<Tensor> t = g.read(env, path);
      ASSERT_TRUE(IsDataLoss(t.status()))
          << g.name << " cut to " << n << " bytes: " << t.status();
      EXPECT_THAT(t.status().message(), HasSubstr(path)) << n;
    }
  }
}

TEST(DatasetFilesCorruptionTest, EveryByteChangeReadsOrNamesTheFile) {
  for (const Golden& g : Goldens()) {
    MemEnv env;
    const std::string path = "/d/" + g.name;
    for (size_t i = 0; i < g.bytes.size(); ++i) {
      for (uint8_t flip : {0x01, 0x80, 0xff}) {
        std::string bad = g.bytes;
        bad[i] = static_cast<char>(bad[i] ^ flip);
        ASSERT_TRUE(WriteStringToFile(env, path, bad).ok());
        Result<Tensor> t = g.read(env, path);
        if (t.ok()) continue;  // e.g. a changed pixel, or gzip's mtime
        EXPECT_TRUE(IsDataLoss(t.status()) || IsInvalidArgument(t.status()))
            << g.name << " byte " << i << ": " << t.status();
        EXPECT_THAT(t.status().message(), HasSubstr(path))
            << g.name << " byte " << i;
      }
    }
  }
}

}  // namespace
}  // namespace inflow
