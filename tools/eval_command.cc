// Copyright 2026 The inflow Authors.
//
// `inflow eval --ckpt PREFIX|DIR --data DIR`: the test-set accuracy of a
// checkpoint `inflow train` wrote (a folder means its latest checkpoint).

#include <cstdio>
#include <memory>
#include <string>

#include "inflow/train/trainer.h"

#include "command.h"

namespace inflow::tools {
namespace {

std::function<Status()> Setup(CLI::App& app) {
  auto ckpt = std::make_shared<std::string>();
  auto data = std::make_shared<std::string>();
  app.add_option("--ckpt", *ckpt, "checkpoint prefix or folder")->required();
  app.add_option("--data", *data, "folder of test-*.tfrecord")->required();
  return [=]() -> Status {
    INFLOW_ASSIGN_OR_RETURN(double accuracy, EvaluateCheckpoint(*ckpt, *data));
    std::printf("{\"test_accuracy\": %.6g}\n", accuracy);
    return OkStatus();
  };
}

INFLOW_REGISTER_COMMAND("eval", "Test-set accuracy of a training checkpoint",
                        Setup);

}  // namespace
}  // namespace inflow::tools
