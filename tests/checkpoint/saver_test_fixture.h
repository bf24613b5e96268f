// Copyright 2026 The inflow Authors.
//
// The Saver tests' fixture: a Saver over two tensors in an in-memory Env
// (recording its calls) under /d, with an injected clock.

#ifndef INFLOW_TESTS_CHECKPOINT_SAVER_TEST_FIXTURE_H_
#define INFLOW_TESTS_CHECKPOINT_SAVER_TEST_FIXTURE_H_

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/saver.h"

#include "checkpoint/recording_env.h"

namespace inflow {

class SaverTest : public ::testing::Test {
 protected:
  SaverOptions Options() {
    SaverOptions options;
    options.env = &env_;
    options.now = [this] { return now_; };
    return options;
  }

  // A Saver over `kernel_` and `step_`.
  std::unique_ptr<Saver> NewSaver(SaverOptions options) {
    auto saver = std::make_unique<Saver>(std::move(options));
    EXPECT_TRUE(saver->Register("dense/kernel", &kernel_).ok());
    EXPECT_TRUE(saver->Register("global_step", &step_).ok());
    return saver;
  }

  // The files of /d, sorted.
  std::vector<std::string> Files() {
    Result<std::vector<std::string>> children = env_.GetChildren("/d");
    if (!children.ok()) return {};
    std::vector<std::string> files = *children;
    std::sort(files.begin(), files.end());
    return files;
  }

  // What a checkpoint with prefix "model.ckpt-N" leaves in /d.
  static std::vector<std::string> FilesOf(std::vector<int> steps) {
    std::vector<std::string> files = {"checkpoint"};
    for (int step : steps) {
      const std::string p = "model.ckpt-" + std::to_string(step);
      files.push_back(p + ".data-00000-of-00001");
      files.push_back(p + ".index");
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  std::string StateText() {
    Result<std::string> text = env_.mem().Contents("/d/checkpoint");
    return text.ok() ? *text : "<no state file>";
  }

  // The state file a TF1 Saver writes for these steps.
  static std::string StateOf(std::vector<int> steps) {
    std::string text = "model_checkpoint_path: \"/d/model.ckpt-" +
                       std::to_string(steps.back()) + "\"\n";
    for (int step : steps) {
      text += "all_model_checkpoint_paths: \"/d/model.ckpt-" +
              std::to_string(step) + "\"\n";
    }
    return text;
  }

  testing::RecordingEnv env_;
  double now_ = 1000.0;
  Tensor kernel_ = Tensor::FromVector<float>({1.5f, -2.0f, 3.25f});
  Tensor step_ = Tensor::Scalar<int64_t>(7);
};

}  // namespace inflow

#endif  // INFLOW_TESTS_CHECKPOINT_SAVER_TEST_FIXTURE_H_
