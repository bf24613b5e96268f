// Copyright 2026 The inflow Authors.

#include "train/train_state.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"

namespace inflow::internal {
namespace {

// The optimizer whose slots `reader` holds: adam (<var>/Adam,
// beta1_power), rmsprop (<var>/RMSProp), else sgd (no slots).
OptimizerKind CheckpointOptimizer(const BundleReader& reader) {
  auto ends_with = [](std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.substr(s.size() - suffix.size()) == suffix;
  };
  for (const BundleEntry& e : reader.entries()) {
    if (e.name == "beta1_power" || ends_with(e.name, "/Adam")) {
      return OptimizerKind::kAdam;
    }
    if (ends_with(e.name, "/RMSProp")) return OptimizerKind::kRmsProp;
  }
  return OptimizerKind::kSgd;
}

// The graph files' options: the defaults, written through `env`.
MetaGraphOptions GraphFileOptions(Env* env) {
  MetaGraphOptions o;
  o.env = env;
  return o;
}

// The first NaN or infinity of a float32 tensor: its index, or -1.
int64_t FirstNonFinite(const Tensor& t) {
  if (t.dtype() != DType::kFloat32) return -1;
  const float* v = t.data<float>();
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) return i;
  }
  return -1;
}

}  // namespace

Result<std::unique_ptr<TrainState>> TrainState::Create(
    const TrainStateOptions& options) {
  std::unique_ptr<TrainState> s(new TrainState());
  s->options_ = options;
  MlpOptions mlp;
  mlp.seed = static_cast<uint64_t>(options.seed);
  mlp.math_threads = options.math_threads;
  mlp.spare_gradient_floats = options.spare_gradient_floats;
  INFLOW_ASSIGN_OR_RETURN(s->mlp_, Mlp::Create(mlp));
  OptimizerOptions opt;
  opt.kind = options.optimizer;
  opt.learning_rate = options.learning_rate;
  INFLOW_ASSIGN_OR_RETURN(s->optimizer_,
                          Optimizer::Create(opt, s->mlp_->variables()));
  s->optimizer_->ShareMathThreads(*s->mlp_);
  s->seed_.mutable_flat<int64_t>().value()[0] = options.seed;
  s->saver_ = std::make_unique<Saver>(
      SaverOptions{.env = options.env, .max_to_keep = options.max_to_keep});
  std::vector<std::pair<std::string, Tensor*>> all = s->mlp_->variables();
  for (auto& v : s->optimizer_->variables()) all.push_back(v);
  all.emplace_back("input/epoch", &s->epoch_);
  all.emplace_back("input/seed", &s->seed_);
  if (options.input_iterator) all.emplace_back("input/iterator", &s->iterator_);
  for (auto& [name, tensor] : all) {
    INFLOW_RETURN_IF_ERROR(s->saver_->Register(name, tensor));
  }
  std::vector<std::pair<std::string, Tensor*>> vars = s->mlp_->variables();
  INFLOW_ASSIGN_OR_RETURN(s->graph_,
                          MlpGraphForVariables(vars, mlp.init_stddev));
  return s;
}

Result<float> TrainState::Step(const Tensor& images, const Tensor& labels) {
  INFLOW_ASSIGN_OR_RETURN(float loss, ComputeGradients(images, labels, {}));
  INFLOW_RETURN_IF_ERROR(ApplyGradients());
  return loss;
}

Result<float> TrainState::ComputeGradients(const Tensor& images,
                                           const Tensor& labels,
                                           BatchRows rows) {
  return mlp_->ComputeGradients(images, labels, step(), rows);
}

Status TrainState::ApplyGradients() {
  return optimizer_->Apply(mlp_->gradients());
}

Status TrainState::ApplyGradients(
    std::span<const std::pair<int64_t, int64_t>> ranges) {
  return optimizer_->ApplyRanges(mlp_->gradients(), ranges);
}

