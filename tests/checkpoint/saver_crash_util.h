// Copyright 2026 The inflow Authors.
//
// What the Saver crash tests save: tensors whose values say which step
// wrote them, so a restored checkpoint shows whether it is whole and
// which save it came from.

#ifndef INFLOW_TESTS_CHECKPOINT_SAVER_CRASH_UTIL_H_
#define INFLOW_TESTS_CHECKPOINT_SAVER_CRASH_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "inflow/checkpoint/saver.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace inflow {
namespace testing {

// 3000 floats (12 KB of data file) that differ from step to step.
inline Tensor WeightsFor(int64_t step) {
  std::vector<float> values(3000);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(step) * 1000.0f + static_cast<float>(i);
  }
  return Tensor::FromVector(values);
}

// A Saver over two tensors, "dense/kernel" and "global_step".
class StepModel {
 public:
  // `tweak`, if given, changes the options last.
  explicit StepModel(
      Env* env, int max_to_keep = 5,
      const std::function<void(SaverOptions&)>& tweak = nullptr) {
    SaverOptions options;
    options.env = env;
    options.max_to_keep = max_to_keep;
    options.now = [] { return 1.7e9; };
    if (tweak) tweak(options);
    saver_ = std::make_unique<Saver>(std::move(options));
    saver_->Register("dense/kernel", &weights_).IgnoreError();
    saver_->Register("global_step", &step_).IgnoreError();
  }

  Saver& saver() { return *saver_; }

  // Saves `step`'s values as `save_path`-step.
  Result<std::string> Save(const std::string& save_path, int64_t step) {
    weights_ = WeightsFor(step);
    step_ = Tensor::Scalar<int64_t>(step);
    return saver_->Save(save_path, step);
  }

  // Restores `prefix` and returns its step; DATA_LOSS if the weights are
  // not that step's (a torn or mixed checkpoint).
  Result<int64_t> RestoreStep(const std::string& prefix) {
    weights_ = WeightsFor(-1);
    step_ = Tensor::Scalar<int64_t>(-1);
    INFLOW_RETURN_IF_ERROR(saver_->Restore(prefix));
    const int64_t step = step_.flat<int64_t>()[0];
    if (!(weights_ == WeightsFor(step))) {
      return DataLossError(prefix + " holds global_step " +
                           std::to_string(step) +
                           " but other weights than that step's");
    }
    return step;
  }

 private:
  Tensor weights_ = WeightsFor(0);
  Tensor step_ = Tensor::Scalar<int64_t>(0);
  std::unique_ptr<Saver> saver_;
};

// The entries of `dir` that are neither the state file nor a file of a
// checkpoint `base`-N (.index, .data-NNNNN-of-NNNNN): temporaries.
inline std::vector<std::string> Leftovers(Env& env, const std::string& dir,
                                          const std::string& base) {
  const std::regex kept("checkpoint|" + base +
                        R"(-\d+\.(index|data-\d{5}-of-\d{5}))");
  std::vector<std::string> leftovers;
  auto children = env.GetChildren(dir);
  if (!children.ok()) {
    std::string error = "listing failed: ";
    error.append(children.status().ToString());
    return {error};
  }
  for (const std::string& name : *children) {
    if (!std::regex_match(name, kept)) leftovers.push_back(name);
  }
  return leftovers;
}

}  // namespace testing
}  // namespace inflow

#endif  // INFLOW_TESTS_CHECKPOINT_SAVER_CRASH_UTIL_H_
