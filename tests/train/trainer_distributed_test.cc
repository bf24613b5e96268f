// Copyright 2026 The inflow Authors.
//
// Data-parallel Train() with ranks as threads of this process
// (distributed::MakeLocalGroup) over one MemEnv: the same model as one
// process with the same global batch, every record once per epoch across
// the ranks, resume with another number of ranks, and errors and stops on
// one rank reaching every rank. The ranks synchronise only through their
// collectives; no test sleeps.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <stop_token>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/distributed/communicator.h"
#include "inflow/io/crc32c.h"

#include "trainer_test_data.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

constexpr char kData[] = "/inflow-mem/data";

// 240 training examples in two shards of 120, 60 test ones.
void WriteData(MemEnv& env) {
  testing::WriteSplit(env, kData, "train", 240, 1);
  testing::WriteSplit(env, kData, "test", 60, 2);
}

TrainOptions Options(MemEnv& env, const std::string& ckpt, FeedKind feed) {
  TrainOptions o;
  o.env = &env;
  o.data_dir = kData;
  o.batch_size = 48;  // 5 steps an epoch; a multiple of 1, 2 and 3 ranks
  o.seed = 5;
  o.optimizer = OptimizerKind::kAdam;
  o.learning_rate = 0.005f;
  o.steps = 10;
  o.ckpt_dir = ckpt;
  o.save_every = 5;
  o.eval_each_epoch = false;
  o.feed = feed;
  o.check_replicas_every = 2;
  return o;
}

// Train(options) on `ranks` threads, each with its communicator; `adjust`
// may change a rank's options and callbacks first.
// `ranks_per_host`: MakeLocalGroup's.
std::vector<Result<TrainSummary>> TrainOnRanks(
    int ranks, const TrainOptions& options,
    const std::function<void(int, TrainOptions&, TrainCallbacks&)>& adjust = {},
    int ranks_per_host = 0) {
  std::vector<std::unique_ptr<distributed::Communicator>> group =
      distributed::MakeLocalGroup(ranks, ranks_per_host);
  std::vector<Result<TrainSummary>> results(
      ranks, Result<TrainSummary>(UnknownError("not run")));
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < ranks; ++r) {
      threads.emplace_back([&, r] {
        TrainOptions o = options;
        o.communicator = group[r].get();
        TrainCallbacks cb;
        if (adjust) adjust(r, o, cb);
        results[r] = Train(o, cb);
      });
    }
  }
  return results;
}

std::vector<float> Weights(MemEnv& env, const std::string& ckpt) {
  const std::optional<std::string> latest =
      LatestCheckpoint(ckpt, {.env = &env}).value();
  EXPECT_TRUE(latest.has_value()) << ckpt;
  if (!latest) return {};
  auto reader = BundleReader::Open(*latest, &env).value();
  std::vector<float> all;
  for (const char* name : {"layer1/weights", "layer1/biases", "layer2/weights",
                           "layer3/weights", "layer3/biases"}) {
    const Tensor t = reader->Read(name).value();
    all.insert(all.end(), t.flat<float>().begin(), t.flat<float>().end());
  }
  return all;
}

void ExpectClose(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  // The order of the sums differs (a few 1e-5 after 10 Adam steps); a
  // rank with the wrong rows' dropout masks is 0.08 off.
  EXPECT_LT(worst, 1e-4f) << "max |a - b|";
}

TEST(TrainerDistributedTest, TwoAndThreeRanksTrainTheOneProcessModel) {
  MemEnv env;
  WriteData(env);
  Result<TrainSummary> one =
      Train(Options(env, "/inflow-mem/one", FeedKind::kSequence));
  ASSERT_TRUE(one.ok()) << one.status();
  for (int ranks : {2, 3}) {
    const std::string ckpt = "/inflow-mem/ranks" + std::to_string(ranks);
    auto results = TrainOnRanks(ranks, Options(env, ckpt, FeedKind::kSequence));
    for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(results[0]->steps, 10);
    for (int64_t i = 0; i < 10; ++i) {
      EXPECT_NEAR(results[0]->losses[i], one->losses[i], 1e-5) << i;
      // Every rank saw the same (averaged) losses.
      EXPECT_EQ(results[ranks - 1]->losses[i], results[0]->losses[i]);
    }
    ExpectClose(Weights(env, ckpt), Weights(env, "/inflow-mem/one"));
    EXPECT_GT(results[0]->test_accuracy, 0.0);
  }
}

