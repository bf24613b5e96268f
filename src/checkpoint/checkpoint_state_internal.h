// Copyright 2026 The inflow Authors.
//
// UpdateCheckpointState with one more fact for the Saver: whether the new
// state file was renamed into place before an error (a failed directory
// sync), in which case readers already see the new state.

#ifndef INFLOW_CHECKPOINT_CHECKPOINT_STATE_INTERNAL_H_
#define INFLOW_CHECKPOINT_CHECKPOINT_STATE_INTERNAL_H_

#include <string>

#include "inflow/checkpoint/checkpoint_state.h"

namespace inflow {
namespace internal {

// As UpdateCheckpointState; `*replaced` is true once the rename over the
// old state file succeeded, whatever is returned.
[[nodiscard]] Status UpdateCheckpointState(
    const std::string& dir, const CheckpointState& state,
    const CheckpointStateOptions& options, bool save_relative_paths,
    bool* replaced);

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_CHECKPOINT_STATE_INTERNAL_H_
