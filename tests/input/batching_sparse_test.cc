// Copyright 2026 The inflow Authors.
//
// SparseTensor components in the batch family: TF's batched SparseTensor
// (the expected values are TF's, from tf.compat.v1.train.batch on the same
// rows), empty rows, enqueue_many (TF's AddManySparseToTensorsMap), keep
// input, shuffling in the dense components' order, and TF's errors
// (docs/conformance.md, "Batching SparseTensors").

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/batching.h"
#include "inflow/queue/queue_options.h"

#include "batching_test_util.h"
#include "input/keep_input.h"
#include "input/sparse_rows.h"

namespace inflow {
namespace {

using testing::kCallLimit;
using testing::kShutdownBound;

// One row: indices (row-major, `rank` columns), values, dense shape.
struct Row {
  std::vector<int64_t> indices;
  std::vector<int64_t> values;
  std::vector<int64_t> shape;
};

Tensor Matrix(const std::vector<int64_t>& v, int64_t cols) {
  const int64_t rows = cols == 0 ? 0 : static_cast<int64_t>(v.size()) / cols;
  return Tensor::FromVector(v, TensorShape({rows, cols})).value();
}

// A SparseTensor (three tensors) of int64 values.
Tuple Sparse(const Row& r) {
  const int64_t rank = static_cast<int64_t>(r.shape.size());
  Tensor indices =
      rank == 0
          ? Tensor(DType::kInt64,
                   TensorShape({static_cast<int64_t>(r.values.size()), 0}))
          : Matrix(r.indices, rank);
  return {indices, Tensor::FromVector(r.values), Tensor::FromVector(r.shape)};
}

// Component 0: row i of `rows` as a SparseTensor; component 1: i (int64
// scalar). OUT_OF_RANGE after the last row.
BatchInput SparseInput(std::vector<Row> rows, int rank) {
  auto next = std::make_shared<std::atomic<size_t>>(0);
  auto shared = std::make_shared<std::vector<Row>>(std::move(rows));
  BatchInput in;
  in.dtypes = {DType::kInt64, DType::kInt64};
  in.shapes = {rank < 0 ? PartialShape::UnknownRank()
                        : PartialShape(std::vector<int64_t>(rank, -1)),
               PartialShape({})};
  in.sparse = {true, false};
  in.step = [next, shared](const CallOptions&) -> Result<Tuple> {
    const size_t i = next->fetch_add(1);
    if (i >= shared->size()) return OutOfRangeError("no more rows");
    Tuple out = Sparse((*shared)[i]);
    out.push_back(Tensor::Scalar<int64_t>(static_cast<int64_t>(i)));
    return out;
  };
  return in;
}

std::vector<int64_t> Values(const Tensor& t) {
  auto v = t.flat<int64_t>();
  return {v.begin(), v.end()};
}

struct Got {
  std::vector<Tuple> batches;
  Status end;
  Status join;
};

struct SparseBatchTest : ::testing::Test {
  BatchOptions Options(int64_t batch_size) {
    BatchOptions o;
    o.batch_size = batch_size;
    o.metrics = &registry;
    o.collection = &collection;
    return o;
  }
  Got Drain(Batcher& batcher) {
    Got got;
    Coordinator coord;
    auto threads = collection.Start(&coord);
    for (;;) {
      Result<Tuple> b = batcher.Next(coord.MakeCallOptions(kCallLimit));
      if (!b.ok()) {
        got.end = b.status();
        break;
      }
      got.batches.push_back(std::move(b).value());
    }
    coord.RequestStop();
    got.join = coord.Join(threads, kShutdownBound);
    return got;
  }
  MetricsRegistry registry;
  QueueRunnerCollection collection;
};

void ExpectSparse(const Tuple& batch, size_t at,
                  const std::vector<int64_t>& indices, int64_t cols,
                  const std::vector<int64_t>& values,
                  const std::vector<int64_t>& shape) {
  ASSERT_GE(batch.size(), at + 3);
  EXPECT_EQ(batch[at], Matrix(indices, cols)) << batch[at].DebugString();
  EXPECT_EQ(Values(batch[at + 1]), values);
  EXPECT_EQ(Values(batch[at + 2]), shape);
}

// TF: parse_single_example of VarLenFeature(int64) rows [1,2,3], [], [7],
// [4,5], [9,9,9,9] -> batch([tags, label], 2, allow_smaller_final_batch).
TEST_F(SparseBatchTest, VarLenRowsBatchAsTF) {
  std::vector<Row> rows = {{{0, 1, 2}, {1, 2, 3}, {3}},
                           {{}, {}, {0}},
                           {{0}, {7}, {1}},
                           {{0, 1}, {4, 5}, {2}},
                           {{0, 1, 2, 3}, {9, 9, 9, 9}, {4}}};
  BatchOptions o = Options(2);
  o.allow_smaller_final_batch = true;
  auto batcher = Batch(SparseInput(rows, 1), o).value();
  EXPECT_EQ(batcher->sparse(), (std::vector<bool>{true, false}));
  EXPECT_EQ(batcher->output_shapes()[0].DebugString(), "[?,?]");
  Got got = Drain(*batcher);
  EXPECT_EQ(got.end.code(), StatusCode::kOutOfRange) << got.end;
  EXPECT_TRUE(got.join.ok()) << got.join;
  ASSERT_EQ(got.batches.size(), 3u);
  ExpectSparse(got.batches[0], 0, {0, 0, 0, 1, 0, 2}, 2, {1, 2, 3}, {2, 3});
  EXPECT_EQ(Values(got.batches[0][3]), (std::vector<int64_t>{0, 1}));
  ExpectSparse(got.batches[1], 0, {0, 0, 1, 0, 1, 1}, 2, {7, 4, 5}, {2, 2});
  ExpectSparse(got.batches[2], 0, {0, 0, 0, 1, 0, 2, 0, 3}, 2, {9, 9, 9, 9},
               {1, 4});
  EXPECT_EQ(Values(got.batches[2][3]), (std::vector<int64_t>{4}));
}

// TF: empty rows give no entries and a zero dim unless a row's shape says
// otherwise.
TEST_F(SparseBatchTest, EmptyRowsKeepTheirDenseShape) {
  auto batcher =
      Batch(
          SparseInput(
              {{{}, {}, {0}}, {{}, {}, {0}}, {{}, {}, {0}}, {{}, {}, {2}}}, 1),
          Options(2))
          .value();
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 2u) << got.end;
  ExpectSparse(got.batches[0], 0, {}, 2, {}, {2, 0});
  EXPECT_EQ(got.batches[0][0].shape(), TensorShape({0, 2}));
  ExpectSparse(got.batches[1], 0, {}, 2, {}, {2, 2});
}

// TF keeps each row's entries in the order given (no reordering) and takes
// the max of each dim.
TEST_F(SparseBatchTest, RankTwoRowsKeepTheirOrder) {
  auto batcher = Batch(SparseInput({{{1, 0, 0, 2}, {1, 2}, {2, 3}},
                                    {{0, 0}, {3}, {4, 1}},
                                    {{2, 2, 0, 0, 1, 1}, {4, 5, 6}, {3, 3}}},
                                   2),
                       Options(3))
                     .value();
  EXPECT_EQ(batcher->output_shapes()[0].DebugString(), "[?,?,?]");
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 1u) << got.end;
  ExpectSparse(got.batches[0], 0,
               {0, 1, 0, 0, 0, 2, 1, 0, 0, 2, 2, 2, 2, 0, 0, 2, 1, 1}, 3,
               {1, 2, 3, 4, 5, 6}, {3, 4, 3});
}

