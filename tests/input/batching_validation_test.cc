// Copyright 2026 The inflow Authors.
//
// The batching calls' argument errors (TF's ValueError / TypeError while
// building the graph: INVALID_ARGUMENT before any thread runs) and the
// maybe_* forms' keep_input (docs/conformance.md, "Batching").

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/batching.h"

#include "batching_test_util.h"
#include "input/keep_input.h"

namespace inflow {
namespace {

using testing::CountingInput;
using testing::Drain;
using testing::Flatten;

struct BatchValidationTest : ::testing::Test {
  ShuffleBatchOptions Options(int64_t batch_size) {
    ShuffleBatchOptions o;
    o.batch_size = batch_size;
    o.metrics = &registry;
    o.collection = &collection;
    return o;
  }
  MetricsRegistry registry;
  QueueRunnerCollection collection;
};

void ExpectInvalid(const Result<std::shared_ptr<Batcher>>& r,
                   const std::string& text) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status();
  EXPECT_NE(r.status().message().find(text), std::string::npos)
      << r.status() << " lacks '" << text << "'";
}

TEST_F(BatchValidationTest, CapacityMustBeBiggerThanMinAfterDequeue) {
  ShuffleBatchOptions o = Options(4);
  o.capacity = 100;
  o.min_after_dequeue = 100;
  ExpectInvalid(ShuffleBatch(CountingInput(0, 1), o),
                "capacity 100 must be bigger than min_after_dequeue 100");
  ExpectInvalid(ShuffleBatchJoin({CountingInput(0, 1)}, o),
                "capacity 100 must be bigger than min_after_dequeue 100");
  EXPECT_TRUE(collection.Get().empty());
  EXPECT_TRUE(registry.Snapshot().empty());
}

TEST_F(BatchValidationTest, BatchSizeAndThreadsMustBePositive) {
  ExpectInvalid(Batch(CountingInput(0, 1), Options(0)), "batch_size");
  BatchOptions o = Options(4);
  o.num_threads = 0;
  ExpectInvalid(Batch(CountingInput(0, 1), o), "num_threads");
}

TEST_F(BatchValidationTest, EmptyInputsAreRejected) {
  ExpectInvalid(BatchJoin({}, Options(4)), "at least one input");
  BatchInput none;
  none.step = [](const CallOptions&) -> Result<Tuple> { return Tuple{}; };
  ExpectInvalid(Batch(none, Options(4)), "at least one tensor");
  BatchInput no_step = CountingInput(0, 1);
  no_step.step = nullptr;
  ExpectInvalid(Batch(no_step, Options(4)), "no step");
}

TEST_F(BatchValidationTest, UnknownRanksAreRejected) {
  BatchInput in = CountingInput(0, 1);
  in.shapes = {PartialShape::UnknownRank()};
  ExpectInvalid(Batch(in, Options(4)), "cannot infer the rank");
  BatchOptions pad = Options(4);
  pad.dynamic_pad = true;
  ExpectInvalid(Batch(in, pad), "cannot infer the rank");
  BatchOptions many = Options(4);
  many.enqueue_many = true;
  ExpectInvalid(Batch(CountingInput(0, 1), many), "is a scalar");
}

TEST_F(BatchValidationTest, UnknownDimsNeedDynamicPad) {
  BatchInput in = CountingInput(0, 1);
  in.shapes = {PartialShape({-1, 3})};
  ExpectInvalid(Batch(in, Options(4)), "must be fully defined");
  ExpectInvalid(ShuffleBatch(in, Options(4)), "must be fully defined");
  BatchOptions pad = Options(4);
  pad.dynamic_pad = true;
  auto ok = Batch(in, pad);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)->output_shapes()[0], PartialShape({4, -1, 3}));
}

TEST_F(BatchValidationTest, ShuffleBatchHasNoDynamicPad) {
  ShuffleBatchOptions o = Options(4);
  o.dynamic_pad = true;
  ExpectInvalid(ShuffleBatch(CountingInput(0, 1), o), "dynamic_pad");
  ExpectInvalid(MaybeBatch(CountingInput(0, 1), KeepInputFn(), Options(4)),
                "keep_input is empty");
}

TEST_F(BatchValidationTest, JoinInputsMustAgreeOnTypesAndShapes) {
  BatchInput floats = CountingInput(0, 1);
  floats.dtypes = {DType::kFloat32};
  ExpectInvalid(BatchJoin({CountingInput(0, 1), floats}, Options(4)),
                "Expected types to be consistent: int64 vs. float32.");
  BatchInput vec2 = CountingInput(0, 1);
  vec2.shapes = {PartialShape({2})};
  BatchInput vec3 = CountingInput(0, 1);
  vec3.shapes = {PartialShape({3})};
  ExpectInvalid(BatchJoin({vec2, vec3}, Options(4)), "incompatible");
  // Compatible partial shapes merge (TF's merge_with).
  BatchInput any = CountingInput(0, 1);
  any.shapes = {PartialShape({-1})};
  auto merged = BatchJoin({any, vec3}, Options(4));
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ((*merged)->queue()->component_shapes()[0], PartialShape({3}));
}

TEST_F(BatchValidationTest, MismatchedShapeListsAreRejected) {
  BatchInput in = CountingInput(0, 1);
  in.shapes = {};
  ExpectInvalid(Batch(in, Options(4)), "0 shapes for 1 dtypes");
  BatchOptions o = Options(4);
  o.shapes = {PartialShape({}), PartialShape({})};
  ExpectInvalid(Batch(CountingInput(0, 1), o), "2 shapes for 1 components");
}

using MaybeBatchTest = BatchValidationTest;

