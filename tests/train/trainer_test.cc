// Copyright 2026 The inflow Authors.
//
// Train() end to end on a small separable image dataset written as image
// shards: checkpoints and summary, determinism, resume, the three feeds,
// a stop request, and the errors found before training.

#include "inflow/train/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stop_token>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/io/env.h"

#include "trainer_test_data.h"

namespace inflow {
namespace {

namespace fs = std::filesystem;

using testing::WriteSplit;

class TrainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A folder of its own (mkdtemp), so that runs of the suite side by side
    // never share files.
    std::string tmpl = ::testing::TempDir() + "/trainer_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << tmpl;
    root_ = tmpl;
    fs::create_directories(root_ + "/data");
    WriteSplit(Env::Default(), root_ + "/data", "train", 640, 1);
    WriteSplit(Env::Default(), root_ + "/data", "test", 200, 2);
  }
  void TearDown() override { fs::remove_all(root_); }

  // 640 examples, batch 64: 10 steps per epoch.
  TrainOptions Options() const {
    TrainOptions o;
    o.data_dir = root_ + "/data";
    o.batch_size = 64;
    o.seed = 5;
    o.optimizer = OptimizerKind::kAdam;
    o.learning_rate = 0.01f;
    o.ckpt_dir = root_ + "/ckpt";
    return o;
  }

  std::string root_;
};

TEST_F(TrainerTest, TrainsToTheFinalStepWithCheckpointsMetaGraphsAndSummary) {
  TrainOptions o = Options();
  o.steps = 40;
  o.save_every = 10;
  o.max_to_keep = 3;
  o.logdir = root_ + "/logs";
  Result<TrainSummary> s = Train(o);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->steps, 40);
  EXPECT_EQ(s->steps_run, 40);
  EXPECT_EQ(s->losses.size(), 40u);
  EXPECT_DOUBLE_EQ(s->epochs, 4.0);
  EXPECT_GT(s->test_accuracy, 0.9)
      << ::testing::PrintToString(s->losses);  // the classes are separable
  EXPECT_EQ(s->checkpoint, o.ckpt_dir + "/model.ckpt-40");
  // max_to_keep 3 of the saves at 10, 20, 30, 40; each with its .meta.
  EXPECT_FALSE(fs::exists(o.ckpt_dir + "/model.ckpt-10.index"));
  for (int step : {20, 30, 40}) {
    const std::string p = o.ckpt_dir + "/model.ckpt-" + std::to_string(step);
    EXPECT_TRUE(fs::exists(p + ".index")) << p;
    EXPECT_TRUE(fs::exists(p + ".meta")) << p;
  }
  EXPECT_FALSE(fs::exists(o.ckpt_dir + "/model.ckpt-10.meta"));
  EXPECT_TRUE(fs::exists(o.ckpt_dir + "/graph.pbtxt"));
  std::ifstream in(o.ckpt_dir + "/summary.json");
  std::string json((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(json, s->ToJson() + "\n");
  EXPECT_NE(json.find("\"steps\": 40,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"feed\": \"queue\""), std::string::npos) << json;
  EXPECT_FALSE(fs::is_empty(o.logdir));
}

TEST_F(TrainerTest, OneReaderThreadAndASeedGiveIdenticalLossesInTwoRuns) {
  TrainOptions o = Options();
  o.steps = 25;  // 2.5 epochs: crosses the end of an epoch's files
  o.ckpt_dir.clear();
  Result<TrainSummary> a = Train(o);
  Result<TrainSummary> b = Train(o);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->losses.size(), 25u);
  EXPECT_EQ(a->losses, b->losses);
}

