// Copyright 2026 The inflow Authors.
//
// TrainState: what a training run holds and checkpoints: the Mlp, its
// Optimizer (slots, global_step), the input position ("input/epoch",
// "input/seed", int64 scalars), and a Saver over all of them that writes
// CKPT_DIR/model.ckpt-STEP with model.ckpt-STEP.meta beside it.
//
// Thread-compatible: the training thread uses it.

#ifndef INFLOW_SRC_TRAIN_TRAIN_STATE_H_
#define INFLOW_SRC_TRAIN_TRAIN_STATE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/saver.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/graph/meta_graph.h"
#include "inflow/io/env.h"
#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"

namespace inflow::internal {

struct TrainStateOptions {
  Env* env = &Env::Default();  // the checkpoints' and graph files'
  OptimizerKind optimizer = OptimizerKind::kRmsProp;
  std::optional<float> learning_rate;
  int64_t seed = 0;
  std::string ckpt_dir;  // empty: Save() is FAILED_PRECONDITION
  int max_to_keep = 5;
  int math_threads = 1;  // MlpOptions.math_threads; the optimizer shares them
  // Also checkpoints "input/iterator", a string scalar: the position of
  // the dataset feed's iterator (set_input_iterator before each Save).
  bool input_iterator = false;
  // MlpOptions.spare_gradient_floats (a data-parallel run's reserved
  // floats after the gradients).
  int64_t spare_gradient_floats = 0;
};

class TrainState {
 public:
  [[nodiscard]] static Result<std::unique_ptr<TrainState>> Create(
      const TrainStateOptions& options);

  int64_t step() const { return optimizer_->step(); }
  void set_epoch(int64_t epoch) {
    epoch_.mutable_flat<int64_t>().value()[0] = epoch;
  }
  int64_t saved_step() const { return saved_step_; }
  void set_input_iterator(std::string position) {
    iterator_.mutable_flat<std::string>().value()[0] = std::move(position);
  }
  const std::string& input_iterator() const {
    return iterator_.flat<std::string>()[0];
  }
  float learning_rate() const { return optimizer_->learning_rate(); }
  Mlp& mlp() { return *mlp_; }

  // One step: gradients (dropout masks of this global step) and update.
  [[nodiscard]] Result<float> Step(const Tensor& images, const Tensor& labels);
  // The two halves of Step, for a data-parallel run that averages the
  // gradients (mlp().flat_gradients()) between them: this rank's `rows`
  // of the global batch, then the update with the gradients as they are.
  [[nodiscard]] Result<float> ComputeGradients(const Tensor& images,
                                               const Tensor& labels,
                                               BatchRows rows);
  [[nodiscard]] Status ApplyGradients();
  // The update of elements ranges[i] of each parameter i alone (a rank's
  // slice in a distributed::SlicedStep), and the step's scalars.
  [[nodiscard]] Status ApplyGradients(
      std::span<const std::pair<int64_t, int64_t>> ranges);
  // What every data-parallel rank holds the same values of, for a host's
  // ranks to share: the parameters and the optimizer's slots of them.
  std::vector<Tensor*> replicated();
  // The model's parameters, in variables() order.
  std::vector<Tensor> parameters();
  // Accuracy on {images, labels}, in chunks.
  [[nodiscard]] Result<double> Accuracy(const Tuple& data);

  // Saves model.ckpt-STEP and its .meta; returns the prefix.
  // INVALID_ARGUMENT naming the tensor and the step, and nothing written,
  // when a float tensor holds a NaN or an infinity.
  [[nodiscard]] Result<std::string> Save();
  // Every tensor from `prefix`: another shape or a missing slot is an
  // error naming the tensor (and nothing is restored); a checkpoint of
  // another optimizer (its slots say which) is INVALID_ARGUMENT naming
  // both.
  [[nodiscard]] Status Restore(const std::string& prefix);
  // graph.pbtxt of the model.
  [[nodiscard]] Status WriteGraph(const std::string& path) const;

 private:
  TrainState() = default;

  TrainStateOptions options_;
  std::unique_ptr<Mlp> mlp_;  // its math pool outlives optimizer_
  std::unique_ptr<Optimizer> optimizer_;
  Tensor epoch_ = Tensor::Scalar<int64_t>(0);
  Tensor seed_ = Tensor::Scalar<int64_t>(0);
  Tensor iterator_ = Tensor::Scalar<std::string>("");
  std::unique_ptr<Saver> saver_;
  MlpGraph graph_;
  int64_t saved_step_ = -1;
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_TRAIN_TRAIN_STATE_H_
