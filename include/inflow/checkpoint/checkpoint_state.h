// Copyright 2026 The inflow Authors.
//
// The `checkpoint` state file: which checkpoints of a directory exist,
// newest last, in TensorFlow's CheckpointState protobuf text format
// (docs/formats.md, "The checkpoint state file"). tf.train.latest_checkpoint
// and tf.train.get_checkpoint_state read what these functions write, and
// the other way round.

#ifndef INFLOW_CHECKPOINT_CHECKPOINT_STATE_H_
#define INFLOW_CHECKPOINT_CHECKPOINT_STATE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"

namespace inflow {

struct CheckpointState {
  // The newest checkpoint prefix.
  std::string model_checkpoint_path;
  // Retained prefixes, oldest first; the last is model_checkpoint_path.
  std::vector<std::string> all_model_checkpoint_paths;
  // Seconds since the epoch, one per path, or empty (TF1's Saver writes
  // none).
  std::vector<double> all_model_checkpoint_timestamps;
  double last_preserved_timestamp = 0;

  friend bool operator==(const CheckpointState&,
                         const CheckpointState&) = default;
};

// The text TF writes: one `name: value` line per field in field-number
// order, repeated fields one line each, zero or empty fields omitted,
// strings double-quoted with C escapes, doubles in shortest round-trip form.
std::string FormatCheckpointState(const CheckpointState& state);

// Parses protobuf text format as TF does: whitespace anywhere, `#`
// comments, single or double quotes, escapes (octal, \xHH), adjacent
// literals concatenated, fields in any order. Unknown fields or bad syntax
// are DATA_LOSS naming the line and column.
[[nodiscard]] Result<CheckpointState> ParseCheckpointState(
    std::string_view text);

struct CheckpointStateOptions {
  Env* env = &Env::Default();
  // The state file's name in the directory; a path separator in it is
  // INVALID_ARGUMENT.
  std::string latest_filename = "checkpoint";
  // UpdateCheckpointState syncs the file and the directory (off only in
  // benchmarks that say so).
  bool sync = true;
};

// Reads `dir`/latest_filename. std::nullopt when the file is absent;
// relative paths in it are joined onto `dir`. A file that does not parse
// is DATA_LOSS (TF logs a warning and returns None: see
// docs/conformance.md); a parsed state whose model_checkpoint_path is
// empty is INVALID_ARGUMENT.
[[nodiscard]] Result<std::optional<CheckpointState>> GetCheckpointState(
    const std::string& dir, const CheckpointStateOptions& options = {});

// The newest checkpoint prefix of `dir` whose `.index` (V2) or the prefix
// itself (V1) exists; std::nullopt when there is no state file or that
// checkpoint's files are gone.
[[nodiscard]] Result<std::optional<std::string>> LatestCheckpoint(
    const std::string& dir, const CheckpointStateOptions& options = {});

// Replaces `dir`/latest_filename atomically: a temporary file in `dir`
// (`checkpoint.tmp<hex>`), synced, renamed over the old one, the directory
// synced. model_checkpoint_path is appended to the list if it is not its
// last element. Paths are rewritten as TF rewrites them: with
// `save_relative_paths`, absolute paths are written relative to `dir`;
// when `dir` is relative, relative paths are written relative to it
// ("train/model.ckpt-1" in "train" becomes "model.ckpt-1"). Errors:
// INVALID_ARGUMENT for timestamps that are neither empty nor one per path,
// a path that is not UTF-8 (TF's protobuf cannot hold it), or a
// model_checkpoint_path equal to the state file's path ("Save path ...
// conflicts with path used for checkpoint state").
[[nodiscard]] Status UpdateCheckpointState(
    const std::string& dir, const CheckpointState& state,
    const CheckpointStateOptions& options = {},
    bool save_relative_paths = false);

}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_CHECKPOINT_STATE_H_