// TF: rank-0 SparseTensors (one value each) batch to indices [[0], [1]],
// dense_shape [2].
TEST_F(SparseBatchTest, RankZeroRowsBatchToAVector) {
  auto batcher =
      Batch(SparseInput({{{}, {1}, {}}, {{}, {3}, {}}}, 0), Options(2)).value();
  EXPECT_EQ(batcher->output_shapes()[0].DebugString(), "[?]");
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 1u) << got.end;
  ExpectSparse(got.batches[0], 0, {0, 1}, 1, {1, 3}, {2});
}

TEST_F(SparseBatchTest, RowsOfDifferentRanksFailTheBatchAsInTF) {
  auto batcher = Batch(SparseInput({{{1}, {1}, {2}},
                                    {{0, 0}, {3}, {4, 1}},
                                    {{2}, {4}, {3}},
                                    {{1}, {1}, {2}}},
                                   -1),
                       Options(2))
                     .value();
  Got got = Drain(*batcher);
  EXPECT_EQ(got.end.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.end.message().find(
                "Inconsistent rank across SparseTensors: rank prior to "
                "SparseTensor[1] was: 2 but rank of SparseTensor[1] is: 3"),
            std::string::npos)
      << got.end;
}

TEST_F(SparseBatchTest, MalformedRowsFailTheStepWithTFsMessages) {
  struct Case {
    Row row;
    int rank;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{0, 1}, {1}, {2}},
       1,
       "indices and values rows (indexing dimension) must match. (indices = "
       "2, values = 1)"},
      {{{0}, {1}, {-1}}, 1, "Dimension -1 must be >= 0"},
      {{{0, 0}, {1}, {2, 2}}, 1, "has rank 2, declared 1"},
  };
  for (const Case& c : cases) {
    QueueRunnerCollection local;
    BatchOptions o = Options(1);
    o.collection = &local;
    auto batcher = Batch(SparseInput({c.row}, c.rank), o).value();
    Coordinator coord;
    auto threads = local.Start(&coord);
    Result<Tuple> b = batcher->Next(coord.MakeCallOptions(kCallLimit));
    EXPECT_FALSE(b.ok());
    Status join = coord.Join(threads, kShutdownBound);
    EXPECT_EQ(join.code(), StatusCode::kInvalidArgument) << join;
    EXPECT_NE(join.message().find(c.message), std::string::npos) << join;
    EXPECT_NE(join.message().find("SparseTensor component 0"),
              std::string::npos)
        << join;
  }
}

