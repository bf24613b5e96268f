// Copyright 2026 The inflow Authors.
//
// The optimizers (optimizer.h): the shared parts, and the three updates.

#include "inflow/model/optimizer.h"

#include <cmath>
#include <string>
#include <string_view>

#include "model/elementwise_kernels.h"
#include "model/math_pool.h"
#include "model/matmul_kernels.h"
#include "model/mlp_internal.h"

namespace inflow {
namespace {

using Params = std::vector<std::pair<std::string, Tensor*>>;

float* Data(Tensor* t) {
  return static_cast<float*>(t->mutable_raw_data().value());
}

// What every optimizer has: its parameters, slots and global step.
struct State {
  State(const OptimizerOptions& o, float lr, Params p)
      : options(o),
        learning_rate(lr),
        params(std::move(p)),
        kernel(internal::ChooseTrainKernel()),
        global_step(Tensor::Scalar<int64_t>(0)) {}

  // Adds a slot of param i's shape, named "<param>/<suffix>", filled.
  Tensor* AddSlot(size_t i, const std::string& suffix, float fill) {
    auto t =
        std::make_unique<Tensor>(DType::kFloat32, params[i].second->shape());
    if (fill != 0.0f) {
      float* d = Data(t.get());
      for (int64_t k = 0; k < t->num_elements(); ++k) d[k] = fill;
    }
    Tensor* raw = t.get();
    slots.emplace_back(params[i].first + "/" + suffix, std::move(t));
    return raw;
  }
  Tensor* AddScalar(const std::string& name, float value) {
    auto t = std::make_unique<Tensor>(Tensor::Scalar<float>(value));
    Tensor* raw = t.get();
    slots.emplace_back(name, std::move(t));
    return raw;
  }

  OptimizerOptions options;
  float learning_rate;
  Params params;
  internal::TrainKernel kernel;
  internal::MathPool* pool = nullptr;
  std::vector<std::pair<std::string, std::unique_ptr<Tensor>>> slots;
  Tensor global_step;
};

// One optimizer's update.
class Rule {
 public:
  virtual ~Rule() = default;
  // The update of elements [begin, end) of param i (p) from g (the whole
  // tensors' buffers). Calls for disjoint ranges may run at once.
  virtual void Update(const State& s, size_t i, int64_t begin, int64_t end,
                      float* p, const float* g) = 0;
  // After every parameter's update.
  virtual void Finish(State&) {}
};

class RmsProp final : public Rule {
 public:
  explicit RmsProp(State& s) {
    for (size_t i = 0; i < s.params.size(); ++i) {
      ms_.push_back(s.AddSlot(i, "RMSProp", 1.0f));
      mom_.push_back(s.AddSlot(i, "RMSProp_1", 0.0f));
    }
  }

  void Update(const State& s, size_t i, int64_t begin, int64_t end, float* p,
              const float* g) override {
    float* ms = Data(ms_[i]);
    float* mom = Data(mom_[i]);
    const internal::RmsPropParams h{s.learning_rate, 1.0f - s.options.decay,
                                    s.options.momentum,
                                    s.options.rmsprop_epsilon};
    internal::RmsPropUpdate(s.kernel, h, end - begin, g + begin, ms + begin,
                            mom + begin, p + begin);
  }

 private:
  std::vector<Tensor*> ms_, mom_;
};

class Adam final : public Rule {
 public:
  explicit Adam(State& s) {
    beta1_power_ = s.AddScalar("beta1_power", s.options.beta1);
    beta2_power_ = s.AddScalar("beta2_power", s.options.beta2);
    for (size_t i = 0; i < s.params.size(); ++i) {
      m_.push_back(s.AddSlot(i, "Adam", 0.0f));
      v_.push_back(s.AddSlot(i, "Adam_1", 0.0f));
    }
  }

  void Update(const State& s, size_t i, int64_t begin, int64_t end, float* p,
              const float* g) override {
    float* m = Data(m_[i]);
    float* v = Data(v_[i]);
    const float b1p = Data(beta1_power_)[0];
    const float b2p = Data(beta2_power_)[0];
    const float lr_t = s.learning_rate * std::sqrt(1.0f - b2p) / (1.0f - b1p);
    const internal::AdamParams h{lr_t, 1.0f - s.options.beta1,
                                 1.0f - s.options.beta2,
                                 s.options.adam_epsilon};
    internal::AdamUpdate(s.kernel, h, end - begin, g + begin, m + begin,
                         v + begin, p + begin);
  }

  void Finish(State& s) override {
    Data(beta1_power_)[0] *= s.options.beta1;
    Data(beta2_power_)[0] *= s.options.beta2;
  }

 private:
  Tensor* beta1_power_;
  Tensor* beta2_power_;
  std::vector<Tensor*> m_, v_;
};

class Sgd final : public Rule {
 public:
  void Update(const State& s, size_t, int64_t begin, int64_t end, float* p,
              const float* g) override {
    internal::SgdUpdate(s.kernel, s.learning_rate, end - begin, g + begin,
                        p + begin);
  }
};

}  // namespace

struct Optimizer::Rep : State {
  using State::State;
  std::unique_ptr<Rule> rule;
};

std::string_view OptimizerKindName(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kRmsProp:
      return "rmsprop";
    case OptimizerKind::kAdam:
      return "adam";
    case OptimizerKind::kSgd:
      return "sgd";
  }
  return "unknown";
}

Result<OptimizerKind> ParseOptimizerKind(std::string_view name) {
  for (OptimizerKind k :
       {OptimizerKind::kRmsProp, OptimizerKind::kAdam, OptimizerKind::kSgd}) {
    if (name == OptimizerKindName(k)) return k;
  }
  return InvalidArgumentError("unknown optimizer \"" + std::string(name) +
                              "\" (want rmsprop, adam or sgd)");
}

