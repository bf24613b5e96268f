// Copyright 2026 The inflow Authors.
//
// The `.index` files TensorFlow wrote (the shared test vectors, described
// by expected.json) open, iterate in key order and seek.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/env.h"

#include "checkpoint/table.h"
#include "checkpoint/table_format.h"
#include "table_test_util.h"

namespace inflow::internal {
namespace {

using json = nlohmann::json;
using testing::DataBlockTypes;
using testing::ReadAll;

std::filesystem::path TestdataDir() {
  const char* env = std::getenv("INFLOW_SHARED_DIR");
  return (env ? std::filesystem::path(env)
              : std::filesystem::path("../shared")) /
         "testdata" / "tf";
}

json Expected() {
  std::ifstream in(TestdataDir() / "expected.json");
  EXPECT_TRUE(in.good()) << "missing " << TestdataDir() / "expected.json";
  return json::parse(in);
}

const std::map<std::string, int>& DTypeEnums() {
  static const auto* kEnums = new std::map<std::string, int>{
      {"DT_FLOAT", 1}, {"DT_INT64", 9}, {"DT_STRING", 7}};
  return *kEnums;
}

TEST(TableTestdataTest, EveryTensorFlowIndexIteratesItsKeysInOrder) {
  const json expected = Expected();
  int checkpoints = 0;
  for (const auto& [key, file] : expected["files"].items()) {
    if (file["kind"] != "checkpoint") continue;
    ++checkpoints;
    SCOPED_TRACE(key);
    const std::string path = (TestdataDir() / key).string() + ".index";
    Env& env = Env::Default();
    const uint64_t size = env.GetFileSize(path).value();
    auto table = Table::Open(env.NewRandomAccessFile(path).value(), size);
    ASSERT_TRUE(table.ok()) << table.status();
    auto entries = ReadAll(**table);
    ASSERT_TRUE(entries.ok()) << entries.status();

    // "" (the bundle header), then the tensor names in byte order.
    std::vector<std::string> want{""};
    std::map<std::string, std::string> dtypes;
    for (const auto& t : file["tensors"]) {
      want.push_back(t["name"]);
      dtypes[t["name"]] = t["dtype"];
    }
    std::sort(want.begin(), want.end());
    std::vector<std::string> got;
    for (const auto& [k, v] : *entries) got.push_back(k);
    EXPECT_EQ(got, want);
    ASSERT_FALSE(entries->empty());
    // BundleHeaderProto{num_shards: 1, version{producer: 1}}.
    EXPECT_EQ((*entries)[0].second, testing::FromHex("08 01 1a 02 08 01"));
    // Each BundleEntryProto starts with its dtype (field 1, varint).
    for (size_t i = 1; i < entries->size(); ++i) {
      const std::string& v = (*entries)[i].second;
      ASSERT_GE(v.size(), 2u);
      EXPECT_EQ(v[0], '\x08');
      EXPECT_EQ(v[1], DTypeEnums().at(dtypes[(*entries)[i].first]))
          << (*entries)[i].first;
    }

    // The block types expected.json lists (two are Snappy-compressed).
    std::ifstream in(path, std::ios::binary);
    const std::string bytes(std::istreambuf_iterator<char>(in), {});
    std::vector<std::string> types;
    for (BlockCompression t : DataBlockTypes(bytes)) {
      types.push_back(t == BlockCompression::kSnappy ? "snappy" : "none");
    }
    EXPECT_EQ(types, file["sstable"]["data_block_compression"]
                         .get<std::vector<std::string>>());

    // Seek finds every key, and between keys the next one.
    std::unique_ptr<TableIterator> it = (*table)->NewIterator();
    for (size_t i = 0; i < want.size(); ++i) {
      it->Seek(want[i]);
      ASSERT_TRUE(it->Valid()) << want[i];
      EXPECT_EQ(it->key(), want[i]);
      EXPECT_EQ(it->value(), (*entries)[i].second);
      it->Seek(want[i] + '\0');
      EXPECT_EQ(it->Valid(), i + 1 < want.size());
      if (it->Valid()) {
        EXPECT_EQ(it->key(), want[i + 1]);
      }
    }
  }
  EXPECT_EQ(checkpoints, 5);
}

}  // namespace
}  // namespace inflow::internal