// A bool vector with the given entries (non-zero: true).
Tensor Bools(const std::vector<int>& values) {
  Tensor t(DType::kBool, TensorShape({int64_t(values.size())}));
  bool* data = static_cast<bool*>(t.mutable_raw_data().value());
  for (size_t i = 0; i < values.size(); ++i) data[i] = values[i] != 0;
  return t;
}

KeepInputFn KeepEven() {
  return [](const Tuple& t) -> Result<Tensor> {
    return Tensor::Scalar<bool>(t[0].flat<int64_t>()[0] % 2 == 0);
  };
}

TEST_F(MaybeBatchTest, AFalseScalarSkipsTheWholeInput) {
  BatchOptions o = Options(5);
  o.num_threads = 2;
  o.allow_smaller_final_batch = true;
  auto batcher = MaybeBatch(CountingInput(0, 100), KeepEven(), o).value();
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_TRUE(d.join.ok()) << d.join;
  std::vector<int64_t> all = Flatten(d.batches);
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 50u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], int64_t(2 * i));
}

TEST_F(MaybeBatchTest, MaybeShuffleBatchJoinFiltersEveryInput) {
  ShuffleBatchOptions o = Options(5);
  o.capacity = 64;
  o.min_after_dequeue = 8;
  o.allow_smaller_final_batch = true;
  auto batcher =
      MaybeShuffleBatchJoin({CountingInput(0, 50), CountingInput(50, 100)},
                            KeepEven(), o)
          .value();
  std::vector<int64_t> all = Flatten(Drain(*batcher, collection).batches);
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 50u);
  EXPECT_EQ(all.back(), 98);
}

// Chunks of 4 rows: [0..3], [4..7], ... up to `end`.
BatchInput Chunks(int64_t end) {
  auto next = std::make_shared<std::atomic<int64_t>>(0);
  return BatchInput{.dtypes = {DType::kInt64, DType::kString},
                    .shapes = {PartialShape({4}), PartialShape({4})},
                    .step = [next, end](const CallOptions&) -> Result<Tuple> {
                      const int64_t b = next->fetch_add(4);
                      if (b >= end) return OutOfRangeError("done");
                      std::vector<std::string> s;
                      for (int64_t i = b; i < b + 4; ++i) {
                        s.push_back(std::to_string(i));
                      }
                      return Tuple{
                          Tensor::FromVector<int64_t>({b, b + 1, b + 2, b + 3}),
                          Tensor::FromVector(s)};
                    }};
}

TEST_F(MaybeBatchTest, AVectorWithEnqueueManyFiltersRows) {
  BatchOptions o = Options(4);
  o.enqueue_many = true;
  o.allow_smaller_final_batch = true;
  KeepInputFn multiples_of_3 = [](const Tuple& t) -> Result<Tensor> {
    std::vector<int> keep;
    for (int64_t v : t[0].flat<int64_t>()) keep.push_back(v % 3 == 0);
    return Bools(keep);
  };
  auto batcher = MaybeBatch(Chunks(40), multiples_of_3, o).value();
  Coordinator coord;
  auto threads = collection.Start(&coord);
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  for (;;) {
    Result<Tuple> b = batcher->Next(coord.MakeCallOptions(testing::kCallLimit));
    if (!b.ok()) break;
    for (int64_t v : (*b)[0].flat<int64_t>()) ints.push_back(v);
    for (const std::string& v : (*b)[1].flat<std::string>()) {
      strings.push_back(v);
    }
  }
  coord.RequestStop();
  EXPECT_TRUE(coord.Join(threads, testing::kShutdownBound).ok());
  EXPECT_EQ(ints, (std::vector<int64_t>{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30,
                                        33, 36, 39}));
  ASSERT_EQ(strings.size(), ints.size());
  for (size_t i = 0; i < ints.size(); ++i) {
    EXPECT_EQ(strings[i], std::to_string(ints[i]));
  }
}

TEST_F(MaybeBatchTest, KeepRowsCopiesOnlyKeptRowsAndNothingWhenAllAreKept) {
  Tuple batch = {Tensor::FromVector<int64_t>({10, 11, 12, 13})};
  Tuple same = internal::KeepRows(batch, Bools({1, 1, 1, 1}), "q").value();
  EXPECT_TRUE(same[0].SharesBufferWith(batch[0]));

  Tuple kept = internal::KeepRows(batch, Bools({0, 1, 1, 0}), "q").value();
  EXPECT_FALSE(kept[0].SharesBufferWith(batch[0]));
  EXPECT_EQ(kept[0], Tensor::FromVector<int64_t>({11, 12}));

  EXPECT_EQ(
      internal::KeepRows(batch, Bools({0, 0, 0, 0}), "q").value()[0].shape(),
      TensorShape({0}));
  EXPECT_EQ(internal::KeepRows(batch, Bools({1, 1, 1}), "q").status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(MaybeBatchTest, AVectorWithoutEnqueueManyStopsThePipeline) {
  KeepInputFn vector = [](const Tuple&) -> Result<Tensor> {
    return Bools({1});
  };
  auto batcher = MaybeBatch(CountingInput(0, 10), vector, Options(2)).value();
  testing::Drained d = Drain(*batcher, collection);
  EXPECT_EQ(d.join.code(), StatusCode::kInvalidArgument) << d.join;
  EXPECT_NE(d.join.message().find("cannot be a vector"), std::string::npos);

  KeepInputFn not_bool = [](const Tuple&) -> Result<Tensor> {
    return Tensor::Scalar<int64_t>(1);
  };
  collection.Clear();
  auto other = MaybeBatch(CountingInput(0, 10), not_bool, Options(2)).value();
  EXPECT_EQ(Drain(*other, collection).join.code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace inflow
