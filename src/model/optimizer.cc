// Copyright 2026 The inflow Authors.
//
// The optimizers (optimizer.h): the shared parts, and the three updates.

#include "inflow/model/optimizer.h"

#include <cmath>
#include <string>

#include "model/elementwise_kernels.h"
#include "model/math_pool.h"
#include "model/matmul_kernels.h"

namespace inflow {
namespace {

internal::TrainKernel Kernel(int k) {
  return static_cast<internal::TrainKernel>(k);
}

class RmsProp final : public Optimizer {
 public:
  RmsProp(const OptimizerOptions& o, float lr,
          std::vector<std::pair<std::string, Tensor*>> params)
      : Optimizer(o, lr, std::move(params)) {
    for (size_t i = 0; i < params_.size(); ++i) {
      ms_.push_back(AddSlot(i, "RMSProp", 1.0f));
      mom_.push_back(AddSlot(i, "RMSProp_1", 0.0f));
    }
  }

 private:
  void Update(size_t i, int64_t begin, int64_t end, float* p,
              const float* g) override {
    float* ms = Data(ms_[i]);
    float* mom = Data(mom_[i]);
    const internal::RmsPropParams h{learning_rate(), 1.0f - options().decay,
                                    options().momentum,
                                    options().rmsprop_epsilon};
    internal::RmsPropUpdate(Kernel(kernel_), h, end - begin, g + begin,
                            ms + begin, mom + begin, p + begin);
  }

  std::vector<Tensor*> ms_, mom_;
};

class Adam final : public Optimizer {
 public:
  Adam(const OptimizerOptions& o, float lr,
       std::vector<std::pair<std::string, Tensor*>> params)
      : Optimizer(o, lr, std::move(params)) {
    beta1_power_ = AddScalar("beta1_power", o.beta1);
    beta2_power_ = AddScalar("beta2_power", o.beta2);
    for (size_t i = 0; i < params_.size(); ++i) {
      m_.push_back(AddSlot(i, "Adam", 0.0f));
      v_.push_back(AddSlot(i, "Adam_1", 0.0f));
    }
  }

 private:
  void Update(size_t i, int64_t begin, int64_t end, float* p,
              const float* g) override {
    float* m = Data(m_[i]);
    float* v = Data(v_[i]);
    const float b1p = Data(beta1_power_)[0];
    const float b2p = Data(beta2_power_)[0];
    const float lr_t = learning_rate() * std::sqrt(1.0f - b2p) / (1.0f - b1p);
    const internal::AdamParams h{lr_t, 1.0f - options().beta1,
                                 1.0f - options().beta2,
                                 options().adam_epsilon};
    internal::AdamUpdate(Kernel(kernel_), h, end - begin, g + begin, m + begin,
                         v + begin, p + begin);
  }

  void Finish() override {
    Data(beta1_power_)[0] *= options().beta1;
    Data(beta2_power_)[0] *= options().beta2;
  }

  Tensor* beta1_power_;
  Tensor* beta2_power_;
  std::vector<Tensor*> m_, v_;
};

class Sgd final : public Optimizer {
 public:
  using Optimizer::Optimizer;

