// Copyright 2026 The inflow Authors.
//
// `inflow eval --ckpt PREFIX|DIR --data DIR [--predictions FILE]`: the
// test-set accuracy of a checkpoint `inflow train` wrote (a folder means
// its latest checkpoint), as one JSON line; with --predictions, the
// softmax outputs of the test images in file order as raw little-endian
// float32 [N, 10].

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "inflow/io/env.h"
#include "inflow/train/trainer.h"

#include "command.h"
#include "flag_checks.h"

namespace inflow::tools {
namespace {

std::function<Status()> Setup(CLI::App& app) {
  auto ckpt = std::make_shared<std::string>();
  auto data = std::make_shared<std::string>();
  auto predictions = std::make_shared<std::string>();
  auto math_threads = std::make_shared<int>(1);
  auto allow_missing = std::make_shared<bool>(false);
  app.add_option("--ckpt", *ckpt, "checkpoint prefix or folder")->required();
  app.add_option("--data", *data, "folder of test-*.tfrecord")->required();
  app.add_option("--predictions", *predictions,
                 "write the test predictions here (raw float32 [N, 10])");
  app.add_option("--math-threads", *math_threads,
                 "threads of the model's math (1..64; the same results)")
      ->transform(IntegerIn(1, 64))
      ->capture_default_str();
  app.add_flag("--allow-missing-shards", *allow_missing,
               "evaluate on the test shards present when some of the "
               "PREFIX-i-of-N shards are missing (a warning, not an error)");
  return [=]() -> Status {
    INFLOW_ASSIGN_OR_RETURN(
        Evaluation e, EvaluateCheckpoint(*ckpt, *data, !predictions->empty(),
                                         *math_threads, *allow_missing));
    if (!e.warning.empty()) std::fprintf(stderr, "%s\n", e.warning.c_str());
    if (!predictions->empty()) {
      const auto* bytes = static_cast<const char*>(e.predictions.raw_data());
      INFLOW_RETURN_IF_ERROR(WriteStringToFile(
          Env::Default(), *predictions,
          std::string_view(bytes, e.predictions.num_elements() * 4)));
    }
    nlohmann::json out = {{"checkpoint", e.checkpoint},
                          {"test_accuracy", e.test_accuracy}};
    std::printf("%s\n", out.dump().c_str());
    return OkStatus();
  };
}

INFLOW_REGISTER_COMMAND("eval", "Test-set accuracy of a training checkpoint",
                        Setup);

}  // namespace
}  // namespace inflow::tools
