// Copyright 2026 The inflow Authors.
//
// The Mlp's parameters, initialisation, input checks, evaluation, and
// that its steps depend on the seed and step alone and on no kernel.

#include "inflow/model/mlp.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <span>

#include <gtest/gtest.h>

#include "model/mlp_internal.h"
#include "model/random.h"
#include "train_test_util.h"

namespace inflow {
namespace {

std::unique_ptr<Mlp> Make(MlpOptions options = {}) {
  return Mlp::Create(options).value();
}

TEST(MlpTest, VariablesAreNamedAndShapedAsTf1NamesThem) {
  auto model = Make();
  const auto vars = model->variables();
  ASSERT_EQ(vars.size(), 6u);
  const char* names[] = {"layer1/weights", "layer1/biases",  "layer2/weights",
                         "layer2/biases",  "layer3/weights", "layer3/biases"};
  const TensorShape shapes[] = {TensorShape({784, 625}), TensorShape({625}),
                                TensorShape({625, 625}), TensorShape({625}),
                                TensorShape({625, 10}),  TensorShape({10})};
  for (size_t i = 0; i < vars.size(); ++i) {
    EXPECT_EQ(vars[i].first, names[i]);
    EXPECT_EQ(vars[i].second->dtype(), DType::kFloat32);
    EXPECT_EQ(vars[i].second->shape(), shapes[i]) << names[i];
    EXPECT_EQ(model->gradients()[i].shape(), shapes[i]);
  }
}

TEST(MlpTest, WeightsAreNormalWithTheStddevAndBiasesZero) {
  auto model = Make();
  for (auto& [name, t] : model->variables()) {
    const auto v = t->flat<float>();
    if (t->rank() == 1) {
      for (float x : v) ASSERT_EQ(x, 0.0f) << name;
      continue;
    }
    double sum = 0, sq = 0;
    int64_t beyond_3sd = 0;
    for (float x : v) {
      sum += x;
      sq += double{x} * x;
      beyond_3sd += std::abs(x) > 0.03f;
    }
    const double n = static_cast<double>(v.size());
    const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 0.0, 5 * 0.01 / std::sqrt(n)) << name;
    EXPECT_NEAR(sd, 0.01, 0.01 * 0.05) << name;
    // N(0, 1) puts 0.27% beyond 3 sigma.
    EXPECT_NEAR(beyond_3sd / n, 0.0027, 0.002) << name;
  }
}

TEST(MlpTest, TheSeedDecidesTheWeights) {
  MlpOptions a, b;
  b.seed = 1;
  auto m1 = Make(a), m2 = Make(a), m3 = Make(b);
  EXPECT_TRUE(*m1->variables()[0].second == *m2->variables()[0].second);
  EXPECT_FALSE(*m1->variables()[0].second == *m3->variables()[0].second);
}

// A Saver restores by writing into the registered tensors' buffers: the
// model must read its parameters from them, not from copies.
TEST(MlpTest, WritingIntoAVariableInPlaceChangesTheModel) {
  MlpOptions o;
  o.layer_sizes = {3, 2};
  o.input_keep_prob = 1.0f;
  auto model = Make(o);
  auto vars = model->variables();
  const std::span<float> w = vars[0].second->mutable_flat<float>().value();
  const std::span<float> b = vars[1].second->mutable_flat<float>().value();
  std::fill(w.begin(), w.end(), 0.0f);
  b[0] = 0.0f;
  b[1] = std::log(3.0f);  // softmax (0.25, 0.75)
  const Tensor x =
      Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3})).value();
  const Tensor p = model->Predict(x).value();
  EXPECT_NEAR(p.data<float>()[0], 0.25f, 1e-6);
  EXPECT_NEAR(p.data<float>()[1], 0.75f, 1e-6);
  w[0] = 100.0f;  // x[0] * 100 on class 0
  EXPECT_NEAR(model->Predict(x).value().data<float>()[0], 1.0f, 1e-6);
}

TEST(MlpTest, BadOptionsAreInvalidArgument) {
  auto bad = [](auto change) {
    MlpOptions o;
    change(o);
    return Mlp::Create(o).status();
  };
  EXPECT_TRUE(IsInvalidArgument(
      bad([](MlpOptions& o) { o.layer_sizes = std::vector<int64_t>{5}; })));
  EXPECT_TRUE(IsInvalidArgument(bad([](MlpOptions& o) {
    o.layer_sizes = std::vector<int64_t>{5, 0, 2};
  })));
  EXPECT_TRUE(
      IsInvalidArgument(bad([](MlpOptions& o) { o.input_keep_prob = 0; })));
  EXPECT_TRUE(
      IsInvalidArgument(bad([](MlpOptions& o) { o.hidden_keep_prob = 1.5f; })));
  EXPECT_TRUE(
      IsInvalidArgument(bad([](MlpOptions& o) { o.init_stddev = -1; })));
}

