// Copyright 2026 The inflow Authors.
//
// Reading and atomically replacing a directory's `checkpoint` state file,
// with the path rewriting TensorFlow's checkpoint_management applies.

#include "inflow/checkpoint/checkpoint_state.h"

#include <filesystem>
#include <string>
#include <system_error>

#include "inflow/core/json_string.h"

#include "checkpoint/checkpoint_state_internal.h"
#include "io/atomic_publish.h"
#include "io/path.h"

namespace inflow {
namespace {

using internal::IsAbsolutePath;
using internal::JoinPath;
using internal::RelativePath;

Status CheckLatestFilename(const std::string& latest_filename) {
  if (latest_filename.empty() ||
      latest_filename.find('/') != std::string::npos) {
    return InvalidArgumentError(
        "'latest_filename' must be a file name without path components: '" +
        latest_filename + "'");
  }
  return OkStatus();
}

// os.path.relpath(path, start) for any mix of absolute and relative: a
// relative one is taken from the working directory.
std::string RelativeTo(const std::string& path, const std::string& start) {
  if (IsAbsolutePath(path) == IsAbsolutePath(start)) {
    return RelativePath(path, start);
  }
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  return RelativePath(IsAbsolutePath(path) ? path : JoinPath(cwd, path),
                      IsAbsolutePath(start) ? start : JoinPath(cwd, start));
}

// Replaces `filename` with `text` through "checkpoint.tmp" + 32 random hex
// digits, as TF's atomic writes name their temporaries (the Saver's
// leftover cleanup knows the name: saver_files.h).
Status WriteAtomically(Env& env, const std::string& filename,
                       const std::string& text, bool sync, bool* replaced) {
  return internal::WriteFileAtomically(
      env, filename, filename + ".tmp" + internal::RandomHex(32), text, sync,
      replaced);
}

}  // namespace

Result<std::optional<CheckpointState>> GetCheckpointState(
    const std::string& dir, const CheckpointStateOptions& options) {
  INFLOW_RETURN_IF_ERROR(CheckLatestFilename(options.latest_filename));
  const std::string filename = JoinPath(dir, options.latest_filename);
  Status exists = options.env->FileExists(filename);
  if (IsNotFound(exists)) return std::optional<CheckpointState>();
  INFLOW_RETURN_IF_ERROR(exists);
  INFLOW_ASSIGN_OR_RETURN(std::string text,
                          ReadFileToString(*options.env, filename));
  Result<CheckpointState> parsed = ParseCheckpointState(text);
  if (!parsed.ok()) return parsed.status().WithContext(filename);
  CheckpointState state = std::move(parsed).value();
  if (state.model_checkpoint_path.empty()) {
    return InvalidArgumentError("Invalid checkpoint state loaded from " + dir +
                                " (" + filename +
                                " has no model_checkpoint_path)");
  }
  state.model_checkpoint_path = JoinPath(dir, state.model_checkpoint_path);
  for (std::string& path : state.all_model_checkpoint_paths) {
    path = JoinPath(dir, path);
  }
  return std::optional<CheckpointState>(std::move(state));
}

Result<std::optional<std::string>> LatestCheckpoint(
    const std::string& dir, const CheckpointStateOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(std::optional<CheckpointState> state,
                          GetCheckpointState(dir, options));
  if (!state) return std::optional<std::string>();
  const std::string& prefix = state->model_checkpoint_path;
  for (const std::string& file : {prefix + ".index", prefix}) {
    Status exists = options.env->FileExists(file);
    if (exists.ok()) return std::optional<std::string>(prefix);
    if (!IsNotFound(exists)) return exists;
  }
  return std::optional<std::string>();
}

Status UpdateCheckpointState(const std::string& dir,
                             const CheckpointState& state,
                             const CheckpointStateOptions& options,
                             bool save_relative_paths) {
  bool replaced = false;
  return internal::UpdateCheckpointState(dir, state, options,
                                         save_relative_paths, &replaced);
}

Status internal::UpdateCheckpointState(const std::string& dir,
                                       const CheckpointState& state,
                                       const CheckpointStateOptions& options,
                                       bool save_relative_paths,
                                       bool* replaced) {
  *replaced = false;
  INFLOW_RETURN_IF_ERROR(CheckLatestFilename(options.latest_filename));
  CheckpointState out = state;
  if (save_relative_paths) {
    auto relative = [&dir](std::string& p) {
      if (IsAbsolutePath(p)) p = RelativeTo(p, dir);
    };
    relative(out.model_checkpoint_path);
    for (std::string& p : out.all_model_checkpoint_paths) relative(p);
  }
  if (out.all_model_checkpoint_paths.empty() ||
      out.all_model_checkpoint_paths.back() != out.model_checkpoint_path) {
    out.all_model_checkpoint_paths.push_back(out.model_checkpoint_path);
  }
  if (!out.all_model_checkpoint_timestamps.empty() &&
      out.all_model_checkpoint_timestamps.size() !=
          out.all_model_checkpoint_paths.size()) {
    return InvalidArgumentError(
        "Checkpoint timestamps, if provided, must match checkpoint paths (" +
        std::to_string(out.all_model_checkpoint_paths.size()) + " paths, " +
        std::to_string(out.all_model_checkpoint_timestamps.size()) +
        " timestamps)");
  }
  // A relative directory: relative paths are rewritten relative to it.
  if (!IsAbsolutePath(dir)) {
    auto relative = [&dir](std::string& p) {
      if (!IsAbsolutePath(p)) p = RelativeTo(p, dir);
    };
    relative(out.model_checkpoint_path);
    for (std::string& p : out.all_model_checkpoint_paths) relative(p);
  }
  for (const std::string& p : out.all_model_checkpoint_paths) {
    if (!IsValidUtf8(p)) {
      return InvalidArgumentError(
          "checkpoint path is not valid UTF-8, which the state file cannot "
          "hold: " +
          p);
    }
  }
  const std::string filename = JoinPath(dir, options.latest_filename);
  if (filename == out.model_checkpoint_path) {
    return InvalidArgumentError(
        "Save path '" + state.model_checkpoint_path +
        "' conflicts with path used for checkpoint state.  Please use a "
        "different save path.");
  }
  return WriteAtomically(*options.env, filename, FormatCheckpointState(out),
                         options.sync, replaced);
}

}  // namespace inflow
