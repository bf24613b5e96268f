// Copyright 2026 The inflow Authors.
//
// TrainSummary::ToJson and EvaluateCheckpoint.

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/io/env.h"
#include "inflow/model/mlp.h"
#include "inflow/train/trainer.h"

#include "datafiles/image_data.h"

namespace inflow {
namespace {

std::string Number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

}  // namespace

std::string TrainSummary::ToJson() const {
  // The feed's name is one of three fixed words: no escaping needed.
  return "{\"steps\": " + std::to_string(steps) +
         ", \"epochs\": " + Number(epochs) +
         ", \"test_accuracy\": " + Number(test_accuracy) +
         ", \"steps_per_s\": " + Number(steps_per_s) +
         ", \"examples_per_s\": " + Number(examples_per_s) +
         ", \"input_wait_fraction\": " + Number(input_wait_fraction) +
         ", \"feed\": \"" + std::string(FeedKindName(feed)) + "\"}";
}

Result<Evaluation> EvaluateCheckpoint(const std::string& ckpt,
                                      const std::string& data_dir,
                                      bool predictions, int math_threads,
                                      bool allow_missing_shards, Env* env) {
  Evaluation out;
  out.checkpoint = ckpt;
  if (env->IsDirectory(ckpt).ok()) {
    INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                            LatestCheckpoint(ckpt, {.env = env}));
    if (!latest) return NotFoundError("no checkpoint in " + ckpt);
    out.checkpoint = *latest;
  }
  INFLOW_ASSIGN_OR_RETURN(internal::ImageSplit test,
                          internal::FindImageSplit(*env, data_dir, "test"));
  const std::string missing = internal::MissingShardsMessage(test);
  if (!missing.empty()) {
    if (!allow_missing_shards) {
      return NotFoundError(missing +
                           " (--allow-missing-shards uses the others)");
    }
    out.warning = "warning: " + missing + "; using the " +
                  std::to_string(test.files.size()) + " present";
  }
  INFLOW_ASSIGN_OR_RETURN(Tuple data, internal::LoadImageSplit(*env, test));
  MlpOptions options;
  options.math_threads = math_threads;
  Result<std::unique_ptr<Mlp>> made = Mlp::Create(options);
  if (!made.ok()) return made.status().WithContext("--math-threads");
  std::unique_ptr<Mlp> mlp = *std::move(made);
  Saver saver(SaverOptions{.env = env});
  for (auto& [name, tensor] : mlp->variables()) {
    INFLOW_RETURN_IF_ERROR(saver.Register(name, tensor));
  }
  INFLOW_RETURN_IF_ERROR(
      saver.Restore(out.checkpoint).WithContext("restoring " + out.checkpoint));
  const int64_t n = data[0].shape().dim(0);
  double correct = 0;
  std::vector<Tensor> parts;
  for (int64_t i = 0; i < n; i += 1000) {
    const int64_t k = std::min<int64_t>(1000, n - i);
    const Tensor images = data[0].Slice(i, i + k);
    INFLOW_ASSIGN_OR_RETURN(double a,
                            mlp->Accuracy(images, data[1].Slice(i, i + k)));
    correct += a * static_cast<double>(k);
    if (predictions) {
      INFLOW_ASSIGN_OR_RETURN(Tensor p, mlp->Predict(images));
      parts.push_back(std::move(p));
    }
  }
  out.test_accuracy = correct / static_cast<double>(n);
  if (predictions) {
    INFLOW_ASSIGN_OR_RETURN(out.predictions, Tensor::Concat(parts));
  }
  return out;
}

}  // namespace inflow
