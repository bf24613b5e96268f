// Copyright 2026 The inflow Authors.
//
// Training behaviour: on separable synthetic data every optimizer reaches
// a high test accuracy; two runs with the same seed give the same losses.

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"

#include "train_test_util.h"

namespace inflow {
namespace {

constexpr int64_t kInputs = 64, kClasses = 4, kBatch = 32;

// Points of class c: a sparse nonnegative prototype per class plus noise,
// clipped at 0 (image-like: about half the inputs zero).
struct Blobs {
  std::vector<std::vector<float>> prototypes;
  explicit Blobs(std::mt19937* rng) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int c = 0; c < kClasses; ++c) {
      std::vector<float> p(kInputs);
      for (float& v : p) v = u(*rng) < 0.5f ? 0.0f : u(*rng);
      prototypes.push_back(p);
    }
  }
  void Batch(std::mt19937* rng, int64_t n, Tensor* x, Tensor* y) const {
    *x = Tensor(DType::kFloat32, TensorShape({n, kInputs}));
    *y = Tensor(DType::kInt64, TensorShape({n}));
    std::normal_distribution<float> noise(0.0f, 0.15f);
    float* xd = x->mutable_flat<float>().value().data();
    int64_t* yd = y->mutable_flat<int64_t>().value().data();
    for (int64_t r = 0; r < n; ++r) {
      yd[r] = (*rng)() % kClasses;
      for (int64_t k = 0; k < kInputs; ++k) {
        xd[r * kInputs + k] =
            std::max(0.0f, prototypes[yd[r]][k] + noise(*rng));
      }
    }
  }
};

struct TrainingRun {
  std::vector<float> losses;
  double accuracy;
};

TrainingRun Train(const std::string& optimizer, float lr, int steps,
                  uint64_t seed) {
  MlpOptions o;
  o.layer_sizes = {kInputs, 48, 48, kClasses};
  o.seed = seed;
  o.init_stddev = 0.1f;
  auto model = Mlp::Create(o).value();
  OptimizerOptions oo;
  oo.kind = ParseOptimizerKind(optimizer).value();
  oo.learning_rate = lr;
  auto opt = Optimizer::Create(oo, model->variables()).value();
  std::mt19937 rng(7);
  const Blobs blobs(&rng);
  TrainingRun run;
  Tensor x, y;
  for (int s = 0; s < steps; ++s) {
    blobs.Batch(&rng, kBatch, &x, &y);
    run.losses.push_back(model->ComputeGradients(x, y, opt->step()).value());
    EXPECT_TRUE(opt->Apply(model->gradients()).ok());
  }
  blobs.Batch(&rng, 1000, &x, &y);
  run.accuracy = model->Accuracy(x, y).value();
  return run;
}

TEST(MlpTrainingTest, AnUntrainedModelIsNearChance) {
  EXPECT_LT(Train("rmsprop", 0.001f, 0, 1).accuracy, 0.5);
}

TEST(MlpTrainingTest, RmsPropLearnsSeparableClasses) {
  const TrainingRun run = Train("rmsprop", 0.001f, 300, 1);
  EXPECT_GE(run.accuracy, 0.97);
  EXPECT_LT(run.losses.back(), 0.5f * run.losses.front());
}

TEST(MlpTrainingTest, AdamLearnsSeparableClasses) {
  const TrainingRun run = Train("adam", 0.001f, 300, 1);
  EXPECT_GE(run.accuracy, 0.97);
}

TEST(MlpTrainingTest, SgdLearnsSeparableClasses) {
  const TrainingRun run = Train("sgd", 0.1f, 300, 1);
  EXPECT_GE(run.accuracy, 0.97);
}

TEST(MlpTrainingTest, TwoRunsWithTheSameSeedGiveIdenticalLosses) {
  const TrainingRun a = Train("rmsprop", 0.001f, 50, 3);
  const TrainingRun b = Train("rmsprop", 0.001f, 50, 3);
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (size_t i = 0; i < a.losses.size(); ++i) {
    ASSERT_EQ(testing::Bits(a.losses[i]), testing::Bits(b.losses[i])) << i;
  }
  const TrainingRun c = Train("rmsprop", 0.001f, 50, 4);
  EXPECT_NE(a.losses.back(), c.losses.back());
}

}  // namespace
}  // namespace inflow
