// Copyright 2026 The inflow Authors.
//
// TrainSummary::ToJson and EvaluateCheckpoint.

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/io/env.h"
#include "inflow/train/mlp.h"
#include "inflow/train/trainer.h"

#include "train/image_data.h"

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
  // feed is one of three fixed words: no escaping needed.
  return "{\"steps\": " + std::to_string(steps) +
         ", \"epochs\": " + Number(epochs) +
         ", \"test_accuracy\": " + Number(test_accuracy) +
         ", \"steps_per_s\": " + Number(steps_per_s) +
         ", \"examples_per_s\": " + Number(examples_per_s) +
         ", \"input_wait_fraction\": " + Number(input_wait_fraction) +
         ", \"feed\": \"" + feed + "\"}";
}

Result<double> EvaluateCheckpoint(const std::string& ckpt,
                                  const std::string& data_dir) {
  Env& env = Env::Default();
  std::string prefix = ckpt;
  if (env.IsDirectory(ckpt).ok()) {
    INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                            LatestCheckpoint(ckpt));
    if (!latest) return NotFoundError("no checkpoint in " + ckpt);
    prefix = *latest;
  }
  INFLOW_ASSIGN_OR_RETURN(internal::ImageSplit test,
                          internal::FindImageSplit(env, data_dir, "test"));
  INFLOW_ASSIGN_OR_RETURN(Tuple data, internal::LoadImageSplit(env, test));
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<Mlp> mlp, Mlp::Create({}));
  Saver saver;
  for (auto& [name, tensor] : mlp->variables()) {
    INFLOW_RETURN_IF_ERROR(saver.Register(name, tensor));
  }
  INFLOW_RETURN_IF_ERROR(
      saver.Restore(prefix).WithContext("restoring " + prefix));
  const int64_t n = data[0].shape().dim(0);
  double correct = 0;
  for (int64_t i = 0; i < n; i += 1000) {
    const int64_t k = std::min<int64_t>(1000, n - i);
    INFLOW_ASSIGN_OR_RETURN(double a, mlp->Accuracy(data[0].Slice(i, i + k),
                                                    data[1].Slice(i, i + k)));
    correct += a * static_cast<double>(k);
  }
  return correct / static_cast<double>(n);
}

}  // namespace inflow
