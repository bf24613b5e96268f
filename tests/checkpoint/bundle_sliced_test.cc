// Copyright 2026 The inflow Authors.
//
// Partitioned tensors and complex tensors in bundles: the TF-written
// checkpoints tests/testdata/tf/checkpoint/{partitioned,complex} (from
// scripts/make-tf-testdata) read as TF reads them (the values
// expected.json lists), the slices' hidden keys are TF's, and damaged
// slice layouts are DATA_LOSS.

#include <algorithm>
#include <complex>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/bundle_index.h"
#include "checkpoint/bundle_proto.h"
#include "table_test_util.h"
#include "tf_testdata.h"

namespace inflow {
namespace {

using json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The prefix of a checkpoint of tests/testdata/tf/checkpoint.
std::string TestData(const std::string& name) {
  return (testing::TfTestDataDir() / "checkpoint" / name).string();
}

// expected.json's facts of checkpoint/`name`.
json Facts(const std::string& name) {
  json expected;
  EXPECT_TRUE(testing::ReadTfExpected(&expected));
  const std::string key = "checkpoint/" + name;
  EXPECT_TRUE(expected["files"].contains(key))
      << "expected.json has no " << key;
  return expected["files"][key];
}

// The names TF lists (tf.train.list_variables), in key order.
std::vector<std::string> ListedNames(const json& facts) {
  std::vector<std::string> names;
  for (const json& v : facts.at("variables")) names.push_back(v.at(0));
  return names;
}

// A string literal's bytes, NULs included.
template <size_t N>
std::string Bytes(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::vector<std::string> Names(const BundleReader& reader) {
  std::vector<std::string> names;
  for (const BundleEntry& e : reader.entries()) names.push_back(e.name);
  return names;
}

// The assembled values expected.json lists for a tensor of "partitioned".
template <typename T>
std::vector<T> Values(const json& facts, const std::string& name) {
  return facts.at("assembled").at(name).at("values").get<std::vector<T>>();
}

std::vector<int64_t> Shape(const json& facts, const std::string& name) {
  return facts.at("assembled").at(name).at("shape").get<std::vector<int64_t>>();
}

TEST(BundleSlicedTest, TfPartitionedVariablesAreListedOnceWithTheirFullShape) {
  const json facts = Facts("partitioned");
  auto reader = BundleReader::Open(TestData("partitioned")).value();
  EXPECT_THAT(Names(*reader), ElementsAreArray(ListedNames(facts)));
  EXPECT_THAT(Names(*reader), ElementsAre("part/big", "part/cols", "part/names",
                                          "part/rows", "plain"));
  // Listed with TF's shapes; partitioned exactly when the index entry has
  // slices.
  std::map<std::string, bool> sliced;
  for (const json& e : facts.at("index_entries")) {
    sliced[internal::testing::FromHex(e.at("key_hex").get<std::string>())] =
        !e.at("slices").empty();
  }
  for (const json& v : facts.at("variables")) {
    const std::string name = v.at(0);
    SCOPED_TRACE(name);
    const BundleEntry* e = reader->Lookup(name).value();
    EXPECT_EQ(e->shape.dims(), v.at(1).get<std::vector<int64_t>>());
    EXPECT_EQ(e->partitioned, sliced.at(name));
  }
  const BundleEntry* rows = reader->Lookup("part/rows").value();
  EXPECT_TRUE(rows->partitioned);
  EXPECT_EQ(rows->dtype, DType::kFloat32);
  EXPECT_EQ(rows->shape, TensorShape({5, 3}));
  EXPECT_EQ(reader->Lookup("part/cols").value()->shape, TensorShape({2, 7}));
  EXPECT_FALSE(reader->Lookup("plain").value()->partitioned);
}

TEST(BundleSlicedTest, TfPartitionedVariablesReadAsTheWholeTensor) {
  const json facts = Facts("partitioned");
  auto reader = BundleReader::Open(TestData("partitioned")).value();
  const std::vector<float> rows = Values<float>(facts, "part/rows");
  ASSERT_EQ(rows.size(), 15u);
  Tensor got = reader->Read("part/rows").value();
  EXPECT_EQ(got.shape().dims(), Shape(facts, "part/rows"));
  EXPECT_EQ(got.shape(), TensorShape({5, 3}));
  EXPECT_THAT(got.flat<float>(), ElementsAreArray(rows));

  const std::vector<int64_t> cols = Values<int64_t>(facts, "part/cols");
  ASSERT_EQ(cols.size(), 14u);
  got = reader->Read("part/cols").value();
  EXPECT_EQ(got.shape().dims(), Shape(facts, "part/cols"));
  EXPECT_THAT(got.flat<int64_t>(), ElementsAreArray(cols));

  const std::vector<int32_t> big = Values<int32_t>(facts, "part/big");
  ASSERT_EQ(big.size(), 130u);
  got = reader->Read("part/big").value();
  EXPECT_EQ(got.shape().dims(), Shape(facts, "part/big"));
  EXPECT_THAT(got.flat<int32_t>(), ElementsAreArray(big));

  std::vector<std::string> names;
  for (const json& hex :
       facts.at("assembled").at("part/names").at("values_hex")) {
    names.push_back(internal::testing::FromHex(hex.get<std::string>()));
  }
  got = reader->Read("part/names").value();
  EXPECT_EQ(got.shape().dims(), Shape(facts, "part/names"));
  EXPECT_THAT(got.flat<std::string>(), ElementsAreArray(names));
  EXPECT_THAT(got.flat<std::string>(), ElementsAre("a", "bc", "", "def"));

  // In place too.
  Tensor into(DType::kInt64, TensorShape({2, 7}));
  ASSERT_TRUE(reader->ReadInto("part/cols", &into).ok());
  EXPECT_THAT(into.flat<int64_t>(), ElementsAreArray(cols));
  EXPECT_TRUE(reader->Verify().ok());
}

// Every key of the index that is not listed is a slice key computed from
// a listed tensor's name and slices: the encoding is TF's, and the keys
// are those of TF's file (expected.json's index entries).
TEST(BundleSlicedTest, HiddenKeysAreExactlyTfsSliceKeys) {
  const json facts = Facts("partitioned");
  Result<internal::BundleIndex> index =
      internal::ReadBundleIndex(Env::Default(), TestData("partitioned"));
  ASSERT_TRUE(index.ok()) << index.status();
  std::vector<std::string> encoded;
  std::vector<std::string> unlisted;
  auto reader = BundleReader::Open(TestData("partitioned")).value();
  for (const internal::StoredEntry& stored : index->entries) {
    for (const auto& extents : stored.slice_extents) {
      encoded.push_back(
          internal::EncodeTensorNameSlice(stored.entry.name, extents));
    }
    if (!reader->Lookup(stored.entry.name).ok()) {
      unlisted.push_back(stored.entry.name);
    }
  }
  std::sort(encoded.begin(), encoded.end());
  EXPECT_EQ(unlisted, encoded);
  EXPECT_EQ(unlisted.size(), 9u);
  // TF's keys that are not variables are exactly these.
  const std::vector<std::string> listed = ListedNames(facts);
  std::vector<std::string> tf_hidden;
  for (const json& e : facts.at("index_entries")) {
    std::string key =
        internal::testing::FromHex(e.at("key_hex").get<std::string>());
    if (std::find(listed.begin(), listed.end(), key) == listed.end()) {
      tf_hidden.push_back(std::move(key));
    }
  }
  std::sort(tf_hidden.begin(), tf_hidden.end());
  EXPECT_EQ(unlisted, tf_hidden);
  // One spelled out (as TF's CheckpointReader.debug_string shows it).
  const std::vector<internal::SliceExtent> cols_right = {{0, 2}, {4, 3}};
  EXPECT_EQ(internal::EncodeTensorNameSlice("part/cols", cols_right),
            Bytes("\x00part/cols\x00\x01\x01\x02\x80\x82\x84\x83"));
  const std::vector<internal::SliceExtent> big_right = {{65, 65}};
  EXPECT_EQ(internal::EncodeTensorNameSlice("part/big", big_right),
            Bytes("\x00part/big\x00\x01\x01\x01\xc0\x41\xc0\x41"));
  EXPECT_THAT(tf_hidden, ::testing::Contains(internal::EncodeTensorNameSlice(
                             "part/big", big_right)));
  // A full extent is (0, -1); a three-byte and a negative number.
  const std::vector<internal::SliceExtent> other = {{0, -1}, {8192, -65}};
  EXPECT_EQ(internal::EncodeTensorNameSlice(std::string("a\x00\xff", 3), other),
            Bytes("\x00"
                  "a\x00\xff\xff\x00\x00\x01"
                  "\x01\x02"
                  "\x80\x7f"
                  "\xe0\x20\x00"
                  "\x3f\xbf"));
}

TEST(BundleSlicedTest, SaverRestoresAPartitionedVariableIntoAWholeTensor) {
  const json facts = Facts("partitioned");
  Tensor rows(DType::kFloat32, TensorShape({5, 3}));
  Tensor plain(DType::kFloat32, TensorShape({2}));
  Saver saver;
  ASSERT_TRUE(saver.Register("part/rows", &rows).ok());
  ASSERT_TRUE(saver.Register("plain", &plain).ok());
  ASSERT_TRUE(saver.Restore(TestData("partitioned")).ok());
  EXPECT_THAT(rows.flat<float>(),
              ElementsAreArray(Values<float>(facts, "part/rows")));
  EXPECT_EQ(rows.flat<float>()[14], 7.0f);
  EXPECT_THAT(plain.flat<float>(),
              ElementsAreArray(Values<float>(facts, "plain")));
  EXPECT_THAT(plain.flat<float>(), ElementsAre(1.5f, -2.5f));
}

// expected.json's [real, imag] pairs of one tensor of "complex".
template <typename T>
std::vector<std::complex<T>> ComplexValues(const json& facts,
                                           const std::string& name) {
  std::vector<std::complex<T>> out;
  for (const json& t : facts.at("tensors")) {
    if (t.at("name") != name) continue;
    for (const json& v : t.at("values")) {
      out.emplace_back(static_cast<T>(v.at(0).get<double>()),
                       static_cast<T>(v.at(1).get<double>()));
    }
  }
  return out;
}

TEST(BundleSlicedTest, TfComplexTensorsRead) {
  const json facts = Facts("complex");
  auto reader = BundleReader::Open(TestData("complex")).value();
  const std::string c64 = "c64/.ATTRIBUTES/VARIABLE_VALUE";
  const std::string c128 = "c128/.ATTRIBUTES/VARIABLE_VALUE";
  EXPECT_EQ(reader->Lookup(c64).value()->dtype, DType::kComplex64);
  EXPECT_EQ(reader->Lookup(c128).value()->dtype, DType::kComplex128);
  const std::vector<std::complex<float>> want64 =
      ComplexValues<float>(facts, c64);
  ASSERT_EQ(want64.size(), 3u);
  Tensor got = reader->Read(c64).value();
  EXPECT_THAT(got.flat<std::complex<float>>(), ElementsAreArray(want64));
  EXPECT_THAT(
      got.flat<std::complex<float>>(),
      ElementsAre(std::complex<float>(1, 2), std::complex<float>(-3.5f, 0.25f),
                  std::complex<float>(0, -1)));
  const std::vector<std::complex<double>> want128 =
      ComplexValues<double>(facts, c128);
  ASSERT_EQ(want128.size(), 4u);
  got = reader->Read(c128).value();
  EXPECT_EQ(got.shape(), TensorShape({2, 2}));
  EXPECT_THAT(got.flat<std::complex<double>>(), ElementsAreArray(want128));
  EXPECT_THAT(
      got.flat<std::complex<double>>(),
      ElementsAre(std::complex<double>(1e100, 1), std::complex<double>(-2, -2),
                  std::complex<double>(0.5, 0),
                  std::complex<double>(3, -1e-300)));
}

TEST(BundleSlicedTest, ComplexTensorsRoundTrip) {
  MemEnv env;
  Tensor c64 = Tensor::FromVector<std::complex<float>>({{1, -1}, {2.5f, 0}});
  Tensor c128 = Tensor::Scalar<std::complex<double>>({-0.0, 1e-310});
  {
    BundleWriter writer("/c/b", {.env = &env});
    ASSERT_TRUE(writer.Add("c64", c64).ok());
    ASSERT_TRUE(writer.Add("c128", c128).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  auto reader = BundleReader::Open("/c/b", &env).value();
  EXPECT_EQ(reader->Read("c64").value(), c64);
  EXPECT_EQ(reader->Read("c128").value(), c128);
  EXPECT_EQ(reader->Lookup("c128").value()->size, 16);
}

// TF's "partitioned" checkpoint copied into a MemEnv at /t/p, its index
// rewritten by `edit` (the entries by name).
Status DamagedTfPartitioned(
    MemEnv& env,
    const std::function<void(std::map<std::string, internal::StoredEntry>&)>&
        edit) {
  for (const char* suffix : {".index", ".data-00000-of-00001"}) {
    std::string bytes;
    ::testing::AssertionResult read = testing::ReadTfTestFile(
        "checkpoint/partitioned" + std::string(suffix), &bytes);
    if (!read) return InternalError(read.message());
    INFLOW_RETURN_IF_ERROR(
        WriteStringToFile(env, "/t/p" + std::string(suffix), bytes));
  }
  INFLOW_ASSIGN_OR_RETURN(internal::BundleIndex index,
                          internal::ReadBundleIndex(env, "/t/p"));
  std::map<std::string, internal::StoredEntry> entries;
  for (internal::StoredEntry& e : index.entries) {
    entries[e.entry.name] = std::move(e);
  }
  edit(entries);
  return internal::WriteBundleIndex(env, "/t/p.index", index.header, entries,
                                    false);
}

Status ReadTfRows(MemEnv& env) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          BundleReader::Open("/t/p", &env));
  Status verified = reader->Verify();
  Status read = reader->Read("part/rows").status();
  EXPECT_EQ(verified.code(), read.code()) << verified << " / " << read;
  return read;
}

TEST(BundleSlicedTest, TfPartitionedWithASliceEntryDroppedIsDataLoss) {
  MemEnv env;
  ASSERT_TRUE(DamagedTfPartitioned(env, [](auto& entries) {
                const auto& rows = entries.at("part/rows");
                ASSERT_EQ(rows.slice_extents.size(), 3u);
                entries.erase(internal::EncodeTensorNameSlice(
                    "part/rows", rows.slice_extents[1]));
              }).ok());
  Status s = ReadTfRows(env);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("slice 1: its data entry is missing"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("/t/p.index"));
}

TEST(BundleSlicedTest, TfPartitionedWithOverlappingSlicesIsDataLoss) {
  MemEnv env;
  // Slice 1 listed twice (and slice 2 not): rows 2 and 3 covered twice.
  ASSERT_TRUE(DamagedTfPartitioned(env, [](auto& entries) {
                auto& rows = entries.at("part/rows");
                ASSERT_EQ(rows.slices.size(), 3u);
                rows.slices[2] = rows.slices[1];
              }).ok());
  Status s = ReadTfRows(env);
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("slices 1 and 2 overlap"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("'part/rows' [5,3]"));
}

// A bundle whose "t" is float32 [4] partitioned into `slices`, each stored
// under its slice key with the values 10 * k + i of its shape `shapes[k]`.
class BadSlicesTest : public ::testing::Test {
 protected:
  Status Make(const std::vector<std::vector<internal::SliceExtent>>& slices,
              const std::vector<int64_t>& stored_sizes) {
    {
      BundleWriter writer("/b/p", {.env = &env_});
      for (size_t k = 0; k < slices.size(); ++k) {
        std::vector<float> v(static_cast<size_t>(stored_sizes[k]));
        for (size_t i = 0; i < v.size(); ++i) v[i] = 10.0f * k + i;
        INFLOW_RETURN_IF_ERROR(
            writer.Add(internal::EncodeTensorNameSlice("t", slices[k]),
                       Tensor::FromVector<float>(v)));
      }
      INFLOW_RETURN_IF_ERROR(writer.Finish());
    }
    INFLOW_ASSIGN_OR_RETURN(internal::BundleIndex index,
                            internal::ReadBundleIndex(env_, "/b/p"));
    std::map<std::string, internal::StoredEntry> entries;
    for (internal::StoredEntry& e : index.entries) {
      entries[e.entry.name] = std::move(e);
    }
    internal::StoredEntry full;
    full.entry.name = "t";
    full.entry.shape = TensorShape({4});
    full.dtype_enum = static_cast<int32_t>(DType::kFloat32);
    for (const auto& s : slices) {
      full.slices.push_back(internal::EncodeTensorSlice(s));
    }
    entries["t"] = full;
    return internal::WriteBundleIndex(env_, "/b/p.index", index.header, entries,
                                      false);
  }

  Status ReadT() {
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                            BundleReader::Open("/b/p", &env_));
    Status verified = reader->Verify();
    Status read = reader->Read("t").status();
    EXPECT_EQ(verified.code(), read.code()) << verified << " / " << read;
    return read;
  }

  MemEnv env_;
};

TEST_F(BadSlicesTest, TwoHalvesRead) {
  ASSERT_TRUE(Make({{{0, 2}}, {{2, 2}}}, {2, 2}).ok());
  auto reader = BundleReader::Open("/b/p", &env_).value();
  EXPECT_THAT(Names(*reader), ElementsAre("t"));
  EXPECT_THAT(reader->Read("t").value().flat<float>(),
              ElementsAre(0.0f, 1.0f, 10.0f, 11.0f));
  // One full slice is read in place.
  ASSERT_TRUE(Make({{{0, -1}}}, {4}).ok());
  reader = BundleReader::Open("/b/p", &env_).value();
  EXPECT_THAT(reader->Read("t").value().flat<float>(),
              ElementsAre(0.0f, 1.0f, 2.0f, 3.0f));
}

TEST_F(BadSlicesTest, OverlappingSlicesAreDataLoss) {
  ASSERT_TRUE(Make({{{0, 3}}, {{2, 2}}}, {3, 2}).ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("slices 0 and 1 overlap"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("'t' [4]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("/b/p.index"));
}

TEST_F(BadSlicesTest, AGapIsDataLoss) {
  ASSERT_TRUE(Make({{{0, 2}}, {{3, 1}}}, {2, 1}).ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("cover 3 of its 4"));
}

TEST_F(BadSlicesTest, ASliceOutsideTheShapeIsDataLoss) {
  ASSERT_TRUE(Make({{{0, 2}}, {{2, 3}}}, {2, 3}).ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("slice 1 spans [2, +3)"));
}

TEST_F(BadSlicesTest, ASliceOfAnotherShapeIsDataLoss) {
  ASSERT_TRUE(Make({{{0, 2}}, {{2, 2}}}, {2, 3}).ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("slice 1 is stored as float32 [3]"));
}

TEST_F(BadSlicesTest, AMissingSliceEntryIsDataLoss) {
  ASSERT_TRUE(Make({{{0, 2}}, {{2, 2}}}, {2, 2}).ok());
  // The second slice's entry dropped from the index.
  internal::BundleIndex index = internal::ReadBundleIndex(env_, "/b/p").value();
  std::map<std::string, internal::StoredEntry> entries;
  const std::vector<internal::SliceExtent> second = {{2, 2}};
  for (internal::StoredEntry& e : index.entries) {
    if (e.entry.name == internal::EncodeTensorNameSlice("t", second)) continue;
    entries[e.entry.name] = std::move(e);
  }
  ASSERT_TRUE(internal::WriteBundleIndex(env_, "/b/p.index", index.header,
                                         entries, false)
                  .ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("slice 1: its data entry is missing"));
}

TEST_F(BadSlicesTest, MoreThan16384SlicesIsDataLossAtOnce) {
  ASSERT_TRUE(Make({{{0, 4}}}, {4}).ok());
  internal::BundleIndex index = internal::ReadBundleIndex(env_, "/b/p").value();
  std::map<std::string, internal::StoredEntry> entries;
  for (internal::StoredEntry& e : index.entries) {
    entries[e.entry.name] = std::move(e);
  }
  const std::vector<internal::SliceExtent> one = {{0, 1}};
  entries["t"].slices.assign(16385, internal::EncodeTensorSlice(one));
  ASSERT_TRUE(internal::WriteBundleIndex(env_, "/b/p.index", index.header,
                                         entries, false)
                  .ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("16385 slices"));
}

TEST_F(BadSlicesTest, ADamagedSliceIsDataLoss) {
  ASSERT_TRUE(Make({{{0, 2}}, {{2, 2}}}, {2, 2}).ok());
  std::string data = env_.Contents("/b/p.data-00000-of-00001").value();
  data[data.size() - 1] ^= 1;
  ASSERT_TRUE(WriteStringToFile(env_, "/b/p.data-00000-of-00001", data).ok());
  Status s = ReadT();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("checksum mismatch"));
}

}  // namespace
}  // namespace inflow
