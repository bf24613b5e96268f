// Copyright 2026 The inflow Authors.
//
// Every Example and SequenceExample that TensorFlow wrote into
// tests/testdata/tf (scripts/make-tf-testdata) parses as expected.json
// describes.

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/example/decode_raw.h"
#include "inflow/example/example.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"

#include "tf_testdata.h"

namespace inflow {
namespace {

using json = nlohmann::json;
using testing::ReadTfExpected;
using testing::ReadTfTestFile;

// Inflates a whole gzip or zlib stream (the TFRecord compressions).
std::string Inflate(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 32), Z_OK);  // gzip or zlib header
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[65536];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  } while (rc == Z_OK);
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&zs);
  return out;
}

// The records of a TFRecord file (framing only; the io tests check CRCs).
// Fails, naming the file, when it is missing, empty or badly framed.
void ReadRecords(const std::string& name, const std::string& compression,
                 std::vector<std::string>* records) {
  std::string data;
  ASSERT_TRUE(ReadTfTestFile(name, &data));
  if (compression != "NONE") data = Inflate(data);
  size_t at = 0;
  while (at + 12 <= data.size()) {
    uint64_t len;
    std::memcpy(&len, data.data() + at, 8);
    at += 12;
    if (len > data.size() - at || data.size() - at - len < 4) break;
    records->push_back(data.substr(at, len));
    at += len + 4;
  }
  ASSERT_EQ(at, data.size()) << name;
  ASSERT_FALSE(records->empty()) << name << " holds no record";
}

// The facts expected.json lists for `name`.
void FileFacts(const std::string& name, json* facts) {
  json expected;
  ASSERT_TRUE(ReadTfExpected(&expected));
  ASSERT_TRUE(expected["files"].contains(name))
      << "expected.json lists no " << name;
  *facts = expected["files"][name];
}

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// Checks one feature against its facts: type, count, first values, sum.
void CheckFacts(const json& facts, const FeatureView& v,
                const std::string& where) {
  SCOPED_TRACE(where);
  const std::string type = facts["type"];
  if (type == "empty") {
    EXPECT_EQ(v.kind(), FeatureKind::kNone);
    return;
  }
  ASSERT_EQ(FeatureKindName(v.kind()), type);
  ASSERT_EQ(v.size(), facts["count"].get<int64_t>());
  if (v.kind() == FeatureKind::kInt64) {
    std::vector<int64_t> values(static_cast<size_t>(v.size()));
    v.CopyInt64s(values.data());
    const auto first = facts["first"].get<std::vector<int64_t>>();
    EXPECT_EQ(
        std::vector<int64_t>(values.begin(), values.begin() + first.size()),
        first);
    if (facts.contains("sum")) {
      EXPECT_EQ(std::accumulate(values.begin(), values.end(), int64_t{0}),
                facts["sum"].get<int64_t>());
    }
  } else if (v.kind() == FeatureKind::kFloat) {
    std::vector<float> values(static_cast<size_t>(v.size()));
    v.CopyFloats(values.data());
    const auto first = facts["first"].get<std::vector<double>>();
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_EQ(values[i], static_cast<float>(first[i])) << i;
    }
  } else {
    std::vector<std::string_view> values;
    v.ForEachBytes([&](std::string_view s) { values.push_back(s); });
    const auto lens = facts["first_len"].get<std::vector<size_t>>();
    const auto hex = facts["first_hex"].get<std::vector<std::string>>();
    for (size_t i = 0; i < lens.size(); ++i) {
      EXPECT_EQ(values[i].size(), lens[i]) << i;
      EXPECT_EQ(Hex(values[i].substr(0, 32)), hex[i]) << i;
    }
  }
}

class ExampleFileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleFileTest, EveryRecordParsesAsExpectedJsonSays) {
  json file;
  ASSERT_NO_FATAL_FAILURE(FileFacts(GetParam(), &file));
  ASSERT_EQ(file.at("payload"), "example");
  std::vector<std::string> records;
  ASSERT_NO_FATAL_FAILURE(
      ReadRecords(GetParam(), file.at("compression"), &records));
  ASSERT_EQ(records.size(), file.at("records").get<size_t>());
  ExampleView view;
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_TRUE(view.Parse(records[i]).ok()) << "record " << i;
    std::vector<std::string> keys;
    for (const FeatureEntry& e : view.entries()) keys.emplace_back(e.key);
    std::sort(keys.begin(), keys.end());
    std::vector<std::string> want;
    for (const auto& [key, kind] : file.at("example_features").items()) {
      want.push_back(key);
      const FeatureView* f = view.Find(key);
      ASSERT_NE(f, nullptr) << "record " << i << " has no " << key;
      EXPECT_EQ(FeatureKindName(f->kind()), kind.get<std::string>());
    }
    ASSERT_EQ(keys, want) << "record " << i;
    // Decoding to values and encoding again round-trips.
    Result<Example> ex = Example::Parse(records[i]);
    ASSERT_TRUE(ex.ok());
    EXPECT_EQ(*Example::Parse(ex->Serialize()), *ex);
  }
  for (const char* which : {"first_record", "last_record"}) {
    ASSERT_TRUE(
        view.Parse(which[0] == 'f' ? records.front() : records.back()).ok());
    for (const auto& [key, facts] : file.at(which).items()) {
      const FeatureView* f = view.Find(key);
      ASSERT_NE(f, nullptr) << which << " has no " << key;
      CheckFacts(facts, *f, std::string(which) + " " + key);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TensorFlowFiles, ExampleFileTest,
                         ::testing::Values("tfrecord/images.tfrecord",
                                           "tfrecord/images.tfrecord.gz",
                                           "tfrecord/images.tfrecord.zlib",
                                           "tfrecord/wmt14.tfrecord"),
                         [](const auto& info) {
                           std::string name = info.param.substr(9);
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

TEST(TensorFlowFilesTest, ImagesParseIntoABatchAndDecodeRaw) {
  json file;
  ASSERT_NO_FATAL_FAILURE(FileFacts("tfrecord/images.tfrecord", &file));
  std::vector<std::string> records;
  ASSERT_NO_FATAL_FAILURE(
      ReadRecords("tfrecord/images.tfrecord", "NONE", &records));
  ASSERT_EQ(records.size(), 50u);
  Result<ExampleParser> parser =
      ExampleParser::Create({{"data", FixedLenFeature{{}, DType::kString}},
                             {"shape", FixedLenFeature{{3}, DType::kInt64}}});
  ASSERT_TRUE(parser.ok());
  Result<ParsedFeatures> batch = parser->ParseBatch(records);
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->FindDense("shape")->shape(), TensorShape({50, 3}));
  EXPECT_EQ(batch->FindDense("shape")->data<int64_t>()[49 * 3 + 1], 32);
  Result<Tensor> pixels = DecodeRaw(*batch->FindDense("data"), DType::kUInt8);
  ASSERT_TRUE(pixels.ok());
  ASSERT_EQ(pixels->shape(), TensorShape({50, 3072}));
  // The first record's first pixels, as expected.json gives their hex.
  const std::string first_hex =
      file.at("first_record").at("data").at("first_hex")[0];
  EXPECT_EQ(Hex(std::string_view(
                reinterpret_cast<const char*>(pixels->data<uint8_t>()), 8)),
            first_hex.substr(0, 16));
}

TEST(TensorFlowFilesTest, Wmt14ParsesAsVarLenBatch) {
  json file;
  ASSERT_NO_FATAL_FAILURE(FileFacts("tfrecord/wmt14.tfrecord", &file));
  std::vector<std::string> records;
  ASSERT_NO_FATAL_FAILURE(
      ReadRecords("tfrecord/wmt14.tfrecord", "NONE", &records));
  ASSERT_EQ(records.size(), 100u);
  Result<ExampleParser> parser = ExampleParser::Create(
      {{"example_index", FixedLenFeature{{1}, DType::kInt64}},
       {"source_id", VarLenFeature{DType::kInt64}},
       {"source_word", VarLenFeature{DType::kString}},
       {"target_weight", FixedLenSequenceFeature{{}, DType::kFloat32, true}}});
  ASSERT_TRUE(parser.ok());
  Result<ParsedFeatures> batch = parser->ParseBatch(records);
  ASSERT_TRUE(batch.ok()) << batch.status();
  const Tensor& index = *batch->FindDense("example_index");
  EXPECT_EQ(index.data<int64_t>()[0], 1);
  EXPECT_EQ(index.data<int64_t>()[99], 100);
  const SparseTensor& ids = *batch->FindSparse("source_id");
  // Record 99's source ids sum to what expected.json says.
  int64_t sum = 0;
  for (int64_t i = 0; i < ids.values.num_elements(); ++i) {
    if (ids.indices.data<int64_t>()[2 * i] == 99) {
      sum += ids.values.data<int64_t>()[i];
    }
  }
  EXPECT_EQ(sum,
            file.at("last_record").at("source_id").at("sum").get<int64_t>());
  ASSERT_GT(batch->FindSparse("source_word")->values.num_elements(), 0);
  EXPECT_EQ(batch->FindSparse("source_word")->values.data<std::string>()[0],
            "\xe2\x96\x81"
            "A");
  EXPECT_EQ(batch->FindDense("target_weight")->dim_size(0), 100);
}

TEST(TensorFlowFilesTest, SequenceExamplesParseAsExpectedJsonSays) {
  json file;
  ASSERT_NO_FATAL_FAILURE(FileFacts("tfrecord/seqex.tfrecord.gz", &file));
  std::vector<std::string> records;
  ASSERT_NO_FATAL_FAILURE(
      ReadRecords("tfrecord/seqex.tfrecord.gz", "GZIP", &records));
  ASSERT_EQ(records.size(), file.at("records").get<size_t>());
  ASSERT_GE(records.size(), 2u);
  Result<SequenceExampleParser> parser = SequenceExampleParser::Create(
      {{"i", VarLenFeature{DType::kInt64}},
       {"f", VarLenFeature{DType::kFloat32}}},
      {{"s", FixedLenSequenceFeature{{}, DType::kString}}});
  ASSERT_TRUE(parser.ok());
  SequenceExampleView view;
  for (size_t n = 0; n < records.size(); ++n) {
    const int64_t k = 10500 + static_cast<int64_t>(n);
    Result<ParsedSequenceExample> r = parser->ParseSingle(records[n]);
    ASSERT_TRUE(r.ok()) << "record " << n << ": " << r.status();
    ASSERT_NE(r->context.FindSparse("i"), nullptr);
    const SparseTensor& i = *r->context.FindSparse("i");
    if (k % 10 == 0) {
      EXPECT_EQ(i.values.num_elements(), 0) << n;
    } else {
      ASSERT_EQ(i.values.num_elements(), 1) << n;
      EXPECT_EQ(i.values.data<int64_t>()[0], k);
      const SparseTensor& f = *r->context.FindSparse("f");
      ASSERT_EQ(f.values.num_elements(), 1) << n;
      EXPECT_EQ(f.values.data<float>()[0], static_cast<float>(k));
    }
    const Tensor& s = *r->sequence.FindDense("s");
    ASSERT_EQ(s.shape(), TensorShape({2}));
    EXPECT_EQ(s.data<std::string>()[0], std::to_string(k));
    EXPECT_EQ(s.data<std::string>()[1], std::to_string(k + 1));
  }
  const std::pair<const char*, size_t> which[] = {
      {"first_record", 0},
      {"second_record", 1},
      {"last_record", records.size() - 1}};
  for (const auto& [name, n] : which) {
    ASSERT_TRUE(view.Parse(records[n]).ok());
    for (const auto& [key, facts] : file.at(name).at("context").items()) {
      const FeatureView* f = view.FindContext(key);
      ASSERT_NE(f, nullptr) << name << " has no context " << key;
      CheckFacts(facts, *f, std::string(name) + " " + key);
    }
    for (const auto& [key, facts] : file.at(name).at("feature_lists").items()) {
      const FeatureListEntry* list = view.FindFeatureList(key);
      ASSERT_NE(list, nullptr);
      ASSERT_EQ(list->features.size(), facts["steps"].get<size_t>());
      for (size_t t = 0; t < list->features.size(); ++t) {
        CheckFacts(
            facts["steps_facts"][t], list->features[t],
            std::string(name) + " " + key + " step " + std::to_string(t));
      }
    }
  }
}

}  // namespace
}  // namespace inflow
