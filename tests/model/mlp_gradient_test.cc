// Copyright 2026 The inflow Authors.
//
// The Mlp's loss and gradients against a double-precision restatement of
// the model (same weights, batch and dropout masks), whose own gradients
// are checked against central finite differences.

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/model/mlp.h"

#include "model/mlp_internal.h"
#include "train_test_util.h"

namespace inflow {
namespace {

// The model in double: params[2i] W[i] (row-major [in, out]), params[2i+1]
// b[i]; masks[i] the 0/1 dropout mask of layer i's input.
struct Reference {
  std::vector<int64_t> sizes;
  std::vector<std::vector<double>> params;
  std::vector<std::vector<double>> masks;
  std::vector<double> scale;  // per dropout
  std::vector<double> x;
  std::vector<int64_t> labels;
  int64_t batch;

  double Loss(std::vector<std::vector<double>>* grads) const {
    const int layers = static_cast<int>(sizes.size()) - 1;
    std::vector<std::vector<double>> act(layers), z(layers + 1);
    act[0] = x;
    for (int i = 0; i < layers; ++i) {
      std::vector<double>& a = act[i];
      if (i > 0) {
        a.resize(batch * sizes[i]);
        for (size_t k = 0; k < a.size(); ++k) a[k] = std::max(0.0, z[i][k]);
      }
      for (size_t k = 0; k < a.size(); ++k) a[k] *= masks[i][k] * scale[i];
      const int64_t in = sizes[i], out = sizes[i + 1];
      z[i + 1].assign(batch * out, 0.0);
      for (int64_t r = 0; r < batch; ++r) {
        for (int64_t o = 0; o < out; ++o) {
          double s = params[2 * i + 1][o];
          for (int64_t k = 0; k < in; ++k) {
            s += a[r * in + k] * params[2 * i][k * out + o];
          }
          z[i + 1][r * out + o] = s;
        }
      }
    }
    const int64_t classes = sizes[layers];
    double total = 0;
    std::vector<double> d(batch * classes);
    for (int64_t r = 0; r < batch; ++r) {
      const double* row = &z[layers][r * classes];
      double max = row[0];
      for (int64_t c = 1; c < classes; ++c) max = std::max(max, row[c]);
      double sum = 0;
      for (int64_t c = 0; c < classes; ++c) sum += std::exp(row[c] - max);
      total += std::log(sum) + max - row[labels[r]];
      for (int64_t c = 0; c < classes; ++c) {
        d[r * classes + c] =
            (std::exp(row[c] - max) / sum - (c == labels[r] ? 1.0 : 0.0)) /
            static_cast<double>(batch);
      }
    }
    if (grads == nullptr) return total / static_cast<double>(batch);
    grads->assign(params.size(), {});
    for (int i = layers - 1; i >= 0; --i) {
      const int64_t in = sizes[i], out = sizes[i + 1];
      auto& gw = (*grads)[2 * i];
      auto& gb = (*grads)[2 * i + 1];
      gw.assign(in * out, 0.0);
      gb.assign(out, 0.0);
      for (int64_t r = 0; r < batch; ++r) {
        for (int64_t o = 0; o < out; ++o) {
          gb[o] += d[r * out + o];
          for (int64_t k = 0; k < in; ++k) {
            gw[k * out + o] += act[i][r * in + k] * d[r * out + o];
          }
        }
      }
      if (i == 0) break;
      std::vector<double> prev(batch * in, 0.0);
      for (int64_t r = 0; r < batch; ++r) {
        for (int64_t k = 0; k < in; ++k) {
          if (z[i][r * in + k] <= 0) continue;
          double s = 0;
          for (int64_t o = 0; o < out; ++o) {
            s += d[r * out + o] * params[2 * i][k * out + o];
          }
          prev[r * in + k] = s * masks[i][r * in + k] * scale[i];
        }
      }
      d.swap(prev);
    }
    return total / static_cast<double>(batch);
  }
};

struct Case {
  std::unique_ptr<Mlp> model;
  Tensor images, labels;
  internal::DropoutMasks masks;
  Reference ref;
};

Case MakeCase(std::vector<int64_t> sizes, int64_t batch, uint64_t seed) {
  MlpOptions options;
  options.layer_sizes = sizes;
  // Larger weights than the default, so the gradients are not tiny.
  options.init_stddev = 0.3f;
  options.seed = seed;
  Case c;
  c.model = Mlp::Create(options).value();
  std::mt19937 rng(static_cast<uint32_t>(seed));
  c.images = testing::RandomImages(&rng, batch, sizes[0], 0.4);
  c.labels = testing::RandomLabels(&rng, batch, sizes.back());
  c.ref.sizes = sizes;
  c.ref.batch = batch;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) {
    const double keep = i == 0 ? 0.8 : 0.5;
    c.masks.keep.push_back(testing::RandomMask(&rng, batch, sizes[i], keep));
    const auto m = c.masks.keep.back().flat<float>();
    c.ref.masks.emplace_back(m.begin(), m.end());
    c.ref.scale.push_back(static_cast<float>(1.0 / (i == 0 ? 0.8f : 0.5f)));
  }
  // Nonzero biases, so that their part of the gradient shows.
  std::uniform_real_distribution<float> u(-0.2f, 0.2f);
  for (auto& [name, t] : c.model->variables()) {
    auto data = t->mutable_flat<float>().value();
    if (t->rank() == 1) {
      for (float& v : data) v = u(rng);
    }
    c.ref.params.emplace_back(data.begin(), data.end());
  }
  const auto x = c.images.flat<float>();
  c.ref.x.assign(x.begin(), x.end());
  const auto l = c.labels.flat<int64_t>();
  c.ref.labels.assign(l.begin(), l.end());
  return c;
}

TEST(MlpGradientTest, ReferenceGradientsMatchCentralFiniteDifferences) {
  Case c = MakeCase({6, 5, 4, 3}, 4, 11);
  std::vector<std::vector<double>> grads;
  c.ref.Loss(&grads);
  const double h = 1e-6;
  for (size_t p = 0; p < c.ref.params.size(); ++p) {
    for (size_t k = 0; k < c.ref.params[p].size(); ++k) {
      Reference moved = c.ref;
      moved.params[p][k] += h;
      const double up = moved.Loss(nullptr);
      moved.params[p][k] -= 2 * h;
      const double down = moved.Loss(nullptr);
      ASSERT_NEAR(grads[p][k], (up - down) / (2 * h), 1e-7)
          << "param " << p << " element " << k;
    }
  }
}

void ExpectModelMatchesReference(Case& c) {
  std::vector<std::vector<double>> want;
  const double want_loss = c.ref.Loss(&want);
  const float loss =
      internal::MlpPeer::ComputeGradients(*c.model, c.images, c.labels, c.masks)
          .value();
  EXPECT_NEAR(loss, want_loss, 2e-6 * std::abs(want_loss));
  const std::vector<Tensor>& got = c.model->gradients();
  ASSERT_EQ(got.size(), want.size());
  for (size_t p = 0; p < got.size(); ++p) {
    const auto g = got[p].flat<float>();
    double max = 0;
    for (double v : want[p]) max = std::max(max, std::abs(v));
    ASSERT_EQ(g.size(), want[p].size());
    for (size_t k = 0; k < g.size(); ++k) {
      ASSERT_NEAR(g[k], want[p][k], 1e-5 * max + 1e-12)
          << "gradient " << p << " element " << k;
    }
  }
}

TEST(MlpGradientTest, SmallModelGradientsEqualTheDoubleReference) {
  Case c = MakeCase({6, 5, 4, 3}, 4, 11);
  ExpectModelMatchesReference(c);
}

TEST(MlpGradientTest, WiderModelGradientsEqualTheDoubleReference) {
  // Widths that leave tails in every kernel's passes, a batch of 9.
  Case c = MakeCase({70, 33, 17, 10}, 9, 5);
  ExpectModelMatchesReference(c);
}

TEST(MlpGradientTest, OneHiddenLayerModelGradientsEqualTheDoubleReference) {
  Case c = MakeCase({20, 8, 4}, 6, 2);
  ExpectModelMatchesReference(c);
}

TEST(MlpGradientTest, SoftmaxRegressionGradientsEqualTheDoubleReference) {
  Case c = MakeCase({12, 5}, 3, 4);
  ExpectModelMatchesReference(c);
}

}  // namespace
}  // namespace inflow
