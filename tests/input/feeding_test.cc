// Copyright 2026 The inflow Authors.

#include <chrono>
#include <memory>
#include <stop_token>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/batch_source.h"

namespace inflow {
namespace {

using std::chrono::milliseconds;

std::shared_ptr<Feeding> MakeFeeding(int64_t capacity = 4) {
  auto feeding =
      Feeding::Create({.dtypes = {DType::kFloat32, DType::kInt64},
                       .row_shapes = {PartialShape({2}), PartialShape({})},
                       .names = {"x", "y"},
                       .capacity = capacity});
  EXPECT_TRUE(feeding.ok()) << feeding.status();
  return *feeding;
}

// n rows: x = [[b, b], ...], y = [b, ...].
Tuple MakeBatch(int64_t n, int b) {
  std::vector<float> x(2 * n, static_cast<float>(b));
  return {Tensor::FromVector<float>(x, TensorShape({n, 2})).value(),
          Tensor::FromVector<int64_t>(std::vector<int64_t>(n, b))};
}

TEST(FeedingTest, NextReturnsTheFedBatchesInOrderThenOutOfRange) {
  auto feeding = MakeFeeding();
  std::thread feeder([&] {
    for (int b = 0; b < 20; ++b) {
      ASSERT_TRUE(feeding->Feed(MakeBatch(1 + b % 3, b), {}).ok());
    }
    feeding->Finish();
  });
  for (int b = 0; b < 20; ++b) {
    Result<Tuple> batch = feeding->Next({.timeout = milliseconds(10000)});
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ((*batch)[0], MakeBatch(1 + b % 3, b)[0]);
    EXPECT_EQ((*batch)[1], MakeBatch(1 + b % 3, b)[1]);
  }
  EXPECT_TRUE(IsOutOfRange(feeding->Next().status()));
  feeder.join();
  EXPECT_TRUE(feeding->Close().ok());
}

TEST(FeedingTest, FeedBlocksWhileCapacityBatchesWait) {
  auto feeding = MakeFeeding(/*capacity=*/2);
  ASSERT_TRUE(feeding->Feed(MakeBatch(1, 0)).ok());
  ASSERT_TRUE(feeding->Feed(MakeBatch(1, 1)).ok());
  // Full: a third feed waits; with a zero timeout it fails at once and
  // leaves nothing behind.
  EXPECT_TRUE(IsDeadlineExceeded(
      feeding->Feed(MakeBatch(1, 2), {.timeout = milliseconds(0)})));
  ASSERT_TRUE(feeding->Next().ok());
  EXPECT_TRUE(
      feeding->Feed(MakeBatch(1, 2), {.timeout = milliseconds(0)}).ok());
  feeding->Finish();
  EXPECT_EQ((*feeding->Next())[1], MakeBatch(1, 1)[1]);
  EXPECT_EQ((*feeding->Next())[1], MakeBatch(1, 2)[1]);
  EXPECT_TRUE(IsOutOfRange(feeding->Next().status()));
}

TEST(FeedingTest, NextNamedKeysTheBatchByName) {
  auto feeding = MakeFeeding();
  ASSERT_TRUE(feeding->Feed(MakeBatch(2, 7)).ok());
  Result<NamedTuple> named = feeding->NextNamed();
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->at("y"), MakeBatch(2, 7)[1]);
  EXPECT_EQ(named->at("x").shape(), TensorShape({2, 2}));
}

TEST(FeedingTest, BatchesOfTheWrongSignatureAreInvalidArgument) {
  auto feeding = MakeFeeding();
  Tuple wrong_rows = MakeBatch(2, 0);
  wrong_rows[1] = Tensor::FromVector<int64_t>({1, 2, 3});
  Status s = feeding->Feed(wrong_rows);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("component 1"), std::string::npos) << s;
  Tuple wrong_dtype = MakeBatch(2, 0);
  wrong_dtype[0] = Tensor::FromVector<int64_t>({1, 2});
  EXPECT_TRUE(IsInvalidArgument(feeding->Feed(wrong_dtype)));
  EXPECT_TRUE(IsInvalidArgument(feeding->Feed({MakeBatch(2, 0)[0]})));
  EXPECT_TRUE(IsInvalidArgument(feeding->Feed(MakeBatch(0, 0))));
  // Nothing was fed.
  EXPECT_TRUE(
      IsDeadlineExceeded(feeding->Next({.timeout = milliseconds(0)}).status()));
}

TEST(FeedingTest, CloseReleasesABlockedNextAndFailsLaterFeeds) {
  auto feeding = MakeFeeding();
  Status blocked;
  std::thread consumer([&] {
    blocked = feeding->Next({.timeout = milliseconds(30000)}).status();
  });
  // The consumer blocks (nothing fed) until Close releases it.
  EXPECT_TRUE(feeding->Close().ok());
  consumer.join();
  EXPECT_TRUE(IsCancelled(blocked) || IsOutOfRange(blocked)) << blocked;
  EXPECT_TRUE(IsCancelled(feeding->Next().status()));
  EXPECT_TRUE(IsCancelled(feeding->Feed(MakeBatch(1, 0))));
}

TEST(FeedingTest, TheCallersStopReleasesABlockedNextAndTheSourceRunsOn) {
  auto feeding = MakeFeeding();
  std::stop_source stop;
  Status blocked;
  std::thread consumer([&] {
    blocked =
        feeding
            ->Next({.timeout = milliseconds(30000), .stop = stop.get_token()})
            .status();
  });
  std::this_thread::sleep_for(milliseconds(20));  // let it block
  stop.request_stop();
  consumer.join();  // bounded: the Next would wait 30 s without the stop
  EXPECT_TRUE(IsCancelled(blocked)) << blocked;
  // Nothing was lost and nothing closed: the next batch comes through.
  ASSERT_TRUE(feeding->Feed(MakeBatch(2, 7)).ok());
  Result<Tuple> next = feeding->Next({.timeout = milliseconds(10000)});
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ((*next)[1].flat<int64_t>()[0], 7);
  EXPECT_TRUE(feeding->Close().ok());
}

TEST(FeedingTest, BadOptionsAreInvalidArgument) {
  EXPECT_TRUE(IsInvalidArgument(Feeding::Create({}).status()));
  EXPECT_TRUE(IsInvalidArgument(
      Feeding::Create({.dtypes = {DType::kFloat32}, .row_shapes = {}})
          .status()));
  EXPECT_TRUE(
      IsInvalidArgument(Feeding::Create({.dtypes = {DType::kFloat32},
                                         .row_shapes = {PartialShape({-1})}})
                            .status()));
  EXPECT_TRUE(
      IsInvalidArgument(Feeding::Create({.dtypes = {DType::kFloat32},
                                         .row_shapes = {PartialShape({})},
                                         .capacity = 0})
                            .status()));
}

}  // namespace
}  // namespace inflow