// A [4, 5] SparseTensor of rows enqueued at once (TF: enqueue_many=True).
BatchInput ManyInput(std::vector<int64_t> indices, std::vector<int64_t> values,
                     std::vector<int64_t> shape) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  BatchInput in;
  in.dtypes = {DType::kInt64, DType::kInt64};
  in.shapes = {PartialShape({-1, -1}), PartialShape({-1})};
  in.sparse = {true, false};
  in.step = [=](const CallOptions&) -> Result<Tuple> {
    if (done->exchange(true)) return OutOfRangeError("done");
    Tuple out = Sparse({indices, values, shape});
    std::vector<int64_t> labels(shape[0]);
    for (int64_t i = 0; i < shape[0]; ++i) labels[i] = i;
    out.push_back(Tensor::FromVector(labels));
    return out;
  };
  return in;
}

TEST_F(SparseBatchTest, EnqueueManySplitsRowsAsTF) {
  BatchOptions o = Options(2);
  o.enqueue_many = true;
  o.allow_smaller_final_batch = true;
  auto batcher =
      Batch(ManyInput({0, 0, 0, 2, 2, 1, 3, 0, 3, 1}, {1, 2, 3, 4, 5}, {4, 5}),
            o)
          .value();
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 2u) << got.end;
  // Each row keeps the batch's dense_shape[1:], also the empty row 1.
  ExpectSparse(got.batches[0], 0, {0, 0, 0, 2}, 2, {1, 2}, {2, 5});
  ExpectSparse(got.batches[1], 0, {0, 1, 1, 0, 1, 1}, 2, {3, 4, 5}, {2, 5});
  EXPECT_EQ(Values(got.batches[1][3]), (std::vector<int64_t>{2, 3}));
}