TEST_F(TrainerTest, TwoMathThreadsGiveTheLossesAndAccuracyOfOne) {
  TrainOptions o = Options();
  o.steps = 12;
  o.feed = FeedKind::kSync;
  Result<TrainSummary> one = Train(o);
  o.math_threads = 2;
  o.ckpt_dir = root_ + "/ckpt2";
  Result<TrainSummary> two = Train(o);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_EQ(one->losses.size(), 12u);
  EXPECT_EQ(one->losses, two->losses);
  EXPECT_EQ(one->test_accuracy, two->test_accuracy);
  // Evaluation on 3 threads: the predictions of 1.
  Result<Evaluation> e1 = EvaluateCheckpoint(root_ + "/ckpt", o.data_dir, true);
  Result<Evaluation> e3 =
      EvaluateCheckpoint(root_ + "/ckpt2", o.data_dir, true, 3);
  ASSERT_TRUE(e1.ok()) << e1.status();
  ASSERT_TRUE(e3.ok()) << e3.status();
  EXPECT_TRUE(e1->predictions == e3->predictions);
  EXPECT_EQ(e1->test_accuracy, e3->test_accuracy);
  EXPECT_TRUE(IsInvalidArgument(
      EvaluateCheckpoint(root_ + "/ckpt", o.data_dir, false, 0).status()));
}

TEST_F(TrainerTest, ResumeContinuesFromTheLatestGlobalStepToTheSameFinalStep) {
  TrainOptions first = Options();
  first.steps = 15;
  ASSERT_TRUE(Train(first).ok());
  TrainOptions second = Options();
  second.steps = 30;
  second.resume = true;
  second.seed = 99;  // ignored: the checkpoint's input/seed is used
  Result<TrainSummary> s = Train(second);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->start_step, 15);
  EXPECT_EQ(s->steps_run, 15);
  EXPECT_EQ(s->steps, 30);
  auto latest = LatestCheckpoint(second.ckpt_dir);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ(**latest, second.ckpt_dir + "/model.ckpt-30");
  // The earlier run's checkpoint stays listed (max_to_keep counts it).
  auto state = GetCheckpointState(second.ckpt_dir);
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ((*state)->all_model_checkpoint_paths.front(),
            second.ckpt_dir + "/model.ckpt-10");
}

// With several reader threads the resumed run starts at the checkpoint's
// epoch and skips the batches of that epoch already trained on.
TEST_F(TrainerTest, ResumeWithSeveralReadersSkipsTheTrainedPartOfTheEpoch) {
  TrainOptions first = Options();
  first.reader_threads = 2;
  first.steps = 13;
  ASSERT_TRUE(Train(first).ok());
  TrainOptions second = first;
  second.steps = 20;
  second.resume = true;
  std::vector<std::string> messages;
  TrainCallbacks callbacks;
  callbacks.on_message = [&](const std::string& m) { messages.push_back(m); };
  Result<TrainSummary> s = Train(second, callbacks);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->steps, 20);
  EXPECT_EQ(s->steps_run, 7);
  EXPECT_NE(std::find_if(messages.begin(), messages.end(),
                         [](const std::string& m) {
                           return m.find("skipped 3 batches") !=
                                  std::string::npos;
                         }),
            messages.end())
      << ::testing::PrintToString(messages);
}

TEST_F(TrainerTest, ResumeAtTheFinalStepTrainsNothingAndReportsAccuracy) {
  TrainOptions o = Options();
  o.steps = 10;
  Result<TrainSummary> a = Train(o);
  ASSERT_TRUE(a.ok()) << a.status();
  o.resume = true;
  Result<TrainSummary> b = Train(o);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->steps_run, 0);
  EXPECT_EQ(b->steps, 10);
  EXPECT_DOUBLE_EQ(b->test_accuracy, a->test_accuracy);
}

TEST_F(TrainerTest, SyncPreloadedSequenceAndDatasetFeedsTrainToTheFinalStep) {
  for (const char* feed : {"sync", "preloaded", "sequence", "dataset"}) {
    TrainOptions o = Options();
    o.feed = ParseFeedKind(feed).value();
    o.epochs = 3;
    o.ckpt_dir.clear();
    Result<TrainSummary> s = Train(o);
    ASSERT_TRUE(s.ok()) << feed << ": " << s.status();
    EXPECT_EQ(s->steps, 30) << feed;
    EXPECT_EQ(FeedKindName(s->feed), feed);
    EXPECT_GT(s->test_accuracy, 0.9) << feed;
  }
}