TEST(MlpTest, WrongInputsAreInvalidArgumentNamingThem) {
  MlpOptions o;
  o.layer_sizes = {4, 3, 2};
  auto model = Make(o);
  std::mt19937 rng(1);
  const Tensor x = testing::RandomImages(&rng, 5, 4, 0.0);
  const Tensor y = testing::RandomLabels(&rng, 5, 2);
  EXPECT_TRUE(model->ComputeGradients(x, y, 0).ok());
  const Tensor wide = testing::RandomImages(&rng, 5, 6, 0.0);
  Status s = model->ComputeGradients(wide, y, 0).status();
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("images"), std::string::npos) << s.ToString();
  s = model->ComputeGradients(x, testing::RandomLabels(&rng, 4, 2), 0).status();
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("labels"), std::string::npos) << s.ToString();
  Tensor out_of_range = Tensor::FromVector<int64_t>({0, 1, 2, 0, 1});
  s = model->ComputeGradients(x, out_of_range, 0).status();
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_NE(s.message().find("label 2 of row 2"), std::string::npos)
      << s.ToString();
  EXPECT_TRUE(
      IsInvalidArgument(model->Predict(Tensor::Scalar<float>(1)).status()));
  EXPECT_TRUE(IsInvalidArgument(internal::MlpPeer::ComputeGradients(
                                    *model, x, y, internal::DropoutMasks{{x}})
                                    .status()));
}

TEST(MlpTest, PredictGivesSoftmaxRowsAndAccuracyCountsArgmaxHits) {
  MlpOptions o;
  o.layer_sizes = {8, 6, 3};
  o.init_stddev = 1.0f;
  auto model = Make(o);
  std::mt19937 rng(2);
  const Tensor x = testing::RandomImages(&rng, 50, 8, 0.2);
  const Tensor p = model->Predict(x).value();
  ASSERT_EQ(p.shape(), TensorShape({50, 3}));
  std::vector<int64_t> argmax;
  for (int64_t r = 0; r < 50; ++r) {
    const float* row = p.data<float>() + r * 3;
    EXPECT_NEAR(row[0] + row[1] + row[2], 1.0f, 1e-6);
    argmax.push_back(std::max_element(row, row + 3) - row);
  }
  EXPECT_EQ(model->Accuracy(x, Tensor::FromVector(argmax)).value(), 1.0);
  for (int64_t& a : argmax) a = (a + 1) % 3;
  EXPECT_EQ(model->Accuracy(x, Tensor::FromVector(argmax)).value(), 0.0);
  // Evaluation has no dropout: the same loss every time.
  const Tensor y = Tensor::FromVector(argmax);
  EXPECT_EQ(model->Loss(x, y).value(), model->Loss(x, y).value());
}

TEST(MlpTest, TheSameSeedAndStepGiveTheSameStepAndOtherStepsOtherMasks) {
  std::mt19937 rng(3);
  const Tensor x = testing::RandomImages(&rng, 128, 784, 0.5);
  const Tensor y = testing::RandomLabels(&rng, 128, 10);
  auto a = Make(), b = Make();
  const float loss_a = a->ComputeGradients(x, y, 7).value();
  const float loss_b = b->ComputeGradients(x, y, 7).value();
  EXPECT_EQ(testing::Bits(loss_a), testing::Bits(loss_b));
  for (size_t i = 0; i < a->gradients().size(); ++i) {
    EXPECT_TRUE(a->gradients()[i] == b->gradients()[i]) << i;
  }
  const float loss_c = b->ComputeGradients(x, y, 8).value();
  EXPECT_NE(loss_a, loss_c);
}

TEST(MlpTest, AWindowOfDrawsIsThoseDrawsOfTheWholeBlock) {
  // Odd and even blocks, windows at odd and even offsets, empty ones.
  for (int64_t block : {1, 2, 7, 10, 625, 1250}) {
    for (int64_t begin : {int64_t{0}, int64_t{1}, block / 3, block - 1}) {
      for (int64_t count : {int64_t{0}, int64_t{1}, block - begin}) {
        if (begin + count > block) continue;
        internal::TrainRandom whole(5, 9), part(5, 9);
        std::vector<uint32_t> all(block), window(count);
        internal::FillDraws(&whole, all.data(), block);
        internal::FillDrawsWindow(&part, window.data(), block, begin, count);
        EXPECT_TRUE(
            std::equal(window.begin(), window.end(), all.begin() + begin))
            << block << " " << begin << " " << count;
        // Both leave the stream at the block's end.
        EXPECT_EQ(whole.Next(), part.Next()) << block << " " << begin;
      }
    }
  }
}