 private:
  void Update(size_t, int64_t begin, int64_t end, float* p,
              const float* g) override {
    internal::SgdUpdate(Kernel(kernel_), learning_rate(), end - begin,
                        g + begin, p + begin);
  }
};

}  // namespace

Result<std::unique_ptr<Optimizer>> Optimizer::Create(
    const OptimizerOptions& options,
    std::vector<std::pair<std::string, Tensor*>> params) {
  for (const auto& [name, t] : params) {
    if (t == nullptr || t->dtype() != DType::kFloat32 || t->read_only()) {
      return InvalidArgumentError("Optimizer: parameter \"" + name +
                                  "\" is not a writable float32 tensor");
    }
  }
  const bool sgd = options.name == "sgd";
  const float lr = options.learning_rate.value_or(sgd ? 0.01f : 0.001f);
  if (!(lr > 0.0f) || !std::isfinite(lr)) {
    return InvalidArgumentError("Optimizer: learning rate " +
                                std::to_string(lr) + " must be > 0");
  }
  if (options.name == "rmsprop") {
    if (!(options.decay >= 0.0f && options.decay <= 1.0f) ||
        !(options.momentum >= 0.0f) || !(options.rmsprop_epsilon >= 0.0f)) {
      return InvalidArgumentError(
          "Optimizer: rmsprop needs 0 <= decay <= 1, momentum >= 0, "
          "epsilon >= 0");
    }
    return std::unique_ptr<Optimizer>(
        new RmsProp(options, lr, std::move(params)));
  }
  if (options.name == "adam") {
    if (!(options.beta1 >= 0.0f && options.beta1 < 1.0f) ||
        !(options.beta2 >= 0.0f && options.beta2 < 1.0f) ||
        !(options.adam_epsilon >= 0.0f)) {
      return InvalidArgumentError(
          "Optimizer: adam needs 0 <= beta1, beta2 < 1 and epsilon >= 0");
    }
    return std::unique_ptr<Optimizer>(new Adam(options, lr, std::move(params)));
  }
  if (sgd) {
    return std::unique_ptr<Optimizer>(new Sgd(options, lr, std::move(params)));
  }
  return InvalidArgumentError("Optimizer: unknown optimizer \"" + options.name +
                              "\" (want rmsprop, adam or sgd)");
}

Optimizer::Optimizer(const OptimizerOptions& options, float learning_rate,
                     std::vector<std::pair<std::string, Tensor*>> params)
    : params_(std::move(params)),
      options_(options),
      learning_rate_(learning_rate),
      global_step_(Tensor::Scalar<int64_t>(0)) {
  kernel_ = static_cast<int>(internal::ChooseTrainKernel());
}

Optimizer::~Optimizer() = default;

Tensor* Optimizer::AddSlot(size_t i, const std::string& suffix, float fill) {
  auto t =
      std::make_unique<Tensor>(DType::kFloat32, params_[i].second->shape());
  if (fill != 0.0f) {
    float* d = Data(t.get());
    for (int64_t k = 0; k < t->num_elements(); ++k) d[k] = fill;
  }
  Tensor* raw = t.get();
  slots_.emplace_back(params_[i].first + "/" + suffix, std::move(t));
  return raw;
}

Tensor* Optimizer::AddScalar(const std::string& name, float value) {
  auto t = std::make_unique<Tensor>(Tensor::Scalar<float>(value));
  Tensor* raw = t.get();
  slots_.emplace_back(name, std::move(t));
  return raw;
}

Status Optimizer::Apply(std::span<const Tensor> grads) {
  if (grads.size() != params_.size()) {
    return InvalidArgumentError("Optimizer: " + std::to_string(grads.size()) +
                                " gradients for " +
                                std::to_string(params_.size()) + " parameters");
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].dtype() != DType::kFloat32 ||
        grads[i].shape() != params_[i].second->shape()) {
      return InvalidArgumentError("Optimizer: the gradient of \"" +
                                  params_[i].first + "\" is " +
                                  grads[i].DebugString(0) + ", want float32 " +
                                  params_[i].second->shape().DebugString());
    }
  }
  int64_t elements = 0;
  for (const Tensor& g : grads) elements += g.num_elements();
  // Under 4096 elements a hand-off costs more than it saves.
  const int parts = pool_ == nullptr || elements < 4096 ? 1 : pool_->threads();
  // Part `part` of every parameter (ranges of whole cache lines).
  auto update = [&](int part) {
    for (size_t i = 0; i < grads.size(); ++i) {
      int64_t begin, end;
      internal::MathPool::Split(grads[i].num_elements(), 16, part, parts,
                                &begin, &end);
      Update(i, begin, end, Data(params_[i].second), grads[i].data<float>());
    }
  };
  if (parts == 1) {
    update(0);
  } else {
    pool_->Run(update);
  }
  Finish();
  int64_t* step =
      static_cast<int64_t*>(global_step_.mutable_raw_data().value());
  ++*step;
  return OkStatus();
}

std::vector<std::pair<std::string, Tensor*>> Optimizer::variables() {
  std::vector<std::pair<std::string, Tensor*>> out;
  for (auto& [name, t] : slots_) out.emplace_back(name, t.get());
  out.emplace_back("global_step", &global_step_);
  return out;
}

}  // namespace inflow
