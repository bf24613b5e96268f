// Copyright 2026 The inflow Authors.
//
// Saver: TF1's tf.compat.v1.train.Saver for named tensors. It saves the
// registered tensors as a V2 checkpoint `save_path-STEP`, records it in
// the directory's `checkpoint` state file, keeps the newest max_to_keep,
// and restores into the registered tensors in place (docs/formats.md,
// "Saver: naming and retention").
//
//   Saver saver;
//   INFLOW_RETURN_IF_ERROR(saver.Register("dense/kernel", &kernel));
//   INFLOW_RETURN_IF_ERROR(saver.Register("global_step", &global_step));
//   INFLOW_ASSIGN_OR_RETURN(std::optional<std::string> latest,
//                           LatestCheckpoint(dir));
//   if (latest) INFLOW_RETURN_IF_ERROR(saver.Restore(*latest));
//   ...
//   INFLOW_ASSIGN_OR_RETURN(std::string prefix,
//                           saver.Save(dir + "/model.ckpt", step));
//
// Crash safety: a Save writes its files under temporary names, syncs them,
// renames them into place, syncs the directory, and replaces the state
// file last, atomically. A Save that fails part way removes its
// temporaries and leaves the previous checkpoint and state file as they
// were; a crash at any moment leaves LatestCheckpoint() naming a complete
// checkpoint. One exception: re-saving a prefix that already exists (a
// save_path without a step, saved again) first deletes its old index
// (BundleWriter's overwrite), so a crash before the new one is in place
// leaves no checkpoint under that prefix: LatestCheckpoint() returns
// std::nullopt if it was the newest (never mismatched data; TF's Saver
// can pair the old index with new data there). Saves to new prefixes (one
// per step) have no such window.
//
// Not thread-safe: one thread saves and restores (as a training loop
// does); the registered tensors must not be written during Save/Restore.

#ifndef INFLOW_CHECKPOINT_SAVER_H_
#define INFLOW_CHECKPOINT_SAVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace inflow {

// A value the Saver asks for at each Save and hands back at Restore, saved
// under its name beside the registered tensors: for instance a
// data::Iterator's position as a string scalar,
//   saver.RegisterSaveable("input/iterator", {
//       .save = [&]() -> Result<Tensor> {
//         INFLOW_ASSIGN_OR_RETURN(std::string s, it.Save());
//         return Tensor::Scalar(std::move(s));
//       },
//       .restore = [&](const Tensor& t) {
//         return it.Restore(t.flat<std::string>()[0]);
//       }});
struct Saveable {
  std::function<Result<Tensor>()> save;
  std::function<Status(const Tensor&)> restore;
};

struct SaverOptions {
  Env* env = &Env::Default();
  // Checkpoints listed and kept; 0 keeps all and lists only the newest.
  int max_to_keep = 5;
  // A checkpoint evicted from the list is kept on disk (but no longer
  // listed) once per this many hours.
  double keep_checkpoint_every_n_hours = 10000.0;
  // "model.ckpt-00001000" instead of "model.ckpt-1000".
  bool pad_step_number = false;
  bool save_relative_paths = false;
  // Without it, Save() with nothing registered is INVALID_ARGUMENT ("No
  // variables to save"); with it, Save() writes nothing and returns "".
  bool allow_empty = false;
  std::string latest_filename = "checkpoint";
  // Sync files and directories (off only in benchmarks that say so).
  bool sync = true;
  // The first Save() to each save_path removes what killed saves of that
  // save_path left in its directory (temporaries, unreadable data files,
  // checkpoints they were evicting: docs/conformance.md, "Leftovers of
  // killed saves"); temporaries and data files only when not modified for
  // leftover_grace_seconds, so that a concurrent writer's are never
  // touched.
  bool remove_leftovers = true;
  double leftover_grace_seconds = 3600.0;
  // Seconds since the epoch; tests replace it.
  std::function<double()> now = nullptr;
};

class Saver {
 public:
  explicit Saver(SaverOptions options = {});
  ~Saver();
  Saver(const Saver&) = delete;
  Saver& operator=(const Saver&) = delete;

  // Registers `*tensor` under `name` (a non-empty byte string; a name
  // registered twice is INVALID_ARGUMENT). The tensor must stay alive and
  // initialized while the Saver uses it; Save() reads its current value,
  // Restore() writes into its buffer, which must be writable.
  [[nodiscard]] Status Register(std::string name, Tensor* tensor);
  // Registers `saveable` under `name` (the same rules as Register). Save
  // asks it for its value (an error fails the Save, naming it); Restore
  // hands it the checkpoint's value, of whatever dtype and shape, after
  // every value was read and checked and before any registered tensor is
  // written: an error of its restore leaves the tensors as they were.
  [[nodiscard]] Status RegisterSaveable(std::string name, Saveable saveable);

  // Writes the checkpoint `save_path` (no step) or `save_path-STEP`
  // (`-%08d` with pad_step_number) and returns its prefix. The tensors go
  // into the data file in name order (bytewise), as TF's Saver writes
  // them. With
  // `write_state`: records it in the retention list (re-saving a listed
  // prefix moves it to the end; beyond max_to_keep the oldest is evicted),
  // writes the state file listing the retained prefixes, then deletes at
  // most one evicted checkpoint (its .meta, .index and .data-* files),
  // unless keep_checkpoint_every_n_hours preserves it. A missing parent
  // directory is created. Errors: INVALID_ARGUMENT for nothing registered
  // without allow_empty ("No variables to save"), a latest_filename with a
  // path separator, or, without a step, a save_path whose file name is
  // latest_filename; the Env's error, naming the path, otherwise. A failed
  // Save leaves the state file, the retention list and the previous
  // checkpoints as they were, and deletes what it wrote unless the prefix
  // existed before. When the state file was renamed into place but
  // the directory sync failed, or only the deletion of an evicted
  // checkpoint failed, the new checkpoint is saved and listed, and the
  // error says so.
  [[nodiscard]] Result<std::string> Save(
      const std::string& save_path,
      std::optional<int64_t> global_step = std::nullopt,
      bool write_state = true);

  // Restores every registered tensor from `prefix` in place. A name absent
  // from the checkpoint is NOT_FOUND naming it; another dtype or shape is
  // INVALID_ARGUMENT naming it and both; a read-only tensor is
  // FAILED_PRECONDITION. All or nothing: every value is read and its CRC
  // checked before the first tensor is written, so any error (a mismatch,
  // DATA_LOSS for damage, an I/O error) leaves every tensor as it was. The
  // values read are held until then: a Restore needs memory for the
  // registered tensors once more (as TF's RestoreV2 before its assigns).
  [[nodiscard]] Status Restore(const std::string& prefix);

  // The retention list (prefix, seconds since the epoch), oldest first.
  const std::vector<std::pair<std::string, double>>& last_checkpoints() const;
  // TF's recover_last_checkpoints: replaces the retention list with the
  // `prefixes` whose .index (or, V1, the prefix itself) exists,
  // timestamped with that file's modification time; others are dropped.
  // An Env error other than NOT_FOUND is returned and changes nothing.
  [[nodiscard]] Status RecoverLastCheckpoints(
      const std::vector<std::string>& prefixes);
  // TF's set_last_checkpoints_with_time: replaces the retention list
  // (prefix, seconds since the epoch), oldest first. A timestamp of +inf
  // (TF's set_last_checkpoints) is evicted from the list later but its
  // files are kept.
  void SetLastCheckpointsWithTime(
      std::vector<std::pair<std::string, double>> checkpoints);

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_SAVER_H_