// A run to step 30 stopped at step 15 (mid-epoch: 10 steps per epoch) and
// resumed trains on the same batches as one run to step 30, and gives the
// same losses and final accuracy. With one reader thread the queue, sync
// and preloaded feeds are rebuilt as the uninterrupted run made them and
// skip to the checkpoint's input position. The sequence feed reads batch i
// of an epoch by number and the dataset feed's checkpoints hold its
// iterator's position: with 1 or 3 reader threads they go on with the
// checkpoint's next batch, reading none of the batches before it.
struct ExactResume {
  const char* feed;
  const char* message;  // what the resumed run says of its input
  std::vector<int> readers;
};

class TrainerExactResumeTest
    : public TrainerTest,
      public ::testing::WithParamInterface<ExactResume> {};

TEST_P(TrainerExactResumeTest, AStoppedRunResumesAtTheNextBatchWithAnyReaders) {
  const FeedKind feed = ParseFeedKind(GetParam().feed).value();
  TrainOptions whole = Options();
  whole.feed = feed;
  whole.steps = 30;
  whole.ckpt_dir = root_ + "/whole";
  Result<TrainSummary> a = Train(whole);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->losses.size(), 30u);

  for (int readers : GetParam().readers) {
    SCOPED_TRACE(::testing::Message() << readers << " reader threads");
    std::stop_source stop;
    TrainOptions first = Options();
    first.feed = feed;
    first.reader_threads = readers;
    first.steps = 30;
    first.ckpt_dir = root_ + "/ckpt-" + std::to_string(readers);
    first.stop = stop.get_token();
    TrainCallbacks stop_at_15;
    stop_at_15.on_step = [&](const StepInfo& info) {
      if (info.step == 15) stop.request_stop();
    };
    Result<TrainSummary> b = Train(first, stop_at_15);
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_TRUE(b->interrupted);
    ASSERT_EQ(b->steps, 15);
    EXPECT_EQ(b->losses,
              std::vector<float>(a->losses.begin(), a->losses.begin() + 15));

    TrainOptions second = first;
    second.stop = {};
    second.resume = true;
    second.seed.reset();  // the checkpoint's seed
    std::vector<std::string> messages;
    TrainCallbacks callbacks;
    callbacks.on_message = [&](const std::string& m) { messages.push_back(m); };
    Result<TrainSummary> c = Train(second, callbacks);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->start_step, 15);
    EXPECT_EQ(c->losses,
              std::vector<float>(a->losses.begin() + 15, a->losses.end()));
    EXPECT_DOUBLE_EQ(c->test_accuracy, a->test_accuracy);
    EXPECT_NE(std::find_if(messages.begin(), messages.end(),
                           [](const std::string& m) {
                             return m.find(GetParam().message) !=
                                    std::string::npos;
                           }),
              messages.end())
        << ::testing::PrintToString(messages);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Feeds, TrainerExactResumeTest,
    ::testing::Values(
        ExactResume{"queue", "skipped 15 batches", {1}},
        ExactResume{"sync", "skipped 15 batches", {1}},
        ExactResume{"preloaded", "skipped 15 batches", {1}},
        ExactResume{"sequence",
                    "the input starts at batch 5 of epoch 1 (step 15)",
                    {1, 3}},
        ExactResume{"dataset",
                    "the input goes on from the saved position of step 15",
                    {1, 3}}),
    [](const ::testing::TestParamInfo<ExactResume>& info) {
      return std::string(info.param.feed);
    });

TEST_F(TrainerTest, TheDatasetFeedCannotResumeACheckpointOfAnotherFeed) {
  TrainOptions queue = Options();
  queue.steps = 5;
  queue.ckpt_dir = root_ + "/queue";
  ASSERT_TRUE(Train(queue).ok());
  TrainOptions dataset = queue;
  dataset.feed = FeedKind::kDataset;
  dataset.steps = 10;
  dataset.resume = true;
  Status s = Train(dataset).status();
  EXPECT_TRUE(IsNotFound(s)) << s;
  EXPECT_NE(s.message().find("input/iterator"), std::string::npos) << s;
}

