// Copyright 2026 The inflow Authors.
//
// RaggedBatch and SparseBatch: tf.data's values, row_splits, indices and
// dense shapes (the same cases test_py_data.py checks against tf.data),
// Batch's remainders and checkpoints, and the errors that name the stage.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/data/dataset.h"

#include "dataset_test_util.h"

namespace inflow::data {
namespace {

using testing::All;

// Element x: x copies of x (shape [x], or [x, 2] when `pairs`).
Dataset Filled(int64_t from, int64_t to, bool pairs = false) {
  return Dataset::Range(from, to).Map([pairs](Tuple e) -> Result<Tuple> {
    const int64_t x = e[0].flat<int64_t>()[0];
    const int64_t n = pairs ? 2 * x : x;
    Result<Tensor> t = Tensor::FromVector<int64_t>(
        std::vector<int64_t>(n, x),
        pairs ? TensorShape({x, 2}) : TensorShape({x}));
    if (!t.ok()) return t.status();
    return Tuple{std::move(t).value()};
  });
}

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.flat<int64_t>().begin(),
                              t.flat<int64_t>().end());
}

TEST(DatasetRaggedTest, RaggedBatchGivesValuesAndRowSplits) {
  Result<Iterator> it = Filled(1, 6).RaggedBatch(2).MakeIterator();
  ASSERT_TRUE(it.ok());
  const std::vector<std::vector<int64_t>> values = {
      {1, 2, 2}, {3, 3, 3, 4, 4, 4, 4}, {5, 5, 5, 5, 5}};
  const std::vector<std::vector<int64_t>> splits = {
      {0, 1, 3}, {0, 3, 7}, {0, 5}};
  for (size_t b = 0; b < values.size(); ++b) {
    Result<Tuple> e = it->Next();
    ASSERT_TRUE(e.ok()) << e.status();
    ASSERT_EQ(e->size(), 2u);
    EXPECT_EQ(Ints((*e)[0]), values[b]);
    EXPECT_EQ(Ints((*e)[1]), splits[b]);
  }
  EXPECT_TRUE(IsOutOfRange(it->Next().status()));
  EXPECT_EQ(Filled(1, 6).RaggedBatch(2, true).Cardinality(), 2);
  // Rows of [x, 2]: values [sum, 2].
  Result<Iterator> pairs = Filled(1, 4, true).RaggedBatch(2).MakeIterator();
  ASSERT_TRUE(pairs.ok());
  Result<Tuple> e = pairs->Next();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)[0].shape(), TensorShape({3, 2}));
  EXPECT_EQ(Ints((*e)[1]), (std::vector<int64_t>{0, 1, 3}));
  // Scalars: stacked, with an empty row_splits.
  Result<Iterator> scalars = Dataset::Range(3).RaggedBatch(2).MakeIterator();
  ASSERT_TRUE(scalars.ok());
  e = scalars->Next();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Ints((*e)[0]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ((*e)[1].num_elements(), 0);
  // Inner dimensions that differ: INVALID_ARGUMENT naming the stage.
  Dataset mixed = Dataset::Zip({Filled(1, 3, true), Filled(1, 3)})
                      .Map([](Tuple t) -> Result<Tuple> {
                        return Tuple{t[0].dim_size(0) == 1 ? t[1] : t[0]};
                      });
  Status s = mixed.RaggedBatch(2).MakeIterator()->Next().status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("ragged_batch (stage"), std::string::npos) << s;
}

TEST(DatasetRaggedTest, SparseBatchGivesIndicesValuesAndTheDenseShape) {
  Result<Iterator> it = Filled(1, 6).SparseBatch(2, {6}).MakeIterator();
  ASSERT_TRUE(it.ok());
  Result<Tuple> e = it->Next();
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].shape(), TensorShape({3, 2}));
  EXPECT_EQ(Ints((*e)[0]), (std::vector<int64_t>{0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(Ints((*e)[1]), (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(Ints((*e)[2]), (std::vector<int64_t>{2, 6}));
  // Rank 2, and the last short batch's dense shape.
  Result<Iterator> pairs =
      Filled(1, 4, true).SparseBatch(2, {3, 2}).MakeIterator();
  ASSERT_TRUE(pairs.ok());
  ASSERT_TRUE(pairs->Next().ok());
  e = pairs->Next();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Ints((*e)[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 1, 0, 0,
                                                 1, 1, 0, 2, 0, 0, 2, 1}));
  EXPECT_EQ(Ints((*e)[2]), (std::vector<int64_t>{1, 3, 2}));
  // -1: the batch's largest.
  e = Filled(1, 6).SparseBatch(2, {-1}).MakeIterator()->Next();
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Ints((*e)[2]), (std::vector<int64_t>{2, 2}));
  // Larger than the row shape: TF's DATA_LOSS; a wrong rank: INVALID.
  Status s = Filled(3, 5).SparseBatch(2, {3}).MakeIterator()->Next().status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("larger than the row shape ([3])"),
            std::string::npos)
      << s;
  s = Filled(1, 3).SparseBatch(2, {3, 3}).MakeIterator()->Next().status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_TRUE(IsInvalidArgument(Filled(1, 3).SparseBatch(2, {}).status()));
}

TEST(DatasetRaggedTest, RaggedAndSparseBatchesRestoreExactly) {
  for (int sparse = 0; sparse < 2; ++sparse) {
    const Dataset d = sparse ? Filled(1, 12).SparseBatch(3, {-1})
                             : Filled(1, 12).RaggedBatch(3);
    const auto want = All(d);
    ASSERT_EQ(want.size(), 4u);
    for (size_t at = 0; at <= want.size(); ++at) {
      Result<Iterator> first = d.MakeIterator();
      ASSERT_TRUE(first.ok());
      for (size_t k = 0; k < at; ++k) ASSERT_TRUE(first->Next().ok());
      Result<std::string> state = first->Save();
      ASSERT_TRUE(state.ok());
      Result<Iterator> second = d.MakeIterator();
      ASSERT_TRUE(second.ok());
      ASSERT_TRUE(second->Restore(*state).ok());
      EXPECT_EQ(testing::Drain(*second),
                std::vector(want.begin() + at, want.end()))
          << sparse << " " << at;
    }
  }
}

}  // namespace
}  // namespace inflow::data