TEST_F(SparseBatchTest, EnqueueManyWithRowExtentsGivesEachRowItsOwnShape) {
  BatchOptions o = Options(2);
  o.enqueue_many = true;
  BatchInput in =
      ManyInput({0, 0, 0, 2, 2, 1, 3, 0, 3, 1}, {1, 2, 3, 4, 5}, {4, 5});
  in.sparse_row_extents = true;
  auto batcher = Batch(std::move(in), o).value();
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 2u) << got.end;
  ExpectSparse(got.batches[0], 0, {0, 0, 0, 2}, 2, {1, 2}, {2, 3});
  ExpectSparse(got.batches[1], 0, {0, 1, 1, 0, 1, 1}, 2, {3, 4, 5}, {2, 2});
}

TEST_F(SparseBatchTest, EnqueueManyChecksOrderAndBoundsAsTF) {
  const std::vector<std::pair<std::vector<int64_t>, std::string>> cases = {
      {{3, 0, 0, 2}, "indices[1] = [0,2] is out of order"},
      {{0, 0, 5, 2},
       "indices[1] = [5,2] is out of bounds: need 0 <= index < "
       "[4,5]"},
      {{0, 0, 0, 0}, "indices[1] = [0,0] is repeated"},
  };
  for (const auto& [indices, message] : cases) {
    QueueRunnerCollection local;
    BatchOptions o = Options(2);
    o.enqueue_many = true;
    o.collection = &local;
    auto batcher = Batch(ManyInput(indices, {1, 2}, {4, 5}), o).value();
    Coordinator coord;
    auto threads = local.Start(&coord);
    EXPECT_FALSE(batcher->Next(coord.MakeCallOptions(kCallLimit)).ok());
    Status join = coord.Join(threads, kShutdownBound);
    EXPECT_EQ(join.code(), StatusCode::kInvalidArgument) << join;
    EXPECT_NE(join.message().find(message), std::string::npos) << join;
  }
}

// TF: maybe_batch(..., keep_input=[True, False, True, True],
// enqueue_many=True).
TEST_F(SparseBatchTest, KeepInputVectorDropsRowsAsTF) {
  BatchOptions o = Options(2);
  o.enqueue_many = true;
  o.allow_smaller_final_batch = true;
  auto batcher =
      MaybeBatch(
          ManyInput({0, 0, 0, 2, 2, 1, 3, 0, 3, 1}, {1, 2, 3, 4, 5}, {4, 5}),
          [](const Tuple&) -> Result<Tensor> {
            Tensor keep(DType::kBool, TensorShape({4}));
            std::span<bool> k = keep.mutable_flat<bool>().value();
            k[0] = true, k[1] = false, k[2] = true, k[3] = true;
            return keep;
          },
          o)
          .value();
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 2u) << got.end;
  ExpectSparse(got.batches[0], 0, {0, 0, 0, 2, 1, 1}, 2, {1, 2, 3}, {2, 5});
  EXPECT_EQ(Values(got.batches[0][3]), (std::vector<int64_t>{0, 2}));
  ExpectSparse(got.batches[1], 0, {0, 0, 0, 1}, 2, {4, 5}, {1, 5});
}

TEST_F(SparseBatchTest, KeepInputScalarSkipsRows) {
  BatchOptions o = Options(2);
  auto flip = std::make_shared<std::atomic<int>>(0);
  auto batcher = MaybeBatch(
                     SparseInput({{{0}, {10}, {1}},
                                  {{0}, {11}, {1}},
                                  {{0, 1}, {12, 13}, {2}},
                                  {{0}, {14}, {1}},
                                  {{}, {}, {0}}},
                                 1),
                     [flip](const Tuple&) -> Result<Tensor> {
                       return Tensor::Scalar<bool>(flip->fetch_add(1) % 2 == 0);
                     },
                     o)
                     .value();
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 1u) << got.end;
  ExpectSparse(got.batches[0], 0, {0, 0, 1, 0, 1, 1}, 2, {10, 12, 13}, {2, 2});
  EXPECT_EQ(Values(got.batches[0][3]), (std::vector<int64_t>{0, 2}));
}

