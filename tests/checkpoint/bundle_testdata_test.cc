// Copyright 2026 The inflow Authors.
//
// Every TensorFlow-written checkpoint in tests/testdata/tf reads with the
// names, dtypes, shapes, offsets, sizes, CRCs and values that expected.json
// lists for it: partitioned tensors listed once (their slices' keys
// hidden) and read assembled, complex tensors too.

#include <algorithm>
#include <complex>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"

#include "io/sha256.h"
#include "table_test_util.h"
#include "tf_testdata.h"

namespace inflow {
namespace {

using json = nlohmann::json;

using testing::ReadTfExpected;
using testing::TfTestDataDir;

const std::map<std::string, DType>& DTypesByProtoName() {
  static const auto* names =
      new std::map<std::string, DType>{{"DT_FLOAT", DType::kFloat32},
                                       {"DT_DOUBLE", DType::kFloat64},
                                       {"DT_INT32", DType::kInt32},
                                       {"DT_INT64", DType::kInt64},
                                       {"DT_STRING", DType::kString},
                                       {"DT_BOOL", DType::kBool},
                                       {"DT_COMPLEX64", DType::kComplex64},
                                       {"DT_COMPLEX128", DType::kComplex128}};
  return *names;
}

// The first values exactly, and the sum of all in float64.
template <typename T>
void CheckFloats(const json& want, const Tensor& got) {
  const json& first = want.at("first_values");
  std::span<const T> v = got.flat<T>();
  ASSERT_LE(first.size(), v.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(v[i], static_cast<T>(first[i].get<double>())) << i;
  }
  double sum = 0;
  for (T x : v) sum += x;
  const double want_sum = want.at("sum_float64").get<double>();
  EXPECT_NEAR(sum, want_sum, 1e-9 * std::max(1.0, std::abs(want_sum)));
}

// The first values and the sum of all.
template <typename T>
void CheckInts(const json& want, const Tensor& got) {
  const json& first = want.at("first_values");
  std::span<const T> v = got.flat<T>();
  ASSERT_LE(first.size(), v.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(v[i], first[i].get<T>()) << i;
  }
  int64_t sum = 0;
  for (T x : v) sum += x;
  EXPECT_EQ(sum, want.at("sum").get<int64_t>());
}

// Every value exactly, from expected.json's [real, imag] pairs.
template <typename T>
void CheckComplex(const json& want, const Tensor& got) {
  const json& values = want.at("values");
  std::span<const std::complex<T>> v = got.flat<std::complex<T>>();
  ASSERT_EQ(values.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i], std::complex<T>(static_cast<T>(values[i][0].get<double>()),
                                    static_cast<T>(values[i][1].get<double>())))
        << i;
  }
}

void CheckValues(const json& want, const Tensor& got) {
  if (got.dtype() == DType::kComplex64) return CheckComplex<float>(want, got);
  if (got.dtype() == DType::kComplex128) {
    return CheckComplex<double>(want, got);
  }
  if (got.dtype() == DType::kString) {
    std::span<const std::string> s = got.flat<std::string>();
    const json& lengths = want.at("string_lengths_first");
    ASSERT_LE(lengths.size(), s.size());
    ASSERT_FALSE(s.empty());
    for (size_t i = 0; i < lengths.size(); ++i) {
      EXPECT_EQ(s[i].size(), lengths[i].get<size_t>());
    }
    EXPECT_EQ(testing::Sha256Hex(s[0]),
              want.at("string_sha256_first").get<std::string>());
    return;
  }
  const json& first = want.at("first_values");
  if (got.dtype() == DType::kFloat32) {
    CheckFloats<float>(want, got);
  } else if (got.dtype() == DType::kFloat64) {
    CheckFloats<double>(want, got);
  } else if (got.dtype() == DType::kInt64) {
    CheckInts<int64_t>(want, got);
  } else if (got.dtype() == DType::kInt32) {
    CheckInts<int32_t>(want, got);
  } else if (got.dtype() == DType::kBool) {
    std::span<const bool> v = got.flat<bool>();
    ASSERT_LE(first.size(), v.size());
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(v[i], first[i].get<bool>()) << i;
    }
  } else {
    ADD_FAILURE() << "no value check for " << DTypeName(got.dtype());
  }
}

// The bundle formats of expected.json.
bool IsBundle(const json& facts) {
  static const auto* kFormats = new std::set<std::string>{
      "tensor_bundle_v2", "tensor_bundle_v2_partitioned",
      "tensor_bundle_v2_complex"};
  return kFormats->count(facts.value("format", "")) > 0;
}

// The names whose index entry has slices (expected.json lists the raw
// index entries of the partitioned and complex checkpoints only).
std::set<std::string> PartitionedNames(const json& facts) {
  std::set<std::string> names;
  if (!facts.contains("index_entries")) return names;
  for (const json& e : facts.at("index_entries")) {
    if (e.at("slices").empty()) continue;
    names.insert(
        internal::testing::FromHex(e.at("key_hex").get<std::string>()));
  }
  return names;
}

TEST(BundleTestdataTest, EveryTensorFlowCheckpointReadsAsExpected) {
  json expected;
  ASSERT_TRUE(ReadTfExpected(&expected));
  int bundles = 0;
  int partitioned = 0;
  int complex = 0;
  for (const auto& [file, facts] : expected.at("files").items()) {
    if (!IsBundle(facts)) continue;
    ++bundles;
    const std::set<std::string> sliced = PartitionedNames(facts);
    SCOPED_TRACE(file);
    const std::string prefix = (TfTestDataDir() / file).string();
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
      EXPECT_EQ(e.partitioned, sliced.count(e.name) > 0);
      if (e.partitioned) {
        ++partitioned;
      } else {
        // A partitioned entry's shard, offset, size and CRC are unused.
        EXPECT_EQ(e.shard_id, want.at("shard_id").get<int32_t>());
        EXPECT_EQ(e.offset, want.at("offset").get<int64_t>());
        EXPECT_EQ(e.size, want.at("size").get<int64_t>());
        EXPECT_EQ(e.masked_crc32c, want.at("crc32c_masked").get<uint32_t>());
      }
      if (e.dtype == DType::kComplex64 || e.dtype == DType::kComplex128) {
        ++complex;
      }
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
  EXPECT_EQ(bundles, 7);
  EXPECT_EQ(partitioned, 4);
  EXPECT_EQ(complex, 2);
}

TEST(BundleTestdataTest, KnownValuesOfTheEstimatorCheckpoint) {
  json expected;
  ASSERT_TRUE(ReadTfExpected(&expected));
  int64_t kernel_offset = -1;
  for (const json& t :
       expected["files"]["checkpoint/estimator/model.ckpt-1000"]["tensors"]) {
    if (t.at("name") == "dnn/hiddenlayer_1/kernel") {
      kernel_offset = t.at("offset").get<int64_t>();
    }
  }
  ASSERT_GE(kernel_offset, 0) << "expected.json lists no estimator kernel";
  Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open(
      (TfTestDataDir() / "checkpoint/estimator/model.ckpt-1000").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  Result<Tensor> step = (*reader)->Read("global_step");
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_EQ(*step, Tensor::Scalar<int64_t>(1000));
  Result<const BundleEntry*> kernel =
      (*reader)->Lookup("dnn/hiddenlayer_1/kernel");
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ((*kernel)->shape, TensorShape({100, 70}));
  EXPECT_EQ((*kernel)->offset, kernel_offset);
}

}  // namespace
}  // namespace inflow
