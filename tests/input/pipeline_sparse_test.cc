// Copyright 2026 The inflow Authors.
//
// The Pipeline with VarLenFeature features: each batch's SparseTensor is
// TF's batched one (indices [m, 2] with the row first, dense_shape [rows,
// longest row]), every row's values come out exactly once per epoch, the
// same whatever read_batch is; and the combinations it refuses.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/input/pipeline.h"
#include "inflow/io/mem_env.h"

#include "pipeline_test_util.h"

namespace inflow {
namespace {

using testing_util::WriteRecordFile;

constexpr int kFiles = 3;
constexpr int kRecords = 101;

// Record `id`: id % 5 tags (10 * id + j; none for id % 5 == 0) and id % 3
// words.
std::vector<int64_t> Tags(int64_t id) {
  std::vector<int64_t> t;
  for (int64_t j = 0; j < id % 5; ++j) t.push_back(10 * id + j);
  return t;
}
std::vector<std::string> Words(int64_t id) {
  std::vector<std::string> w;
  for (int64_t j = 0; j < id % 3; ++j) {
    w.push_back("w" + std::to_string(id) + "-" + std::to_string(j));
  }
  return w;
}

class PipelineSparseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int f = 0; f < kFiles; ++f) {
      std::vector<std::string> records;
      for (int i = 0; i < kRecords; ++i) {
        const int64_t id = 1000 * f + i;
        records.push_back(Example()
                              .Set("id", Feature::Int64s({id}))
                              .Set("tags", Feature::Int64s(Tags(id)))
                              .Set("words", Feature::Bytes(Words(id)))
                              .Serialize());
      }
      WriteRecordFile(env_, "/data/s-" + std::to_string(f), records);
    }
  }

  PipelineOptions Options(std::string name) {
    PipelineOptions o;
    o.files = {"/data/s-*"};
    o.env = &env_;
    o.num_epochs = 2;
    o.features = {{"tags", VarLenFeature(DType::kInt64)},
                  {"id", FixedLenFeature({}, DType::kInt64)},
                  {"words", VarLenFeature(DType::kString)}};
    o.num_readers = 3;
    o.read_batch = 7;
    o.batching.batch_size = 16;
    o.batching.shuffle = true;
    o.batching.min_after_dequeue = 20;
    o.batching.seed = 3;
    o.batching.allow_smaller_final_batch = true;
    o.name = std::move(name);
    return o;
  }

  MemEnv env_;
};

// Checks one batch (tags: tensors 0-2, id: 3, words: 4-6) against the
// corpus; returns its ids.
std::vector<int64_t> CheckBatch(const Tuple& b) {
  EXPECT_EQ(b.size(), 7u);
  if (b.size() != 7u) return {};
  const auto ids = b[3].flat<int64_t>();
  const int64_t rows = static_cast<int64_t>(ids.size());
  // Tags: the expected indices, values and dense shape from the ids.
  std::vector<int64_t> want_ix, want_values;
  std::vector<std::string> want_words;
  std::vector<int64_t> want_word_ix;
  int64_t tag_width = 0, word_width = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<int64_t> tags = Tags(ids[r]);
    for (size_t j = 0; j < tags.size(); ++j) {
      want_ix.insert(want_ix.end(), {r, static_cast<int64_t>(j)});
      want_values.push_back(tags[j]);
    }
    tag_width = std::max<int64_t>(tag_width, tags.size());
    const std::vector<std::string> words = Words(ids[r]);
    for (size_t j = 0; j < words.size(); ++j) {
      want_word_ix.insert(want_word_ix.end(), {r, static_cast<int64_t>(j)});
      want_words.push_back(words[j]);
    }
    word_width = std::max<int64_t>(word_width, words.size());
  }
  const int64_t n = static_cast<int64_t>(want_values.size());
  EXPECT_EQ(b[0], Tensor::FromVector(want_ix, TensorShape({n, 2})).value());
  EXPECT_EQ(b[1], Tensor::FromVector(want_values));
  EXPECT_EQ(b[2], Tensor::FromVector<int64_t>({rows, tag_width}));
  const int64_t m = static_cast<int64_t>(want_words.size());
  EXPECT_EQ(b[4],
            Tensor::FromVector(want_word_ix, TensorShape({m, 2})).value());
  EXPECT_EQ(b[5], Tensor::FromVector(want_words));
  EXPECT_EQ(b[6], Tensor::FromVector<int64_t>({rows, word_width}));
  return {ids.begin(), ids.end()};
}

TEST_F(PipelineSparseTest, EveryRowsValuesComeOutOncePerEpoch) {
  auto pipeline = Pipeline::Create(Options("sparse_epochs"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ((*pipeline)->sparse(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ((*pipeline)->dtypes(),
            (std::vector<DType>{DType::kInt64, DType::kInt64, DType::kString}));
  std::map<int64_t, int> counts;
  int64_t batches = 0;
  for (;;) {
    Result<Tuple> b = (*pipeline)->Next();
    if (!b.ok()) {
      EXPECT_TRUE(IsOutOfRange(b.status())) << b.status();
      break;
    }
    ++batches;
    for (int64_t id : CheckBatch(*b)) ++counts[id];
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(batches, (2 * kFiles * kRecords + 15) / 16);
  ASSERT_EQ(counts.size(), static_cast<size_t>(kFiles * kRecords));
  for (const auto& [id, n] : counts) ASSERT_EQ(n, 2) << "id " << id;
  EXPECT_TRUE((*pipeline)->Close().ok());
}

// A row's dense shape is its own, not its read chunk's: read_batch 1 (one
// record per parse, as parse_single_example) and 50 give the same batches.
TEST_F(PipelineSparseTest, BatchesDoNotDependOnReadBatch) {
  std::vector<std::vector<Tuple>> runs;
  for (int64_t read_batch : {1, 50}) {
    PipelineOptions o = Options("sparse_read_batch");
    o.num_readers = 1;
    o.shuffle_files = false;
    o.batching.shuffle = false;
    o.read_batch = read_batch;
    o.batching.batch_size = 3;
    auto pipeline = Pipeline::Create(o).value();
    runs.emplace_back();
    for (Result<Tuple> b = pipeline->Next(); b.ok(); b = pipeline->Next()) {
      CheckBatch(*b);
      runs.back().push_back(std::move(b).value());
    }
  }
  ASSERT_EQ(runs[0].size(), runs[1].size());
  for (size_t i = 0; i < runs[0].size(); ++i) {
    ASSERT_EQ(runs[0][i], runs[1][i]) << "batch " << i;
  }
}

TEST_F(PipelineSparseTest, RefusedCombinations) {
  {
    PipelineOptions o = Options("sparse_sequence");
    o.features.push_back(
        {"seq", FixedLenSequenceFeature({}, DType::kInt64, true)});
    EXPECT_EQ(Pipeline::Create(o).status().code(),
              StatusCode::kInvalidArgument);
  }
  {
    PipelineOptions o = Options("sparse_raw");
    o.features.push_back({"img", FixedLenFeature({}, DType::kString)});
    o.raw_to_float = {{"img", 4, 1.0f}};
    Status s = Pipeline::Create(o).status();
    EXPECT_NE(s.message().find("raw_to_float is not supported with "
                               "VarLenFeature"),
              std::string::npos)
        << s;
  }
  {
    auto pipeline = Pipeline::Create(Options("sparse_named")).value();
    Result<NamedTuple> named = pipeline->NextNamed();
    EXPECT_EQ(named.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(named.status().message().find("\"tags\""), std::string::npos);
  }
}

}  // namespace
}  // namespace inflow