std::vector<Tensor*> TrainState::replicated() {
  std::vector<Tensor*> out;
  for (auto& [name, t] : mlp_->variables()) out.push_back(t);
  for (Tensor* t : optimizer_->parameter_slots()) out.push_back(t);
  return out;
}

std::vector<Tensor> TrainState::parameters() {
  std::vector<Tensor> out;
  for (auto& [name, tensor] : mlp_->variables()) out.push_back(*tensor);
  return out;
}

Result<double> TrainState::Accuracy(const Tuple& data) {
  const int64_t n = data[0].shape().dim(0);
  constexpr int64_t kChunk = 1000;
  double correct = 0;
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t k = std::min(kChunk, n - i);
    INFLOW_ASSIGN_OR_RETURN(double a, mlp_->Accuracy(data[0].Slice(i, i + k),
                                                     data[1].Slice(i, i + k)));
    correct += a * static_cast<double>(k);
  }
  return n > 0 ? correct / static_cast<double>(n) : 0.0;
}

Result<std::string> TrainState::Save() {
  if (options_.ckpt_dir.empty()) {
    return FailedPreconditionError("no checkpoint folder");
  }
  std::vector<std::pair<std::string, Tensor*>> all = mlp_->variables();
  for (auto& v : optimizer_->variables()) all.push_back(v);
  for (const auto& [name, tensor] : all) {
    const int64_t at = FirstNonFinite(*tensor);
    if (at >= 0) {
      return InvalidArgumentError(
          "not saving the checkpoint of step " + std::to_string(step()) + ": " +
          name + " holds " +
          (std::isnan(tensor->data<float>()[at]) ? "NaN" : "an infinity") +
          " at element " + std::to_string(at) +
          " (the model diverged; lower --lr)");
    }
  }
  INFLOW_ASSIGN_OR_RETURN(
      std::string prefix,
      saver_->Save(options_.ckpt_dir + "/model.ckpt", step()));
  INFLOW_RETURN_IF_ERROR(
      WriteMetaGraph(graph_, prefix, GraphFileOptions(options_.env)));
  // The latest weights as a frozen GraphDef, beside graph.pbtxt.
  INFLOW_RETURN_IF_ERROR(WriteFrozenGraph(
      graph_, mlp_->variables(), options_.ckpt_dir + "/frozen_graph.pb",
      GraphFileOptions(options_.env)));
  saved_step_ = step();
  return prefix;
}

Status TrainState::Restore(const std::string& prefix) {
  // A tensor of another shape or dtype is named as such; a missing slot
  // (or slots another optimizer ignores) is the optimizer's mismatch.
  const Status restored = saver_->Restore(prefix);
  if (!restored.ok() && !IsNotFound(restored)) return restored;
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          BundleReader::Open(prefix, options_.env));
  const OptimizerKind written_by = CheckpointOptimizer(*reader);
  if (written_by != options_.optimizer) {
    const std::string name(OptimizerKindName(written_by));
    return InvalidArgumentError(
        prefix + " was written by the " + name +
        " optimizer (its slots say so), and this run uses " +
        std::string(OptimizerKindName(options_.optimizer)) +
        ": resume with --optimizer " + name +
        ", or train into another --ckpt-dir");
  }
  INFLOW_RETURN_IF_ERROR(restored);
  // Keep the earlier run's retained checkpoints in the list, so that
  // max_to_keep counts them (TF's recover_last_checkpoints).
  INFLOW_ASSIGN_OR_RETURN(
      std::optional<CheckpointState> listed,
      GetCheckpointState(options_.ckpt_dir, {.env = options_.env}));
  if (listed) {
    INFLOW_RETURN_IF_ERROR(
        saver_->RecoverLastCheckpoints(listed->all_model_checkpoint_paths));
  }
  saved_step_ = step();
  return OkStatus();
}

Status TrainState::WriteGraph(const std::string& path) const {
  return WriteGraphText(graph_, path, GraphFileOptions(options_.env));
}

}  // namespace inflow::internal
