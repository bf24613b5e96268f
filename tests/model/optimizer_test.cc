// Copyright 2026 The inflow Authors.
//
// The optimizers: TF1's slot names and initial values, one update by TF's
// formulas, global_step, and the checks before anything changes.

#include "inflow/model/optimizer.h"

#include <cmath>

#include <gtest/gtest.h>

namespace inflow {
namespace {

struct Params {
  Tensor w =
      Tensor::FromVector<float>({1.0f, -2.0f, 0.5f, 0.0f}, TensorShape({2, 2}))
          .value();
  Tensor b = Tensor::FromVector<float>({0.25f});
  std::vector<std::pair<std::string, Tensor*>> list() {
    return {{"layer1/weights", &w}, {"layer1/biases", &b}};
  }
  std::vector<Tensor> grads() {
    return {Tensor::FromVector<float>({0.1f, -0.2f, 0.0f, 3.0f},
                                      TensorShape({2, 2}))
                .value(),
            Tensor::FromVector<float>({-1.0f})};
  }
};

std::unique_ptr<Optimizer> Make(const std::string& name, Params* p) {
  OptimizerOptions o;
  o.kind = ParseOptimizerKind(name).value();
  return Optimizer::Create(o, p->list()).value();
}

std::vector<std::string> Names(Optimizer& opt) {
  std::vector<std::string> names;
  for (auto& [name, t] : opt.variables()) names.push_back(name);
  return names;
}

TEST(OptimizerTest, RmsPropSlotsAreTf1sMeanSquareOfOnesAndZeroMomentum) {
  Params p;
  auto opt = Make("rmsprop", &p);
  EXPECT_EQ(
      Names(*opt),
      (std::vector<std::string>{
          "layer1/weights/RMSProp", "layer1/weights/RMSProp_1",
          "layer1/biases/RMSProp", "layer1/biases/RMSProp_1", "global_step"}));
  auto vars = opt->variables();
  for (float v : vars[0].second->flat<float>()) EXPECT_EQ(v, 1.0f);
  for (float v : vars[1].second->flat<float>()) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(vars[0].second->shape(), TensorShape({2, 2}));
  EXPECT_EQ(vars.back().second->dtype(), DType::kInt64);
  EXPECT_EQ(opt->step(), 0);
  EXPECT_EQ(opt->learning_rate(), 0.001f);
}

TEST(OptimizerTest, RmsPropStepIsTfsFormula) {
  Params p;
  auto opt = Make("rmsprop", &p);
  const std::vector<Tensor> g = p.grads();
  ASSERT_TRUE(opt->Apply(g).ok());
  ASSERT_TRUE(opt->Apply(g).ok());
  EXPECT_EQ(opt->step(), 2);
  const float w0[] = {1.0f, -2.0f, 0.5f, 0.0f};
  const float* gw = g[0].data<float>();
  for (int k = 0; k < 4; ++k) {
    float ms = 1.0f, mom = 0.0f, w = w0[k];
    for (int step = 0; step < 2; ++step) {
      ms = ms + (gw[k] * gw[k] - ms) * (1.0f - 0.9f);
      mom = mom * 0.0f + gw[k] * 0.001f / std::sqrt(ms + 1e-10f);
      w = w - mom;
    }
    EXPECT_EQ(p.w.data<float>()[k], w) << k;
    EXPECT_EQ(opt->variables()[0].second->data<float>()[k], ms);
    EXPECT_EQ(opt->variables()[1].second->data<float>()[k], mom);
  }
}

// A Saver restores slots and global_step in place: the next update must
// use what was written there.
TEST(OptimizerTest, WritingIntoSlotsInPlaceChangesTheNextUpdate) {
  Params p;
  auto opt = Make("rmsprop", &p);
  auto vars = opt->variables();
  vars[0].second->mutable_flat<float>().value()[0] = 4.0f;  // ms of w[0]
  vars.back().second->mutable_flat<int64_t>().value()[0] = 41;
  ASSERT_TRUE(opt->Apply(p.grads()).ok());
  const float ms = 4.0f + (0.1f * 0.1f - 4.0f) * (1.0f - 0.9f);
  EXPECT_EQ(vars[0].second->data<float>()[0], ms);
  EXPECT_EQ(p.w.data<float>()[0],
            1.0f - 0.1f * 0.001f / std::sqrt(ms + 1e-10f));
  EXPECT_EQ(opt->step(), 42);
}

TEST(OptimizerTest, AdamHasTf1sSlotsAndBetaPowers) {
  Params p;
  auto opt = Make("adam", &p);
  EXPECT_EQ(Names(*opt),
            (std::vector<std::string>{
                "beta1_power", "beta2_power", "layer1/weights/Adam",
                "layer1/weights/Adam_1", "layer1/biases/Adam",
                "layer1/biases/Adam_1", "global_step"}));
  auto vars = opt->variables();
  EXPECT_EQ(vars[0].second->data<float>()[0], 0.9f);
  EXPECT_EQ(vars[1].second->data<float>()[0], 0.999f);
  const std::vector<Tensor> g = p.grads();
  ASSERT_TRUE(opt->Apply(g).ok());
  EXPECT_EQ(vars[0].second->data<float>()[0], 0.9f * 0.9f);
  EXPECT_EQ(vars[1].second->data<float>()[0], 0.999f * 0.999f);
  // The first step moves every weight with a nonzero gradient by about lr.
  const float lr_t = 0.001f * std::sqrt(1.0f - 0.999f) / (1.0f - 0.9f);
  const float m = (g[1].data<float>()[0] - 0.0f) * (1.0f - 0.9f);
  const float v = (1.0f - 0.0f) * (1.0f - 0.999f);
  EXPECT_EQ(p.b.data<float>()[0], 0.25f - (m * lr_t) / (std::sqrt(v) + 1e-8f));
  EXPECT_NEAR(p.b.data<float>()[0], 0.25f + 0.001f, 1e-7);
  EXPECT_EQ(p.w.data<float>()[2], 0.5f);  // zero gradient
  EXPECT_EQ(opt->step(), 1);
}

TEST(OptimizerTest, SgdSubtractsTheScaledGradient) {
  Params p;
  OptimizerOptions o;
  o.kind = OptimizerKind::kSgd;
  o.learning_rate = 0.5f;
  auto opt = Optimizer::Create(o, p.list()).value();
  EXPECT_EQ(Names(*opt), (std::vector<std::string>{"global_step"}));
  ASSERT_TRUE(opt->Apply(p.grads()).ok());
  EXPECT_EQ(p.w.data<float>()[0], 1.0f - 0.1f * 0.5f);
  EXPECT_EQ(p.b.data<float>()[0], 0.25f + 0.5f);
}

TEST(OptimizerTest, BadOptionsAndGradientsAreInvalidArgumentAndChangeNothing) {
  Params p;
  OptimizerOptions o;
  EXPECT_TRUE(IsInvalidArgument(ParseOptimizerKind("adagrad").status()));
  o.kind = static_cast<OptimizerKind>(7);
  EXPECT_TRUE(IsInvalidArgument(Optimizer::Create(o, p.list()).status()));
  o.kind = OptimizerKind::kRmsProp;
  o.learning_rate = -1.0f;
  EXPECT_TRUE(IsInvalidArgument(Optimizer::Create(o, p.list()).status()));
  Tensor ints(DType::kInt32, TensorShape({2}));
  EXPECT_TRUE(IsInvalidArgument(
      Optimizer::Create(OptimizerOptions{}, {{"i", &ints}}).status()));

  auto opt = Make("rmsprop", &p);
  const Tensor before = p.w.Clone();
  std::vector<Tensor> g = p.grads();
  g.pop_back();
  EXPECT_TRUE(IsInvalidArgument(opt->Apply(g)));
  g = p.grads();
  g[1] = Tensor::FromVector<float>({1.0f, 2.0f});
  const Status s = opt->Apply(g);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("layer1/biases"), std::string::npos);
  EXPECT_TRUE(p.w == before);
  EXPECT_EQ(opt->step(), 0);
}

}  // namespace
}  // namespace inflow