TEST_F(TrainerTest, TheSequenceFeedRefusesCompressedShards) {
  fs::create_directories(root_ + "/gz");
  WriteSplit(Env::Default(), root_ + "/gz", "train", 640, 1,
             CompressionType::kGzip);
  WriteSplit(Env::Default(), root_ + "/gz", "test", 200, 1,
             CompressionType::kGzip);
  TrainOptions o = Options();
  o.data_dir = root_ + "/gz";
  o.feed = FeedKind::kSequence;
  o.steps = 2;
  Result<TrainSummary> s = Train(o);
  EXPECT_TRUE(IsInvalidArgument(s.status())) << s.status();
  EXPECT_NE(s.status().message().find("needs uncompressed shards"),
            std::string::npos)
      << s.status();
}

TEST_F(TrainerTest, AStopRequestEndsTheRunWithAFinalCheckpoint) {
  std::stop_source stop;
  TrainOptions o = Options();
  o.steps = 1000;
  o.stop = stop.get_token();
  TrainCallbacks cb;
  cb.on_step = [&](const StepInfo& info) {
    if (info.step == 17) stop.request_stop();
  };
  std::vector<std::pair<int64_t, int64_t>> epochs;  // (epoch, step)
  std::vector<std::string> messages;
  cb.on_epoch = [&](int64_t epoch, int64_t step, double) {
    epochs.emplace_back(epoch, step);
  };
  cb.on_message = [&](const std::string& m) { messages.push_back(m); };
  Result<TrainSummary> s = Train(o, cb);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->interrupted);
  EXPECT_EQ(s->steps, 17);
  EXPECT_EQ(s->checkpoint, o.ckpt_dir + "/model.ckpt-17");
  // One call for epoch 1 (10 steps); the evaluation at the stop, inside
  // epoch 2, is a message, not a second epoch 1.
  EXPECT_EQ(epochs, (std::vector<std::pair<int64_t, int64_t>>{{1, 10}}));
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages.back().rfind("test accuracy ", 0), 0u) << messages.back();
  EXPECT_NE(messages.back().find(" at step 17 (epoch 1.70)"), std::string::npos)
      << messages.back();
}

TEST_F(TrainerTest, ACheckpointOfAnotherModelShapeIsAnErrorNamingTheTensor) {
  Tensor w(DType::kFloat32, TensorShape({10, 10}));
  Tensor seed = Tensor::Scalar<int64_t>(1);
  Saver saver;
  ASSERT_TRUE(saver.Register("layer1/weights", &w).ok());
  ASSERT_TRUE(saver.Register("input/seed", &seed).ok());
  ASSERT_TRUE(saver.Save(root_ + "/ckpt/model.ckpt", 3).ok());
  TrainOptions o = Options();
  o.resume = true;
  Result<TrainSummary> s = Train(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("model.ckpt-3"), std::string::npos)
      << s.status();
  EXPECT_NE(s.status().message().find("layer1"), std::string::npos)
      << s.status();
}

TEST_F(TrainerTest, MissingShardsAreNotFoundNamingThePattern) {
  TrainOptions o = Options();
  o.data_dir = root_ + "/nowhere";
  Result<TrainSummary> s = Train(o);
  EXPECT_TRUE(IsNotFound(s.status())) << s.status();
  EXPECT_NE(s.status().message().find(root_ + "/nowhere/train-*.tfrecord"),
            std::string::npos)
      << s.status();
}

TEST_F(TrainerTest, AMissingShardOfASplitIsNotFoundNamingItUnlessAllowed) {
  fs::remove(root_ + "/data/train-00001-of-00002.tfrecord");
  TrainOptions o = Options();
  o.steps = 2;
  Result<TrainSummary> s = Train(o);
  EXPECT_TRUE(IsNotFound(s.status())) << s.status();
  EXPECT_NE(s.status().message().find("1 of the 2 shards matching " + root_ +
                                      "/data/train-*.tfrecord are missing: "
                                      "train-00001-of-00002.tfrecord"),
            std::string::npos)
      << s.status();
  EXPECT_FALSE(fs::exists(o.ckpt_dir));
  o.allow_missing_shards = true;
  std::vector<std::string> messages;
  TrainCallbacks cb;
  cb.on_message = [&](const std::string& m) { messages.push_back(m); };
  s = Train(o, cb);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->steps, 2);
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages[0].rfind("warning: 1 of the 2 shards", 0), 0u)
      << messages[0];
}