// The handles shuffle as any int64 component does: the rows come out in
// the order of the dense labels, the same order for the same seed.
TEST_F(SparseBatchTest, ShuffleBatchMovesEachRowWithItsLabel) {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 50; ++i) {
    Row r;
    for (int64_t j = 0; j < i % 4; ++j) {
      r.indices.push_back(j);
      r.values.push_back(100 * i + j);
    }
    r.shape = {i % 4};
    rows.push_back(r);
  }
  ShuffleBatchOptions o;
  o.batch_size = 5;
  o.capacity = 60;
  o.min_after_dequeue = 10;
  o.seed = 7;
  o.metrics = &registry;
  o.collection = &collection;
  auto batcher = ShuffleBatch(SparseInput(rows, 1), o).value();
  Got got = Drain(*batcher);
  // Closed, the queue drains below min_after_dequeue (as TF's).
  ASSERT_EQ(got.batches.size(), 10u) << got.end;
  std::vector<int64_t> seen;
  for (const Tuple& b : got.batches) {
    const std::vector<int64_t> labels = Values(b[3]);
    std::vector<int64_t> indices, values;
    int64_t width = 0;
    for (size_t r = 0; r < labels.size(); ++r) {
      const int64_t i = labels[r];
      seen.push_back(i);
      width = std::max(width, i % 4);
      for (int64_t j = 0; j < i % 4; ++j) {
        indices.insert(indices.end(), {static_cast<int64_t>(r), j});
        values.push_back(100 * i + j);
      }
    }
    ExpectSparse(b, 0, indices, 2, values,
                 {static_cast<int64_t>(labels.size()), width});
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
}

// Four enqueue threads store rows concurrently: every row comes out once,
// with its own values next to its label.
TEST_F(SparseBatchTest, FourThreadsDeliverEveryRowOnce) {
  std::vector<Row> rows;
  for (int64_t i = 0; i < 2000; ++i) {
    Row r;
    for (int64_t j = 0; j < i % 3; ++j) {
      r.indices.push_back(j);
      r.values.push_back(10 * i + j);
    }
    r.shape = {i % 3};
    rows.push_back(r);
  }
  BatchOptions o = Options(64);
  o.num_threads = 4;
  o.allow_smaller_final_batch = true;
  auto batcher = Batch(SparseInput(rows, 1), o).value();
  Got got = Drain(*batcher);
  EXPECT_EQ(got.end.code(), StatusCode::kOutOfRange) << got.end;
  EXPECT_TRUE(got.join.ok()) << got.join;
  std::vector<int64_t> seen;
  for (const Tuple& b : got.batches) {
    const std::vector<int64_t> labels = Values(b[3]);
    const auto ix = b[0].flat<int64_t>();
    const std::vector<int64_t> values = Values(b[1]);
    for (size_t e = 0; e < values.size(); ++e) {
      const int64_t i = labels[ix[2 * e]];
      ASSERT_EQ(values[e], 10 * i + ix[2 * e + 1]);
    }
    seen.insert(seen.end(), labels.begin(), labels.end());
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), 2000u);
  for (int64_t i = 0; i < 2000; ++i) ASSERT_EQ(seen[i], i);
}

