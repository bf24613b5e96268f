// Copyright 2026 The inflow Authors.
//
// Saver: TF1's tf.compat.v1.train.Saver over named tensors. Naming and
// retention follow TF's saver.py step for step (docs/formats.md, "Saver:
// naming and retention"); every file operation goes through the Env.

#include "inflow/checkpoint/saver.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/bundle.h"

#include "checkpoint/checkpoint_state_internal.h"
#include "checkpoint/saver_files.h"
#include "io/path.h"

namespace inflow {

using internal::Basename;
using internal::Dirname;

struct Saver::Rep {
  explicit Rep(SaverOptions o) : options(std::move(o)) {
    if (!options.now) {
      options.now = [] {
        return std::chrono::duration<double>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
      };
    }
    next_keep_time =
        options.now() + options.keep_checkpoint_every_n_hours * 3600.0;
  }

  Env& env() const { return *options.env; }

  // TF's _RecordLastCheckpoint.
  void RecordLastCheckpoint(const std::string& prefix) {
    if (options.max_to_keep <= 0) return;
    std::erase_if(last_checkpoints,
                  [&prefix](const auto& c) { return c.first == prefix; });
    last_checkpoints.emplace_back(prefix, options.now());
    if (static_cast<int64_t>(last_checkpoints.size()) > options.max_to_keep) {
      to_delete.push_back(std::move(last_checkpoints.front()));
      last_checkpoints.erase(last_checkpoints.begin());
    }
  }

  // The evicted checkpoint MaybeDeleteOldCheckpoint will delete, if any.
  const std::string* NextToDelete() const {
    if (to_delete.empty() || to_delete.front().second > next_keep_time) {
      return nullptr;
    }
    return &to_delete.front().first;
  }

  // TF's _MaybeDeleteOldCheckpoints: at most one evicted checkpoint. Its
  // eviction marker goes after its files.
  Status MaybeDeleteOldCheckpoint() {
    if (to_delete.empty()) return OkStatus();
    const auto [prefix, time] = std::move(to_delete.front());
    to_delete.pop_front();
    if (time > next_keep_time) {
      next_keep_time += options.keep_checkpoint_every_n_hours * 3600.0;
      return OkStatus();
    }
    INFLOW_RETURN_IF_ERROR(internal::DeleteCheckpointFiles(env(), prefix));
    const std::string marker = internal::EvictionMarkerFilename(prefix);
    Status s = env().DeleteFile(marker);
    if (!s.ok() && !IsNotFound(s)) {
      return s.WithContext("removing the eviction marker " + marker);
    }
    return OkStatus();
  }

  // Once per save_path: what a killed Save of this base left in its
  // directory (internal::RemoveSaverLeftovers; docs/conformance.md,
  // "Leftovers of killed saves").
  void RemoveLeftovers(const std::string& save_path, const std::string& dir) {
    if (!options.remove_leftovers || !cleaned.insert(save_path).second) return;
    Result<std::optional<CheckpointState>> state = GetCheckpointState(
        dir, {.env = options.env, .latest_filename = options.latest_filename});
    if (!state.ok()) return;  // an unreadable state: touch nothing
    std::vector<std::string> listed;
    if (state->has_value()) {
      listed.push_back(Basename((*state)->model_checkpoint_path));
      for (const std::string& p : (*state)->all_model_checkpoint_paths) {
        listed.push_back(Basename(p));
      }
    }
    for (const auto& [p, time] : last_checkpoints)
      listed.push_back(Basename(p));
    for (const auto& [p, time] : to_delete) listed.push_back(Basename(p));
    internal::RemoveSaverLeftovers(env(), save_path, options.latest_filename,
                                   listed, options.now(),
                                   options.leftover_grace_seconds);
  }