TEST_F(TrainerTest, ResumingWithAnotherOptimizerNamesBoth) {
  TrainOptions o = Options();  // adam
  o.steps = 3;
  ASSERT_TRUE(Train(o).ok());
  o.steps = 6;
  o.resume = true;
  for (const char* other : {"rmsprop", "sgd"}) {
    o.optimizer = ParseOptimizerKind(other).value();
    Result<TrainSummary> s = Train(o);
    EXPECT_TRUE(IsInvalidArgument(s.status())) << s.status();
    EXPECT_NE(s.status().message().find(
                  "model.ckpt-3 was written by the adam optimizer (its slots "
                  "say so), and this run uses " +
                  std::string(other) + ": resume with --optimizer adam"),
              std::string::npos)
        << s.status();
  }
}

TEST_F(TrainerTest, ANonFiniteLossStopsTheRunAndNothingNonFiniteIsSaved) {
  TrainOptions o = Options();
  o.optimizer = OptimizerKind::kSgd;
  o.learning_rate = 1e30f;
  o.steps = 20;
  o.save_every = 1;
  Result<TrainSummary> s = Train(o);
  ASSERT_TRUE(IsInvalidArgument(s.status())) << s.status();
  const std::string m(s.status().message());
  EXPECT_TRUE(m.find("loss during training at step ") != std::string::npos ||
              m.find("not saving the checkpoint of step ") != std::string::npos)
      << m;
  EXPECT_FALSE(fs::exists(o.ckpt_dir + "/summary.json"));
  for (const auto& entry : fs::directory_iterator(o.ckpt_dir)) {
    const std::string name = entry.path().string();
    if (name.size() < 6 || name.substr(name.size() - 6) != ".index") continue;
    auto reader = BundleReader::Open(name.substr(0, name.size() - 6));
    ASSERT_TRUE(reader.ok()) << reader.status();
    for (const BundleEntry& e : (*reader)->entries()) {
      if (e.dtype != DType::kFloat32) continue;
      Result<Tensor> t = (*reader)->Read(e.name);
      ASSERT_TRUE(t.ok()) << t.status();
      for (int64_t i = 0; i < t->num_elements(); ++i) {
        ASSERT_TRUE(std::isfinite(t->data<float>()[i]))
            << name << " " << e.name;
      }
    }
  }
}

TEST_F(TrainerTest, ACorruptShardIsDataLossNamingTheFileBeforeTraining) {
  const std::string shard = root_ + "/data/train-00001-of-00002.tfrecord";
  {
    std::fstream f(shard, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(5000);
    f.put('\x5a');
  }
  TrainOptions o = Options();
  Result<TrainSummary> s = Train(o);
  EXPECT_TRUE(IsDataLoss(s.status())) << s.status();
  EXPECT_NE(s.status().message().find(shard), std::string::npos) << s.status();
  EXPECT_FALSE(fs::exists(o.ckpt_dir));
}

TEST_F(TrainerTest, AnUnwritableCheckpointFolderFailsBeforeTraining) {
  std::ofstream(root_ + "/file") << "x";
  TrainOptions o = Options();
  o.ckpt_dir = root_ + "/file/ckpt";
  Result<TrainSummary> s = Train(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--ckpt-dir " + o.ckpt_dir),
            std::string::npos)
      << s.status();
}

TEST_F(TrainerTest, BadOptionsAreInvalidArgument) {
  TrainOptions o = Options();
  for (int m : {0, 65}) {
    o.math_threads = m;
    Result<TrainSummary> s = Train(o);
    EXPECT_TRUE(IsInvalidArgument(s.status()));
    EXPECT_NE(s.status().message().find("--math-threads"), std::string::npos)
        << s.status();
  }
  o = Options();
  EXPECT_TRUE(IsInvalidArgument(ParseFeedKind("push").status()));
  o.feed = static_cast<FeedKind>(7);
  EXPECT_TRUE(IsInvalidArgument(Train(o).status()));
  o = Options();
  o.optimizer = static_cast<OptimizerKind>(7);
  EXPECT_TRUE(IsInvalidArgument(Train(o).status()));
  o = Options();
  o.batch_size = 10000;
  EXPECT_TRUE(IsInvalidArgument(Train(o).status()));
}

}  // namespace
}  // namespace inflow