TEST(TrainerDistributedTest, TheSlicedStepTrainsTheAllreducePathsModel) {
  // Both sum the ranks' gradients in rank order: the same bits, on one
  // host and on several.
  MemEnv env;
  WriteData(env);
  // {ranks, ranks per host}
  for (auto [ranks, per_host] : {std::pair{2, 0}, {3, 0}, {2, 1}}) {
    const std::string name =
        std::to_string(ranks) + "-" + std::to_string(per_host);
    std::vector<float> weights[2];
    std::vector<float> losses[2];
    for (bool sliced : {false, true}) {
      const std::string ckpt =
          "/inflow-mem/sliced" + name + (sliced ? "-yes" : "-no");
      TrainOptions o = Options(env, ckpt, FeedKind::kSequence);
      o.sliced_step = sliced;
      auto results = TrainOnRanks(ranks, o, {}, per_host);
      for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
      weights[sliced] = Weights(env, ckpt);
      losses[sliced] = results[0]->losses;
    }
    EXPECT_EQ(weights[1], weights[0]) << name;
    EXPECT_EQ(losses[1], losses[0]) << name;
  }
}

// The CRC32C of each batch row's image (a record's identity here).
std::vector<uint32_t> RowIds(const Tuple& batch) {
  const Tensor& images = batch[0];
  const int64_t rows = images.dim_size(0);
  const int64_t width = images.num_elements() / rows;
  std::vector<uint32_t> ids;
  for (int64_t i = 0; i < rows; ++i) {
    ids.push_back(
        crc32c::Value(images.data<float>() + i * width, width * sizeof(float)));
  }
  return ids;
}

TEST(TrainerDistributedTest, EveryRecordIsUsedOncePerEpochAcrossTheRanks) {
  MemEnv env;
  WriteData(env);
  // The records' identities, from a one-process sequence run over one
  // whole epoch.
  std::multiset<uint32_t> dataset;
  {
    TrainOptions o = Options(env, "", FeedKind::kSequence);
    o.steps = 5;
    TrainCallbacks cb;
    cb.on_batch = [&](int64_t, const Tuple& b) {
      for (uint32_t id : RowIds(b)) dataset.insert(id);
    };
    ASSERT_TRUE(Train(o, cb).ok());
  }
  ASSERT_EQ(dataset.size(), 240u);
  ASSERT_EQ(std::set<uint32_t>(dataset.begin(), dataset.end()).size(), 240u);
  // Two ranks: whole files; three: records by index. Both feeds, three
  // epochs (15 steps).
  for (FeedKind feed : {FeedKind::kDataset, FeedKind::kSequence}) {
    for (int ranks : {2, 3}) {
      TrainOptions o = Options(env, "", feed);
      o.steps = 15;
      std::mutex mu;
      std::map<int64_t, std::multiset<uint32_t>> epochs;  // epoch -> ids
      auto results =
          TrainOnRanks(ranks, o, [&](int, TrainOptions&, TrainCallbacks& cb) {
            cb.on_batch = [&](int64_t step, const Tuple& b) {
              std::lock_guard<std::mutex> lock(mu);
              for (uint32_t id : RowIds(b)) epochs[(step - 1) / 5].insert(id);
            };
          });
      for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_EQ(epochs.size(), 3u);
      for (auto& [epoch, ids] : epochs) {
        EXPECT_EQ(ids, dataset)
            << FeedKindName(feed) << " " << ranks << " ranks, epoch " << epoch;
      }
    }
  }
}

TEST(TrainerDistributedTest,
     ATwoRankCheckpointResumesWithOneAndWithThreeRanks) {
  MemEnv env;
  WriteData(env);
  Result<TrainSummary> whole =
      Train(Options(env, "/inflow-mem/whole", FeedKind::kSequence));
  ASSERT_TRUE(whole.ok()) << whole.status();
  for (int then : {1, 3}) {
    const std::string ckpt = "/inflow-mem/resumed" + std::to_string(then);
    TrainOptions first = Options(env, ckpt, FeedKind::kSequence);
    first.steps = 5;
    for (auto& r : TrainOnRanks(2, first)) ASSERT_TRUE(r.ok()) << r.status();
    TrainOptions second = Options(env, ckpt, FeedKind::kSequence);
    second.resume = true;
    if (then == 1) {
      ASSERT_TRUE(Train(second).ok());
    } else {
      auto results = TrainOnRanks(then, second);
      for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(results[0]->start_step, 5);
      EXPECT_EQ(results[0]->steps, 10);
    }
    ExpectClose(Weights(env, ckpt), Weights(env, "/inflow-mem/whole"));
  }
  // The dataset feed resumes at the global step too (its batches differ
  // from one process's: each rank shuffles its own part).
  TrainOptions first = Options(env, "/inflow-mem/ds", FeedKind::kDataset);
  first.steps = 5;
  for (auto& r : TrainOnRanks(2, first)) ASSERT_TRUE(r.ok()) << r.status();
  TrainOptions second = Options(env, "/inflow-mem/ds", FeedKind::kDataset);
  second.resume = true;
  auto results = TrainOnRanks(3, second);
  for (auto& r : results) ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(results[0]->start_step, 5);
  EXPECT_EQ(results[0]->steps, 10);
}