Result<std::unique_ptr<Optimizer>> Optimizer::Create(
    const OptimizerOptions& options, Params params) {
  for (const auto& [name, t] : params) {
    if (t == nullptr || t->dtype() != DType::kFloat32 || t->read_only()) {
      return InvalidArgumentError("Optimizer: parameter \"" + name +
                                  "\" is not a writable float32 tensor");
    }
  }
  const bool sgd = options.kind == OptimizerKind::kSgd;
  const float lr = options.learning_rate.value_or(sgd ? 0.01f : 0.001f);
  if (!(lr > 0.0f) || !std::isfinite(lr)) {
    return InvalidArgumentError("Optimizer: learning rate " +
                                std::to_string(lr) + " must be > 0");
  }
  auto rep = std::make_unique<Rep>(options, lr, std::move(params));
  switch (options.kind) {
    case OptimizerKind::kRmsProp:
      if (!(options.decay >= 0.0f && options.decay <= 1.0f) ||
          !(options.momentum >= 0.0f) || !(options.rmsprop_epsilon >= 0.0f)) {
        return InvalidArgumentError(
            "Optimizer: rmsprop needs 0 <= decay <= 1, momentum >= 0, "
            "epsilon >= 0");
      }
      rep->rule = std::make_unique<RmsProp>(*rep);
      break;
    case OptimizerKind::kAdam:
      if (!(options.beta1 >= 0.0f && options.beta1 < 1.0f) ||
          !(options.beta2 >= 0.0f && options.beta2 < 1.0f) ||
          !(options.adam_epsilon >= 0.0f)) {
        return InvalidArgumentError(
            "Optimizer: adam needs 0 <= beta1, beta2 < 1 and epsilon >= 0");
      }
      rep->rule = std::make_unique<Adam>(*rep);
      break;
    case OptimizerKind::kSgd:
      rep->rule = std::make_unique<Sgd>();
      break;
    default:
      return InvalidArgumentError(
          "Optimizer: unknown OptimizerKind " +
          std::to_string(static_cast<int>(options.kind)));
  }
  return std::unique_ptr<Optimizer>(new Optimizer(std::move(rep)));
}

Optimizer::Optimizer(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Optimizer::~Optimizer() = default;

const OptimizerOptions& Optimizer::options() const { return rep_->options; }
float Optimizer::learning_rate() const { return rep_->learning_rate; }
Tensor& Optimizer::global_step() { return rep_->global_step; }
int64_t Optimizer::step() const { return rep_->global_step.data<int64_t>()[0]; }

void Optimizer::ShareMathThreads(Mlp& model) {
  rep_->pool = internal::MlpPeer::Pool(model);
}

Status Optimizer::Apply(std::span<const Tensor> grads) {
  std::vector<std::pair<int64_t, int64_t>> all;
  for (const Tensor& g : grads) all.emplace_back(0, g.num_elements());
  return ApplyRanges(grads, all);
}

Status Optimizer::ApplyRanges(
    std::span<const Tensor> grads,
    std::span<const std::pair<int64_t, int64_t>> ranges) {
  const Params& params = rep_->params;
  if (grads.size() != params.size() || ranges.size() != params.size()) {
    return InvalidArgumentError("Optimizer: " + std::to_string(grads.size()) +
                                " gradients and " +
                                std::to_string(ranges.size()) + " ranges for " +
                                std::to_string(params.size()) + " parameters");
  }
  int64_t elements = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].dtype() != DType::kFloat32 ||
        grads[i].shape() != params[i].second->shape()) {
      return InvalidArgumentError("Optimizer: the gradient of \"" +
                                  params[i].first + "\" is " +
                                  grads[i].DebugString(0) + ", want float32 " +
                                  params[i].second->shape().DebugString());
    }
    const auto [begin, end] = ranges[i];
    if (begin < 0 || begin > end || end > grads[i].num_elements()) {
      return InvalidArgumentError(
          "Optimizer: elements [" + std::to_string(begin) + ", " +
          std::to_string(end) + ") of \"" + params[i].first + "\" of " +
          std::to_string(grads[i].num_elements()));
    }
    elements += end - begin;
  }
  internal::MathPool* pool = rep_->pool;
  // Under 4096 elements a hand-off costs more than it saves.
  const int parts = pool == nullptr || elements < 4096 ? 1 : pool->threads();
  // Part `part` of every parameter's range (whole cache lines).
  auto update = [&](int part) {
    for (size_t i = 0; i < grads.size(); ++i) {
      const auto [first, last] = ranges[i];
      int64_t begin, end;
      internal::MathPool::Split(last - first, 16, part, parts, &begin, &end);
      rep_->rule->Update(*rep_, i, first + begin, first + end,
                         Data(params[i].second), grads[i].data<float>());
    }
  };
  if (parts == 1) {
    update(0);
  } else {
    pool->Run(update);
  }
  rep_->rule->Finish(*rep_);
  ++*static_cast<int64_t*>(rep_->global_step.mutable_raw_data().value());
  return OkStatus();
}

std::vector<Tensor*> Optimizer::parameter_slots() {
  std::vector<Tensor*> out;
  for (auto& [name, t] : rep_->slots) {
    if (t->shape().rank() > 0) out.push_back(t.get());
  }
  return out;
}

std::vector<std::pair<std::string, Tensor*>> Optimizer::variables() {
  std::vector<std::pair<std::string, Tensor*>> out;
  for (auto& [name, t] : rep_->slots) out.emplace_back(name, t.get());
  out.emplace_back("global_step", &rep_->global_step);
  return out;
}

}  // namespace inflow
