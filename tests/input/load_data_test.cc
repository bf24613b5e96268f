// Copyright 2026 The inflow Authors.
//
// The three ways to load data behind BatchSource: preloaded tensors, fed
// batches, and reading from files; the same loop drains each.

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/batch_source.h"
#include "inflow/input/pipeline.h"
#include "inflow/io/mem_env.h"

#include "pipeline_test_util.h"

namespace inflow {
namespace {

using namespace testing_util;  // NOLINT(build/namespaces)

constexpr int kRows = 250;

// ids 0..249 and v = {id, -id}, as tensors.
Tuple InMemory() {
  std::vector<int64_t> ids;
  std::vector<float> v;
  for (int i = 0; i < kRows; ++i) {
    ids.push_back(i);
    v.push_back(static_cast<float>(i));
    v.push_back(-static_cast<float>(i));
  }
  return {Tensor::FromVector(ids),
          Tensor::FromVector(v, TensorShape({kRows, 2})).value()};
}

TEST(PreloadedTest, EveryRowComesOutOncePerEpoch) {
  auto source = Preloaded::Create(
      InMemory(),
      {.names = {"id", "v"},
       .num_epochs = 2,
       .batching = {.batch_size = 32, .allow_smaller_final_batch = true},
       .name = "preloaded_epochs"});
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ((*source)->names(), (std::vector<std::string>{"id", "v"}));
  Drained d = Drain(**source);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  ASSERT_EQ(d.ids.size(), 2u * kRows);
  for (const auto& [id, n] : Counts(d.ids)) ASSERT_EQ(n, 2) << id;
  EXPECT_EQ(d.batch_sizes.back(), (2 * kRows) % 32);
  // Shuffled (the default): not in index order.
  std::vector<int64_t> first_epoch(d.ids.begin(), d.ids.begin() + kRows);
  std::vector<int64_t> in_order(kRows);
  for (int i = 0; i < kRows; ++i) in_order[i] = i;
  EXPECT_NE(first_epoch, in_order);
  EXPECT_TRUE((*source)->Close().ok());
  EXPECT_TRUE(LiveThreads("preloaded_epochs").empty());
}

TEST(PreloadedTest, WithoutShufflingRowsComeInIndexOrder) {
  auto source = Preloaded::Create(
      InMemory(),
      {.num_epochs = 1, .shuffle = false, .batching = {.batch_size = 50}});
  ASSERT_TRUE(source.ok()) << source.status();
  Drained d = Drain(**source);
  EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
  ASSERT_EQ(d.ids.size(), static_cast<size_t>(kRows));
  for (int i = 0; i < kRows; ++i) ASSERT_EQ(d.ids[i], i);
}

TEST(PreloadedTest, MismatchedTensorsAreInvalidArgument) {
  EXPECT_TRUE(IsInvalidArgument(Preloaded::Create({}).status()));
  EXPECT_TRUE(IsInvalidArgument(
      Preloaded::Create({Tensor::Scalar<int64_t>(1)}).status()));
  EXPECT_TRUE(IsInvalidArgument(
      Preloaded::Create({Tensor::FromVector<int64_t>({1, 2}),
                         Tensor::FromVector<int64_t>({1, 2, 3})})
          .status()));
  EXPECT_TRUE(IsInvalidArgument(
      Preloaded::Create(InMemory(), {.names = {"only_one"}}).status()));
}

// The three factories. Only the line that makes `source` differs.
enum class Way { kPreloaded, kFeeding, kFiles };

TEST(ThreeWaysTest, TheSameLoopDrainsEachWayWithTheSameRows) {
  MemEnv env;
  std::vector<std::string> records;
  for (int i = 0; i < kRows; ++i) records.push_back(ExampleRecord(i));
  WriteRecordFile(env, "/data/all.tfrecord", records);
  const BatchingOptions batching = {.batch_size = 25};

  for (Way way : {Way::kPreloaded, Way::kFeeding, Way::kFiles}) {
    std::shared_ptr<BatchSource> source;
    std::thread feeder;
    switch (way) {
      case Way::kPreloaded:
        source = Preloaded::Create(InMemory(),
                                   {.num_epochs = 1, .batching = batching})
                     .value();
        break;
      case Way::kFeeding: {
        auto feeding =
            Feeding::Create(
                {.dtypes = {DType::kInt64, DType::kFloat32},
                 .row_shapes = {PartialShape({}), PartialShape({2})}})
                .value();
        feeder = std::thread([feeding] {
          const Tuple all = InMemory();
          for (int64_t b = 0; b < kRows; b += 25) {
            EXPECT_TRUE(
                feeding
                    ->Feed({all[0].Slice(b, b + 25), all[1].Slice(b, b + 25)})
                    .ok());
          }
          feeding->Finish();
        });
        source = feeding;
        break;
      }
      case Way::kFiles:
        source = Pipeline::Create({.files = {"/data/*.tfrecord"},
                                   .env = &env,
                                   .num_epochs = 1,
                                   .features = IdAndV(),
                                   .batching = batching})
                     .value();
        break;
    }
    Drained d = Drain(*source);
    if (feeder.joinable()) feeder.join();
    EXPECT_TRUE(IsOutOfRange(d.end)) << d.end;
    EXPECT_EQ(d.batch_sizes, std::vector<int64_t>(kRows / 25, 25));
    const std::map<int64_t, int> counts = Counts(d.ids);
    ASSERT_EQ(counts.size(), static_cast<size_t>(kRows));
    EXPECT_EQ(counts.begin()->first, 0);
    EXPECT_EQ(counts.rbegin()->first, kRows - 1);
    EXPECT_TRUE(source->Close().ok());
  }
}

}  // namespace
}  // namespace inflow
