// Copyright 2026 The inflow Authors.
//
// Every TensorFlow-written checkpoint in the shared test vectors reads with
// the names, dtypes, shapes, offsets, sizes, CRCs and values that
// expected.json lists for it.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"

#include "io/sha256.h"

namespace inflow {
namespace {

using json = nlohmann::json;

std::filesystem::path TfDir() {
  const char* env = std::getenv("INFLOW_SHARED_DIR");
  return (env ? std::filesystem::path(env)
              : std::filesystem::path("../shared")) /
         "testdata" / "tf";
}

json Expected() {
  std::ifstream in(TfDir() / "expected.json");
  EXPECT_TRUE(in.good()) << "missing " << (TfDir() / "expected.json");
  return json::parse(in);
}

const std::map<std::string, DType>& DTypesByProtoName() {
  static const auto* names = new std::map<std::string, DType>{
      {"DT_FLOAT", DType::kFloat32}, {"DT_DOUBLE", DType::kFloat64},
      {"DT_INT32", DType::kInt32},   {"DT_INT64", DType::kInt64},
      {"DT_STRING", DType::kString}, {"DT_BOOL", DType::kBool}};
  return *names;
}

void CheckValues(const json& want, const Tensor& got) {
  if (got.dtype() == DType::kString) {
    std::span<const std::string> s = got.flat<std::string>();
    const json& lengths = want.at("string_lengths_first");
    ASSERT_LE(lengths.size(), s.size());
    for (size_t i = 0; i < lengths.size(); ++i) {
      EXPECT_EQ(s[i].size(), lengths[i].get<size_t>());
    }
    EXPECT_EQ(testing::Sha256Hex(s[0]),
              want.at("string_sha256_first").get<std::string>());
    return;
  }
  const json& first = want.at("first_values");
  if (got.dtype() == DType::kFloat32) {
    std::span<const float> v = got.flat<float>();
    ASSERT_LE(first.size(), v.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(v[i], static_cast<float>(first[i].get<double>())) << i;
    }
    double sum = 0;
    for (float x : v) sum += x;
    const double want_sum = want.at("sum_float64").get<double>();
    EXPECT_NEAR(sum, want_sum, 1e-9 * std::max(1.0, std::abs(want_sum)));
  } else if (got.dtype() == DType::kInt64) {
    std::span<const int64_t> v = got.flat<int64_t>();
    ASSERT_LE(first.size(), v.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(v[i], first[i].get<int64_t>());
    }
  } else {
    ADD_FAILURE() << "no value check for " << DTypeName(got.dtype());
  }
}

TEST(BundleTestdataTest, EveryTensorFlowCheckpointReadsAsExpected) {
  const json expected = Expected();
  int bundles = 0;
  for (const auto& [file, facts] : expected.at("files").items()) {
    if (facts.value("format", "") != "tensor_bundle_v2") continue;
    ++bundles;
    SCOPED_TRACE(file);
    const std::string prefix = (TfDir() / file).string();
    Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
    ASSERT_TRUE(reader.ok()) << reader.status();
    const BundleReader& r = **reader;
    EXPECT_EQ(r.num_shards(), facts.at("header").at("num_shards").get<int>());
    json tensors = facts.at("tensors");
    ASSERT_EQ(r.entries().size(), tensors.size());
    ASSERT_EQ(static_cast<int>(tensors.size()),
              facts.at("num_tensors").get<int>());
    std::sort(tensors.begin(), tensors.end(), [](const json& a, const json& b) {
      return a.at("name").get<std::string>() < b.at("name").get<std::string>();
    });
    for (size_t i = 0; i < tensors.size(); ++i) {
      const json& want = tensors[i];
      const BundleEntry& e = r.entries()[i];
      SCOPED_TRACE(e.name);
      EXPECT_EQ(e.name, want.at("name").get<std::string>());
      EXPECT_EQ(e.dtype,
                DTypesByProtoName().at(want.at("dtype").get<std::string>()));
      EXPECT_EQ(e.shape.dims(), want.at("shape").get<std::vector<int64_t>>());
      EXPECT_EQ(e.shard_id, want.at("shard_id").get<int32_t>());
      EXPECT_EQ(e.offset, want.at("offset").get<int64_t>());
      EXPECT_EQ(e.size, want.at("size").get<int64_t>());
      EXPECT_EQ(e.masked_crc32c, want.at("crc32c_masked").get<uint32_t>());
      EXPECT_FALSE(e.partitioned);
      Result<Tensor> value = r.Read(e.name);
      ASSERT_TRUE(value.ok()) << value.status();
      EXPECT_EQ(value->dtype(), e.dtype);
      EXPECT_EQ(value->shape(), e.shape);
      CheckValues(want, *value);
      Tensor into(e.dtype, e.shape);
      ASSERT_TRUE(r.ReadInto(e.name, &into).ok());
      EXPECT_EQ(into, *value);
    }
    EXPECT_TRUE(r.Verify().ok());
  }
  EXPECT_EQ(bundles, 5);
}

TEST(BundleTestdataTest, KnownValuesOfTheEstimatorCheckpoint) {
  Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open(
      (TfDir() / "checkpoint/estimator/model.ckpt-1000").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  Result<Tensor> step = (*reader)->Read("global_step");
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_EQ(*step, Tensor::Scalar<int64_t>(1000));
  Result<const BundleEntry*> kernel =
      (*reader)->Lookup("dnn/hiddenlayer_1/kernel");
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ((*kernel)->shape, TensorShape({100, 70}));
  EXPECT_EQ((*kernel)->offset, 1880);
}

}  // namespace
}  // namespace inflow