TEST(TrainerDistributedTest, AnErrorOnOneRankIsEveryRanksNamingIt) {
  MemEnv env;
  WriteData(env);
  auto results = TrainOnRanks(3, Options(env, "", FeedKind::kDataset),
                              [](int rank, TrainOptions& o, TrainCallbacks&) {
                                if (rank == 2)
                                  o.data_dir = "/inflow-mem/elsewhere";
                              });
  for (auto& r : results) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("local rank 2: "));
    EXPECT_THAT(std::string(r.status().message()),
                HasSubstr("/inflow-mem/elsewhere"));
  }
}

TEST(TrainerDistributedTest,
     RankZerosFailedCheckpointIsEveryRanksErrorNotAHang) {
  // Rank 0 alone writes: its failure comes to the other ranks through the
  // next step's exchange, instead of leaving them waiting for it there.
  MemEnv env;
  WriteData(env);
  for (int64_t save_every : {5, 10}) {  // inside the run, and at its end
    TrainOptions o = Options(env, "/inflow-mem/full", FeedKind::kDataset);
    o.save_every = save_every;
    auto results =
        TrainOnRanks(2, o, [&](int rank, TrainOptions&, TrainCallbacks& cb) {
          if (rank != 0) return;
          cb.on_batch = [&](int64_t step, const Tuple&) {
            // Armed after graph.pbtxt and before the save of step 5 or 10.
            if (step == 3) {
              env.FailNext(MemEnvOp::kNewWritableFile,
                           ResourceExhaustedError("injected: disk full"));
            }
          };
        });
    for (auto& r : results) {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
      const std::string m(r.status().message());
      EXPECT_THAT(m, HasSubstr("local rank 0: "));
      EXPECT_THAT(m, HasSubstr("injected: disk full"));
      EXPECT_THAT(m, HasSubstr("after step " + std::to_string(save_every)));
    }
  }
}

TEST(TrainerDistributedTest, OptionsARunOfRanksCannotUseAreInvalidArgument) {
  MemEnv env;
  WriteData(env);
  auto results = TrainOnRanks(2, Options(env, "", FeedKind::kQueue));
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(results[0].status().message()),
              HasSubstr("--feed sequence or --feed dataset"));
  TrainOptions o = Options(env, "", FeedKind::kSequence);
  o.batch_size = 50;
  results = TrainOnRanks(3, o);
  EXPECT_THAT(std::string(results[1].status().message()),
              HasSubstr("not a multiple of the 3 ranks"));
}

TEST(TrainerDistributedTest,
     AStopOnOneRankStopsEveryRankAtOneStepAndRankZeroSaves) {
  MemEnv env;
  WriteData(env);
  std::stop_source stop;
  TrainOptions o = Options(env, "/inflow-mem/stopped", FeedKind::kDataset);
  o.save_every = 100;
  auto results =
      TrainOnRanks(2, o, [&](int rank, TrainOptions& ro, TrainCallbacks& cb) {
        if (rank != 1) return;
        ro.stop = stop.get_token();
        // Rank 1 is asked to stop after its batch of step 4.
        cb.on_batch = [&](int64_t step, const Tuple&) {
          if (step == 4) stop.request_stop();
        };
      });
  for (auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->interrupted);
    // Step 4 was computed on rank 1 and then agreed on: the stop comes
    // into the step after it.
    EXPECT_EQ(r->steps, 4);
  }
  EXPECT_EQ(testing::StepOf(results[0]->checkpoint), 4);
  EXPECT_TRUE(results[1]->checkpoint.empty());
}

}  // namespace
}  // namespace inflow