// An EnqueueMany that times out may have inserted some rows (as TF's):
// their handles must still name their rows.
TEST(SparseRowsTest, RowsAnEnqueueManyInsertedBeforeItFailedStayValid) {
  QueueOptions qo;
  qo.capacity = 2;
  qo.dtypes = {DType::kInt64};
  qo.shapes = {PartialShape({1})};
  std::shared_ptr<QueueInterface> queue =
      CreateQueue(QueueKind::kFIFO, qo).value();
  auto rows = std::make_shared<internal::SparseRows>(
      std::vector<internal::SparseRows::Component>{{true, DType::kInt64, 1}},
      /*enqueue_many=*/true, "test");
  QueueOp op = internal::MakeSparseEnqueueOp(
      queue,
      [](const CallOptions&) -> Result<Tuple> {
        return Sparse({{0, 0, 1, 0, 2, 0, 3, 0}, {10, 11, 12, 13}, {4, 1}});
      },
      rows, /*enqueue_many=*/true, /*row_extents=*/false);
  // Rows 0 and 1 go in, then the call waits for room nobody makes and
  // times out (whenever it does, the outcome is the same).
  CallOptions soon;
  soon.timeout = std::chrono::milliseconds(10);
  EXPECT_EQ(op(soon).code(), StatusCode::kDeadlineExceeded);
  CallOptions now;
  now.timeout = std::chrono::milliseconds(0);
  ASSERT_EQ(queue->Size(), 2);
  Result<Tuple> batch = rows->Take(queue->DequeueMany(2, now).value());
  ASSERT_TRUE(batch.ok()) << batch.status();
  ExpectSparse(*batch, 0, {0, 0, 1, 0}, 2, {10, 11}, {2, 1});
}

TEST_F(SparseBatchTest, BuildTimeChecks) {
  {
    BatchOptions o = Options(2);
    o.enqueue_many = true;
    auto b = Batch(SparseInput({}, 1), o);
    EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(b.status().message().find("enqueue_many needs a batch (rank >= "
                                        "2)"),
              std::string::npos)
        << b.status();
  }
  {
    // TF's _shapes: a SparseTensor is queued as an int64 [1] handle.
    BatchOptions o = Options(2);
    o.shapes = {PartialShape({}), PartialShape({})};
    auto b = Batch(SparseInput({}, 1), o);
    EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
    o.shapes = {PartialShape({1}), PartialShape({})};
    EXPECT_TRUE(Batch(SparseInput({}, 1), o).ok());
  }
  {
    BatchInput dense = SparseInput({}, 1);
    dense.sparse = {false, false};
    std::vector<BatchInput> inputs = {SparseInput({}, 1), std::move(dense)};
    auto b = BatchJoin(std::move(inputs), Options(2));
    EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(b.status().message().find("Inconsistent SparseTensors list"),
              std::string::npos)
        << b.status();
  }
  {
    std::vector<BatchInput> inputs = {SparseInput({}, 1), SparseInput({}, 2)};
    auto b = BatchJoin(std::move(inputs), Options(2));
    EXPECT_NE(b.status().message().find("Inconsistent SparseTensors list"),
              std::string::npos)
        << b.status();
  }
  {
    // Another call's handles in a shared queue would be another call's rows.
    BatchOptions o = Options(2);
    o.shared_name = "shared_sparse";
    auto b = Batch(SparseInput({}, 1), o);
    EXPECT_NE(b.status().message().find("shared_name is not supported"),
              std::string::npos)
        << b.status();
  }
  {
    BatchInput in = SparseInput({}, 1);
    in.names = {"tags", "label"};
    auto b = Batch(std::move(in), Options(2)).value();
    Result<NamedTuple> named = b->NextNamed();
    EXPECT_EQ(named.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(named.status().message().find("\"tags\""), std::string::npos);
  }
}

TEST_F(SparseBatchTest, BatchJoinSharesOneStoreAndDynamicPadWorks) {
  std::vector<BatchInput> inputs = {
      SparseInput({{{0}, {1}, {1}}, {{0, 1}, {2, 3}, {2}}}, 1),
      SparseInput({{{0, 1, 2}, {4, 5, 6}, {3}}}, 1)};
  BatchOptions o = Options(3);
  o.dynamic_pad = true;
  auto batcher = BatchJoin(std::move(inputs), o).value();
  Got got = Drain(*batcher);
  ASSERT_EQ(got.batches.size(), 1u) << got.end;
  const Tuple& b = got.batches[0];
  EXPECT_EQ(Values(b[2])[0], 3);
  EXPECT_EQ(Values(b[2])[1], 3);
  std::vector<int64_t> values = Values(b[1]);
  std::sort(values.begin(), values.end());
  EXPECT_EQ(values, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace inflow
