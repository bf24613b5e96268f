// Copyright 2026 The inflow Authors.
//
// Checkpoints with a Saver (README.md, "Checkpoints"): a toy training loop
// over two tensors saves every 100 steps, keeping the two newest
// checkpoints; a second run ("after a restart") restores the newest into
// its own tensors, in place, and carries on from its step. The program
// works in a temporary directory and checks what it finds there: the
// state file lists model.ckpt-400 and model.ckpt-500 and only their files
// are left. The lines between "README begin" and "README end" are README's
// snippet, word for word (a ctest checks it).
//
//   build/release/bin/example_checkpoints

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace {

// One run: 500 steps from wherever the newest checkpoint in `dir` left
// off; returns the step it ended at, or -1 on error.
int64_t Run(const std::string& dir) {
  inflow::Tensor kernel(inflow::DType::kFloat32, inflow::TensorShape({2, 3}));
  inflow::Tensor global_step = inflow::Tensor::Scalar<int64_t>(0);
  // README begin
  inflow::Saver saver({.max_to_keep = 2});
  if (!saver.Register("dense/kernel", &kernel).ok() ||
      !saver.Register("global_step", &global_step).ok()) {
    return -1;
  }
  auto latest = inflow::LatestCheckpoint(dir);  // from the `checkpoint` file
  if (!latest.ok()) return -1;
  if (latest->has_value() && !saver.Restore(**latest).ok()) return -1;
  int64_t& step = (*global_step.mutable_flat<int64_t>())[0];
  float* w = kernel.mutable_flat<float>()->data();
  for (const int64_t last = step + 500; step < last;) {
    for (int i = 0; i < 6; ++i) w[i] += 0.5f;  // a training step
    if (++step % 100 == 0) {
      auto prefix = saver.Save(dir + "/model.ckpt", step);  // model.ckpt-STEP
      if (!prefix.ok()) return -1;  // the previous checkpoint is intact
    }
  }
  // README end
  return step;
}

}  // namespace

int main() {
  char dir_template[] = "/tmp/inflow_checkpoints_XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return 2;
  const std::string dir = dir_template;
  inflow::Env& env = inflow::Env::Default();
  const int64_t first = Run(dir);
  auto state = inflow::GetCheckpointState(dir);
  const bool listed = state.ok() && state->has_value() &&
                      (*state)->all_model_checkpoint_paths ==
                          std::vector<std::string>{dir + "/model.ckpt-400",
                                                   dir + "/model.ckpt-500"};
  const bool old_gone =
      inflow::IsNotFound(env.FileExists(dir + "/model.ckpt-300.index"));
  const int64_t second = Run(dir);  // restores model.ckpt-500
  auto latest = inflow::LatestCheckpoint(dir);
  const bool resumed = second == 1000 && latest.ok() &&
                       latest->value_or("") == dir + "/model.ckpt-1000";
  std::printf("first run ended at step %lld, second at %lld; %s\n",
              static_cast<long long>(first), static_cast<long long>(second),
              latest.ok() ? latest->value_or("no checkpoint").c_str()
                          : latest.status().ToString().c_str());
  auto children = env.GetChildren(dir);
  if (children.ok()) {
    for (const std::string& name : *children) {
      env.DeleteFile(dir + "/" + name).IgnoreError();
    }
  }
  rmdir(dir.c_str());
  return first == 500 && listed && old_gone && resumed ? 0 : 1;
}
