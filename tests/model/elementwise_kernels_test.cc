// Copyright 2026 The inflow Authors.
//
// The elementwise loops: the portable ones against a plain restatement of
// their formulas, every other kernel against the portable one bit for bit.

#include "model/elementwise_kernels.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "train_test_util.h"

namespace inflow::internal {
namespace {

using testing::Bits;

// Lengths around the vector widths; the buffers carry guard cells.
const int64_t kLengths[] = {0, 1, 7, 15, 16, 17, 33, 100, 1001};
constexpr int kGuard = 16;

std::vector<float> Random(std::mt19937* rng, int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n + kGuard);
  for (float& x : v) x = u(*rng);
  return v;
}

void ExpectSameBits(const std::vector<float>& got,
                    const std::vector<float>& want, const char* what,
                    TrainKernel kernel) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(Bits(got[i]), Bits(want[i]))
        << what << " " << TrainKernelName(kernel) << " at " << i;
  }
}

TEST(ElementwiseKernelsTest, RmsPropIsTfsFormulaWithEveryKernel) {
  std::mt19937 rng(1);
  const RmsPropParams h{0.001f, 0.1f, 0.5f, 1e-10f};
  for (int64_t n : kLengths) {
    const auto g = Random(&rng, n, -1, 1), ms0 = Random(&rng, n, 0, 2),
               mom0 = Random(&rng, n, -1, 1), var0 = Random(&rng, n, -1, 1);
    auto ms = ms0, mom = mom0, var = var0;
    RmsPropUpdate(TrainKernel::kPortable, h, n, g.data(), ms.data(), mom.data(),
                  var.data());
    for (int64_t k = 0; k < n; ++k) {
      const float m = ms0[k] + (g[k] * g[k] - ms0[k]) * 0.1f;
      const float mo = mom0[k] * 0.5f + g[k] * 0.001f / std::sqrt(m + 1e-10f);
      ASSERT_EQ(Bits(ms[k]), Bits(m)) << k;
      ASSERT_EQ(Bits(mom[k]), Bits(mo)) << k;
      ASSERT_EQ(Bits(var[k]), Bits(var0[k] - mo)) << k;
    }
    for (int64_t k = n; k < n + kGuard; ++k) ASSERT_EQ(var[k], var0[k]);
    for (TrainKernel kernel : testing::RunnableTrainKernels("rmsprop")) {
      auto ms2 = ms0, mom2 = mom0, var2 = var0;
      RmsPropUpdate(kernel, h, n, g.data(), ms2.data(), mom2.data(),
                    var2.data());
      ExpectSameBits(ms2, ms, "ms", kernel);
      ExpectSameBits(mom2, mom, "mom", kernel);
      ExpectSameBits(var2, var, "var", kernel);
    }
  }
}

TEST(ElementwiseKernelsTest, AdamIsTfsFormulaWithEveryKernel) {
  std::mt19937 rng(2);
  const AdamParams h{0.0003f, 0.1f, 0.001f, 1e-8f};
  for (int64_t n : kLengths) {
    const auto g = Random(&rng, n, -1, 1), m0 = Random(&rng, n, -1, 1),
               v0 = Random(&rng, n, 0, 1), var0 = Random(&rng, n, -1, 1);
    auto m = m0, v = v0, var = var0;
    AdamUpdate(TrainKernel::kPortable, h, n, g.data(), m.data(), v.data(),
               var.data());
    for (int64_t k = 0; k < n; ++k) {
      const float mm = m0[k] + (g[k] - m0[k]) * 0.1f;
      const float vv = v0[k] + (g[k] * g[k] - v0[k]) * 0.001f;
      ASSERT_EQ(Bits(m[k]), Bits(mm));
      ASSERT_EQ(Bits(v[k]), Bits(vv));
      ASSERT_EQ(Bits(var[k]),
                Bits(var0[k] - (mm * 0.0003f) / (std::sqrt(vv) + 1e-8f)));
    }
    for (TrainKernel kernel : testing::RunnableTrainKernels("adam")) {
      auto m2 = m0, v2 = v0, var2 = var0;
      AdamUpdate(kernel, h, n, g.data(), m2.data(), v2.data(), var2.data());
      ExpectSameBits(m2, m, "m", kernel);
      ExpectSameBits(v2, v, "v", kernel);
      ExpectSameBits(var2, var, "var", kernel);
    }
  }
}

TEST(ElementwiseKernelsTest, SgdDropoutAndReluGradAgreeWithEveryKernel) {
  std::mt19937 rng(3);
  for (int64_t n : kLengths) {
    const auto g = Random(&rng, n, -1, 1), x0 = Random(&rng, n, -1, 1);
    std::vector<uint32_t> draw(n);
    for (uint32_t& d : draw) d = static_cast<uint32_t>(rng());
    const uint32_t threshold = 0xCCCCCCCCu;  // keep 0.8
    auto sgd = x0, drop = x0, relu = x0;
    SgdUpdate(TrainKernel::kPortable, 0.01f, n, g.data(), sgd.data());
    DropoutApply(TrainKernel::kPortable, n, draw.data(), threshold, 1.25f,
                 drop.data());
    ReluDropoutGrad(TrainKernel::kPortable, n, x0.data(), 2.0f, relu.data());
    for (int64_t k = 0; k < n; ++k) {
      ASSERT_EQ(Bits(sgd[k]), Bits(x0[k] - g[k] * 0.01f));
      ASSERT_EQ(Bits(drop[k]),
                Bits(draw[k] < threshold ? x0[k] * 1.25f : 0.0f));
      ASSERT_EQ(Bits(relu[k]), Bits(x0[k] > 0 ? x0[k] * 2.0f : 0.0f));
    }
    for (TrainKernel kernel : testing::RunnableTrainKernels("elementwise")) {
      auto sgd2 = x0, drop2 = x0, relu2 = x0;
      SgdUpdate(kernel, 0.01f, n, g.data(), sgd2.data());
      DropoutApply(kernel, n, draw.data(), threshold, 1.25f, drop2.data());
      ReluDropoutGrad(kernel, n, x0.data(), 2.0f, relu2.data());
      ExpectSameBits(sgd2, sgd, "sgd", kernel);
      ExpectSameBits(drop2, drop, "dropout", kernel);
      ExpectSameBits(relu2, relu, "relu grad", kernel);
    }
  }
}

}  // namespace
}  // namespace inflow::internal
