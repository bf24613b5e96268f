// Copyright 2026 The inflow Authors.
//
// The child of saver_kill_test: saves checkpoints in a loop until killed.
//
//   saver_crash_child DIR FIRST_STEP
//
// Saves DIR/model.ckpt-STEP for STEP = FIRST_STEP, FIRST_STEP + 1, ...
// (values testing::WeightsFor(STEP), max_to_keep 3, the checkpoints the
// state file lists adopted first) and writes "STEP\n" to stdout after each
// Save returns OK. A failed Save is reported on stderr, exit status 2.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "inflow/checkpoint/checkpoint_state.h"

#include "checkpoint/saver_crash_util.h"

namespace inflow {
namespace {

int Run(const std::string& dir, int64_t first_step) {
  // The real clock: with StepModel's fixed one (2023) the adopted
  // checkpoints' modification times would lie past
  // keep_checkpoint_every_n_hours' next keep time, and each evicted one
  // would be preserved rather than deleted.
  testing::StepModel model(&Env::Default(), /*max_to_keep=*/3,
                           [](SaverOptions& o) { o.now = nullptr; });
  auto state = GetCheckpointState(dir);
  if (!state.ok()) {
    std::fprintf(stderr, "GetCheckpointState: %s\n",
                 state.status().ToString().c_str());
    return 2;
  }
  if (state->has_value()) {
    Status recovered = model.saver().RecoverLastCheckpoints(
        (*state)->all_model_checkpoint_paths);
    if (!recovered.ok()) {
      std::fprintf(stderr, "RecoverLastCheckpoints: %s\n",
                   recovered.ToString().c_str());
      return 2;
    }
  }
  for (int64_t step = first_step;; ++step) {
    Result<std::string> saved = model.Save(dir + "/model.ckpt", step);
    if (!saved.ok()) {
      std::fprintf(stderr, "Save %lld: %s\n", static_cast<long long>(step),
                   saved.status().ToString().c_str());
      return 2;
    }
    const std::string line = std::to_string(step) + "\n";
    if (::write(STDOUT_FILENO, line.data(), line.size()) !=
        static_cast<ssize_t>(line.size())) {
      return 3;
    }
  }
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DIR FIRST_STEP\n", argv[0]);
    return 1;
  }
  return inflow::Run(argv[1], std::strtoll(argv[2], nullptr, 10));
}
