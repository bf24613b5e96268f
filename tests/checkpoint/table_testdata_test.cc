// Copyright 2026 The inflow Authors.
//
// The `.index` files TensorFlow wrote (tests/testdata/tf, described by
// expected.json) open, iterate in key order and seek: every key, the
// hidden slice keys of partitioned tensors too.

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/io/env.h"

#include "checkpoint/table.h"
#include "checkpoint/table_format.h"
#include "table_test_util.h"
#include "tf_testdata.h"

namespace inflow::internal {
namespace {

using json = nlohmann::json;
using testing::DataBlockTypes;
using testing::ReadAll;

// TensorFlow's DataType enum values (types.proto).
const std::map<std::string, int>& DTypeEnums() {
  static const auto* kEnums = new std::map<std::string, int>{
      {"DT_FLOAT", 1},     {"DT_DOUBLE", 2},     {"DT_INT32", 3},
      {"DT_STRING", 7},    {"DT_INT64", 9},      {"DT_BOOL", 10},
      {"DT_COMPLEX64", 8}, {"DT_COMPLEX128", 18}};
  return *kEnums;
}

TEST(TableTestdataTest, EveryTensorFlowIndexIteratesItsKeysInOrder) {
  json expected;
  ASSERT_TRUE(inflow::testing::ReadTfExpected(&expected));
  int checkpoints = 0;
  for (const auto& [key, file] : expected["files"].items()) {
    const std::string format = file.value("format", "");
    if (format != "tensor_bundle_v2" &&
        format != "tensor_bundle_v2_partitioned" &&
        format != "tensor_bundle_v2_complex") {
      continue;
    }
    ++checkpoints;
    SCOPED_TRACE(key);
    const std::string path =
        (inflow::testing::TfTestDataDir() / key).string() + ".index";
    std::string bytes;
    ASSERT_TRUE(inflow::testing::ReadTfTestFile(path, &bytes));
    Env& env = Env::Default();
    Result<uint64_t> size = env.GetFileSize(path);
    ASSERT_TRUE(size.ok()) << size.status();
    auto file_or = env.NewRandomAccessFile(path);
    ASSERT_TRUE(file_or.ok()) << file_or.status();
    auto table = Table::Open(std::move(*file_or), *size);
    ASSERT_TRUE(table.ok()) << table.status();
    auto entries = ReadAll(**table);
    ASSERT_TRUE(entries.ok()) << entries.status();

    // "" (the bundle header), then the keys in byte order: the tensor
    // names, or, where expected.json lists the raw index entries, every
    // key (a partitioned tensor's hidden slice keys too).
    std::vector<std::string> want{""};
    std::map<std::string, std::string> dtypes;
    if (file.contains("index_entries")) {
      for (const auto& e : file["index_entries"]) {
        const std::string key =
            testing::FromHex(e["key_hex"].get<std::string>());
        want.push_back(key);
        dtypes[key] = e["dtype"];
      }
    } else {
      for (const auto& t : file["tensors"]) {
        want.push_back(t["name"]);
        dtypes[t["name"]] = t["dtype"];
      }
    }
    std::sort(want.begin(), want.end());
    std::vector<std::string> got;
    for (const auto& [k, v] : *entries) got.push_back(k);
    ASSERT_EQ(got, want);
    // BundleHeaderProto{num_shards, version{producer: 1}}, as TF wrote it.
    EXPECT_EQ((*entries)[0].second,
              testing::FromHex(file.at("header").at("hex").get<std::string>()));
    // Each BundleEntryProto starts with its dtype (field 1, varint).
    for (size_t i = 1; i < entries->size(); ++i) {
      const std::string& v = (*entries)[i].second;
      ASSERT_GE(v.size(), 2u);
      EXPECT_EQ(v[0], '\x08');
      ASSERT_TRUE(DTypeEnums().count(dtypes[(*entries)[i].first]))
          << (*entries)[i].first << " " << dtypes[(*entries)[i].first];
      EXPECT_EQ(v[1], DTypeEnums().at(dtypes[(*entries)[i].first]))
          << (*entries)[i].first;
    }

    // The block types expected.json lists (TF writes bundles uncompressed).
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
  EXPECT_EQ(checkpoints, 7);
}

}  // namespace
}  // namespace inflow::internal
