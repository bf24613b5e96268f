// Copyright 2026 The inflow Authors.
//
// Optimizer: TF1's tf.compat.v1.train optimizers for a list of named
// float32 variables, with their slots as named Tensors so that a Saver can
// save and restore them:
//
//   rmsprop  RMSPropOptimizer(lr, decay, momentum, epsilon), slots
//            "<var>/RMSProp" (the mean square, starting at ones, as in TF1)
//            and "<var>/RMSProp_1" (the momentum, zeros):
//              ms  = ms + (g * g - ms) * (1 - decay)
//              mom = mom * momentum + lr * g / sqrt(ms + epsilon)
//              var = var - mom
//   adam     AdamOptimizer(lr, beta1, beta2, epsilon), slots "<var>/Adam"
//            (m) and "<var>/Adam_1" (v), and the scalars "beta1_power" and
//            "beta2_power" (starting at beta1, beta2; multiplied by them
//            after each step):
//              lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//              m = m + (g - m) * (1 - beta1)
//              v = v + (g * g - v) * (1 - beta2)
//              var = var - lr_t * m / (sqrt(v) + epsilon)
//   sgd      GradientDescentOptimizer(lr): var = var - lr * g
//
// and "global_step" (int64 scalar, starting at 0), which Apply increments,
// as minimize(global_step=...) does. Each update is one pass over the
// elements, in float32 with TF's order of operations; with a math pool
// (ShareMathThreads) each parameter's elements are split into ranges, one a
// thread, which gives the same bits (every element is updated alone).
//
// Thread-compatible: one thread at a time applies the updates.

#ifndef INFLOW_MODEL_OPTIMIZER_H_
#define INFLOW_MODEL_OPTIMIZER_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"

namespace inflow {

class Mlp;

enum class OptimizerKind { kRmsProp, kAdam, kSgd };

// "rmsprop", "adam", "sgd".
std::string_view OptimizerKindName(OptimizerKind kind);
// The kind of one of those names; INVALID_ARGUMENT naming the choices for
// any other.
[[nodiscard]] Result<OptimizerKind> ParseOptimizerKind(std::string_view name);

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::kRmsProp;
  // Without it: 0.001 for rmsprop and adam, 0.01 for sgd.
  std::optional<float> learning_rate;
  // rmsprop
  float decay = 0.9f;
  float momentum = 0.0f;
  float rmsprop_epsilon = 1e-10f;
  // adam
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float adam_epsilon = 1e-8f;
};

class Optimizer {
 public:
  // An optimizer for `params` (name, float32 tensor; the tensors must
  // outlive it). INVALID_ARGUMENT for a bad option or a parameter that is
  // not a writable float32 tensor.
  static Result<std::unique_ptr<Optimizer>> Create(
      const OptimizerOptions& options,
      std::vector<std::pair<std::string, Tensor*>> params);
  ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const OptimizerOptions& options() const;
  float learning_rate() const;

  // Updates every parameter in place from `grads` (same order and shapes
  // as the parameters) and increments global_step. INVALID_ARGUMENT on a
  // count, dtype or shape mismatch, before anything changes.
  [[nodiscard]] Status Apply(std::span<const Tensor> grads);
  // Apply's update of elements [ranges[i].first, ranges[i].second) of
  // parameter i alone (and of its slots), then the rest of a step
  // (global_step, Adam's powers) as Apply: for a data-parallel rank that
  // updates its slice of parameters shared with other ranks, each
  // updating theirs (distributed::SlicedStep). INVALID_ARGUMENT as Apply,
  // or for a range outside its parameter, before anything changes.
  [[nodiscard]] Status ApplyRanges(
      std::span<const Tensor> grads,
      std::span<const std::pair<int64_t, int64_t>> ranges);

  // Runs the updates on `model`'s math threads (MlpOptions.math_threads),
  // which must outlive the optimizer or be replaced first; without it
  // (the default) on the calling thread alone. The same bits either way.
  void ShareMathThreads(Mlp& model);

  // The slots and other variables, by TF's names, global_step last.
  std::vector<std::pair<std::string, Tensor*>> variables();
  // The slots of the parameters alone (each of its parameter's shape, in
  // variables()' order), which ApplyRanges updates range by range: not
  // the scalars every step changes whole (global_step, Adam's powers).
  std::vector<Tensor*> parameter_slots();
  Tensor& global_step();
  int64_t step() const;

 private:
  struct Rep;
  explicit Optimizer(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace inflow

#endif  // INFLOW_MODEL_OPTIMIZER_H_