  SaverOptions options;
  std::vector<std::pair<std::string, Tensor*>> tensors;
  std::set<std::string> names;
  // Saveables: each one's value lives in `saveable_values` (stable
  // addresses), registered in `tensors` like any tensor.
  std::map<std::string, Saveable> saveables;
  std::deque<Tensor> saveable_values;
  std::vector<std::pair<std::string, double>> last_checkpoints;
  std::deque<std::pair<std::string, double>> to_delete;
  double next_keep_time = 0;
  std::set<std::string> cleaned;  // save_paths RemoveLeftovers has done
};

Saver::Saver(SaverOptions options)
    : rep_(std::make_unique<Rep>(std::move(options))) {}

Saver::~Saver() = default;

Status Saver::Register(std::string name, Tensor* tensor) {
  if (name.empty()) {
    return InvalidArgumentError("Saver::Register: the name is empty");
  }
  if (tensor == nullptr || !tensor->IsInitialized()) {
    return InvalidArgumentError("Saver::Register: tensor " + name +
                                " is null or uninitialized");
  }
  if (!rep_->names.insert(name).second) {
    return InvalidArgumentError("Saver::Register: " + name +
                                " is registered twice");
  }
  rep_->tensors.emplace_back(std::move(name), tensor);
  return OkStatus();
}

Status Saver::RegisterSaveable(std::string name, Saveable saveable) {
  if (!saveable.save || !saveable.restore) {
    return InvalidArgumentError("Saver::RegisterSaveable: " + name +
                                " needs both save and restore");
  }
  Tensor& value =
      rep_->saveable_values.emplace_back(Tensor::Scalar<int64_t>(0));
  Status s = Register(name, &value);
  if (!s.ok()) {
    rep_->saveable_values.pop_back();
    return s;
  }
  rep_->saveables.emplace(std::move(name), std::move(saveable));
  return OkStatus();
}

Result<std::string> Saver::Save(const std::string& save_path,
                                std::optional<int64_t> global_step,
                                bool write_state) {
  const SaverOptions& options = rep_->options;
  if (options.latest_filename.empty() ||
      options.latest_filename.find('/') != std::string::npos) {
    return InvalidArgumentError(
        "'latest_filename' must not contain path components: '" +
        options.latest_filename + "'");
  }
  if (rep_->tensors.empty()) {
    if (options.allow_empty) return std::string();
    return InvalidArgumentError("No variables to save");
  }
  for (auto& [name, tensor] : rep_->tensors) {
    auto it = rep_->saveables.find(name);
    if (it == rep_->saveables.end()) continue;
    Result<Tensor> value = it->second.save();
    if (!value.ok()) return value.status().WithContext("saving " + name);
    *tensor = std::move(value).value();
  }
  std::string prefix = save_path;
  if (global_step) {
    char step[32];
    std::snprintf(step, sizeof(step),
                  options.pad_step_number ? "-%08" PRId64 : "-%" PRId64,
                  *global_step);
    prefix += step;
  } else if (Basename(save_path) == options.latest_filename) {
    return InvalidArgumentError(
        "'latest_filename' collides with 'save_path': '" +
        options.latest_filename + "' and '" + save_path + "'");
  }
  const std::string dir = Dirname(save_path);
  if (!dir.empty()) {
    Status made = RecursivelyCreateDir(rep_->env(), dir);
    if (!made.ok()) {
      return Status(made.code(), "Parent directory of " + prefix +
                                     " doesn't exist, can't save: " +
                                     std::string(made.message()));
    }
  }

  rep_->RemoveLeftovers(save_path, dir);

  // A prefix that exists already is overwritten: a failed Save must not
  // delete it afterwards.
  const bool existed = rep_->env().FileExists(BundleIndexFilename(prefix)).ok();
  // The bundle: temporaries, synced, renamed into place; on error the
  // writer's destructor deletes its temporaries.
  {
    // In name order, as TF's Saver sorts its saveables: the data file's
    // layout is then TF's.
    std::vector<const std::pair<std::string, Tensor*>*> sorted;
    for (const auto& entry : rep_->tensors) sorted.push_back(&entry);
    std::sort(sorted.begin(), sorted.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    BundleWriter writer(prefix, {.env = options.env, .sync = options.sync});
    for (const auto* entry : sorted) {
      INFLOW_RETURN_IF_ERROR(writer.Add(entry->first, *entry->second));
    }
    INFLOW_RETURN_IF_ERROR(writer.Finish());
  }
  if (!write_state) return prefix;

  const auto saved_last = rep_->last_checkpoints;
  const auto saved_to_delete = rep_->to_delete;
  rep_->RecordLastCheckpoint(prefix);
  CheckpointState state;
  state.model_checkpoint_path = prefix;
  for (const auto& [path, time] : rep_->last_checkpoints) {
    state.all_model_checkpoint_paths.push_back(path);
  }
  // The checkpoint this Save evicts and deletes is marked first: killed
  // after the state file drops it but before its files are gone, the next
  // Saver finds the marker and finishes the deletion.
  const std::string* evicting = rep_->NextToDelete();
  const std::string marker =
      evicting ? internal::EvictionMarkerFilename(*evicting) : "";
  bool replaced = false;
  Status updated =
      marker.empty()
          ? OkStatus()
          : WriteStringToFile(rep_->env(), marker, "")
                .WithContext("marking " + *evicting + " for deletion");
  if (updated.ok()) {
    updated = internal::UpdateCheckpointState(
        dir, state,
        {.env = options.env,
         .latest_filename = options.latest_filename,
         .sync = options.sync},
        options.save_relative_paths, &replaced);
  }
  if (!updated.ok() && replaced) {
    // Readers see the new state already (only the directory sync failed):
    // the list stays as the file says, nothing is deleted.
    return Status(updated.code(), "saved " + prefix + " and listed it, but: " +
                                      std::string(updated.message()));
  }
  if (!updated.ok()) {
    // The previous state file stands: so do the previous list and files.
    // The new checkpoint is removed unless its prefix existed before (its
    // files are overwritten; the old state file may name it).
    rep_->last_checkpoints = saved_last;
    rep_->to_delete = saved_to_delete;
    if (!marker.empty()) rep_->env().DeleteFile(marker).IgnoreError();
    if (!existed) {
      internal::DeleteCheckpointFiles(rep_->env(), prefix).IgnoreError();
    }
    return updated;
  }
  Status deleted = rep_->MaybeDeleteOldCheckpoint();
  if (!deleted.ok()) {
    return Status(deleted.code(), "saved " + prefix +
                                      ", but deleting an evicted checkpoint "
                                      "failed: " +
                                      std::string(deleted.message()));
  }
  return prefix;
}

Status Saver::Restore(const std::string& prefix) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
                          BundleReader::Open(prefix, rep_->options.env));
  // Every check before the first write: a mismatch changes nothing.
  for (const auto& [name, tensor] : rep_->tensors) {
    Result<const BundleEntry*> entry = reader->Lookup(name);
    if (!entry.ok()) {
      return NotFoundError("Key " + name + " not found in checkpoint " +
                           prefix);
    }
    if (rep_->saveables.count(name) > 0) continue;  // any dtype and shape
    if ((*entry)->dtype != tensor->dtype()) {
      return InvalidArgumentError(
          "Restoring " + name + " from " + prefix + ": the checkpoint has " +
          std::string(DTypeName((*entry)->dtype)) + ", the tensor " +
          std::string(DTypeName(tensor->dtype())));
    }
    if ((*entry)->shape != tensor->shape()) {
      return InvalidArgumentError(
          "Restoring " + name + " from " + prefix + ": the checkpoint has " +
          "shape " + (*entry)->shape.DebugString() + ", the tensor " +
          tensor->shape().DebugString());
    }
    if (tensor->read_only()) {
      return FailedPreconditionError("Restoring " + name + " from " + prefix +
                                     ": the tensor is read-only");
    }
  }
  // Every value is read and its CRC checked before the first write (as
  // TF's RestoreV2 reads all before any assign): damage or an I/O error
  // anywhere leaves every tensor as it was. The values are held meanwhile,
  // so a restore needs memory for the checkpoint's registered tensors.
  std::vector<Tensor> values;
  values.reserve(rep_->tensors.size());
  for (const auto& [name, tensor] : rep_->tensors) {
    Result<Tensor> value = reader->Read(name);
    if (!value.ok()) {
      return value.status().WithContext("restoring " + name + " from " +
                                        prefix + " (nothing was restored)");
    }
    values.push_back(*std::move(value));
  }
  // The saveables first: an error of theirs leaves the tensors as they were.
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string& name = rep_->tensors[i].first;
    auto it = rep_->saveables.find(name);
    if (it == rep_->saveables.end()) continue;
    Status s = it->second.restore(values[i]);
    if (!s.ok()) {
      return s.WithContext("restoring " + name + " from " + prefix +
                           " (no tensor was restored)");
    }
  }
  // Nothing below fails: every destination was checked writable above.
  for (size_t i = 0; i < values.size(); ++i) {
    if (rep_->saveables.count(rep_->tensors[i].first) > 0) continue;
    Tensor* tensor = rep_->tensors[i].second;
    if (tensor->dtype() == DType::kString) {
      std::span<std::string> to = *tensor->mutable_flat<std::string>();
      std::span<std::string> from = *values[i].mutable_flat<std::string>();
      for (size_t k = 0; k < to.size(); ++k) to[k].swap(from[k]);
    } else if (tensor->num_bytes() > 0) {
      std::memcpy(*tensor->mutable_raw_data(), values[i].raw_data(),
                  tensor->num_bytes());
    }
  }
  return OkStatus();
}

const std::vector<std::pair<std::string, double>>& Saver::last_checkpoints()
    const {
  return rep_->last_checkpoints;
}

Status Saver::RecoverLastCheckpoints(const std::vector<std::string>& prefixes) {
  std::vector<std::pair<std::string, double>> recovered;
  for (const std::string& prefix : prefixes) {
    INFLOW_ASSIGN_OR_RETURN(std::optional<double> mtime,
                            internal::CheckpointMtime(rep_->env(), prefix));
    if (mtime) recovered.emplace_back(prefix, *mtime);
  }
  SetLastCheckpointsWithTime(std::move(recovered));
  return OkStatus();
}

void Saver::SetLastCheckpointsWithTime(
    std::vector<std::pair<std::string, double>> checkpoints) {
  rep_->last_checkpoints = std::move(checkpoints);
}

}  // namespace inflow