TEST(MlpTest, TheSumOfTwoPartsGradientsIsTheWholeBatchsWithDropout) {
  // Data parallelism: two ranks each computing part of a global batch
  // (BatchRows) give shares of its mean gradient whose sum is the one
  // model's, up to the order of the sums.
  std::mt19937 rng(6);
  const Tensor x = testing::RandomImages(&rng, 64, 784, 0.5);
  const Tensor y = testing::RandomLabels(&rng, 64, 10);
  auto whole = Make(), half = Make();
  const float loss = whole->ComputeGradients(x, y, 3).value();
  const float first =
      half->ComputeGradients(x.Slice(0, 24), y.Slice(0, 24), 3,
                             {.first_row = 0, .global_batch = 64})
          .value();
  std::vector<std::vector<float>> sums;
  for (const Tensor& g : half->gradients()) {
    sums.emplace_back(g.flat<float>().begin(), g.flat<float>().end());
  }
  const float second =
      half->ComputeGradients(x.Slice(24, 64), y.Slice(24, 64), 3,
                             {.first_row = 24, .global_batch = 64})
          .value();
  EXPECT_NEAR((first * 24 + second * 40) / 64, loss, 1e-5);
  for (size_t i = 0; i < sums.size(); ++i) {
    const auto g = half->gradients()[i].flat<float>();
    const auto w = whole->gradients()[i].flat<float>();
    for (size_t k = 0; k < g.size(); ++k) {
      ASSERT_NEAR(sums[i][k] + g[k], w[k], 1e-6 + 1e-4 * std::abs(w[k]))
          << i << " " << k;
    }
  }
  // Rows outside the global batch are an error.
  EXPECT_EQ(half->ComputeGradients(x.Slice(0, 24), y.Slice(0, 24), 3,
                                   {.first_row = 50, .global_batch = 64})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(MlpTest, FlatGradientsHoldEveryGradientAlignedAndLeaveTheSpareAlone) {
  MlpOptions o;
  o.layer_sizes = {5, 3, 2};
  o.spare_gradient_floats = 3;
  auto model = Make(o);
  std::span<float> flat = model->flat_gradients();
  // 15 -> 16, 3 -> 16, 6 -> 16, 2 -> 16 floats, then the 3 spare.
  ASSERT_EQ(flat.size(), 4u * 16 + 3);
  flat[64] = 1.5f;
  flat[66] = -2.0f;
  std::mt19937 rng(7);
  ASSERT_TRUE(model
                  ->ComputeGradients(testing::RandomImages(&rng, 4, 5, 0.5),
                                     testing::RandomLabels(&rng, 4, 2), 0)
                  .ok());
  size_t offset = 0;
  for (const Tensor& g : model->gradients()) {
    EXPECT_EQ(g.data<float>(), flat.data() + offset);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(g.data<float>()) % 64, 0u);
    offset += 16;
  }
  EXPECT_EQ(flat[64], 1.5f);
  EXPECT_EQ(flat[66], -2.0f);
  o.spare_gradient_floats = -1;
  EXPECT_FALSE(Mlp::Create(o).ok());
}

TEST(MlpTest, DrawnMasksKeepAboutTheKeepProbability) {
  // With identity-like data the share of zero input rows in dW1 shows the
  // input mask's rate: x all ones, so act[0] = mask * 1.25.
  MlpOptions o;
  o.layer_sizes = {1000, 2};
  o.input_keep_prob = 0.8f;
  auto model = Make(o);
  Tensor x(DType::kFloat32, TensorShape({1, 1000}));
  const std::span<float> ones = x.mutable_flat<float>().value();
  for (float& v : ones) v = 1.0f;
  const Tensor y = Tensor::FromVector<int64_t>({0});
  ASSERT_TRUE(model->ComputeGradients(x, y, 0).ok());
  // dW[k, :] = act[0][k] * d: zero exactly where the input was dropped.
  const auto g = model->gradients()[0].flat<float>();
  int kept = 0;
  for (int k = 0; k < 1000; ++k) kept += g[2 * k] != 0.0f;
  EXPECT_NEAR(kept / 1000.0, 0.8, 0.05);
}

TEST(MlpTest, EveryKernelGivesThePortableKernelsBitsForAFullStep) {
  std::mt19937 rng(4);
  const Tensor x = testing::RandomImages(&rng, 128, 784, 0.5);
  const Tensor y = testing::RandomLabels(&rng, 128, 10);
  std::unique_ptr<Mlp> portable;
  {
    testing::ScopedEnv env("INFLOW_TRAIN_KERNEL", "portable");
    portable = Make();
  }
  ASSERT_EQ(portable->kernel(), "portable");
  const float want = portable->ComputeGradients(x, y, 3).value();
  for (auto kernel : testing::RunnableTrainKernels("full step")) {
    testing::ScopedEnv env("INFLOW_TRAIN_KERNEL",
                           std::string(internal::TrainKernelName(kernel)));
    auto model = Make();
    ASSERT_EQ(model->kernel(), internal::TrainKernelName(kernel));
    EXPECT_EQ(testing::Bits(model->ComputeGradients(x, y, 3).value()),
              testing::Bits(want));
    for (size_t i = 0; i < model->gradients().size(); ++i) {
      EXPECT_TRUE(model->gradients()[i] == portable->gradients()[i])
          << model->kernel() << " gradient " << i;
    }
    EXPECT_TRUE(model->Predict(x).value() == portable->Predict(x).value());
  }
}

}  // namespace
}  // namespace inflow
