// Copyright 2026 The inflow Authors.
//
// The files of one checkpoint prefix, as TF's checkpoint_management finds
// and removes them.

#ifndef INFLOW_CHECKPOINT_SAVER_FILES_H_
#define INFLOW_CHECKPOINT_SAVER_FILES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"

namespace inflow {
namespace internal {

// "P.meta", with a trailing shard suffix "-<digits or ?>-of-<digits>" of P
// removed first ("m-1-?????-of-00002" -> "m-1.meta"), as TF's
// meta_graph_filename.
std::string MetaGraphFilename(std::string_view prefix);

// Deletes P.meta, P.index and every P.data-?????-of-????? (in that order,
// so the index goes before the data it names). Files already gone are
// fine; the first other error is returned after trying every file.
[[nodiscard]] Status DeleteCheckpointFiles(Env& env, const std::string& prefix);

// The marker a Saver writes before evicting checkpoint P ("P.evicting"):
// while it exists and P is unlisted, P's files are garbage.
std::string EvictionMarkerFilename(std::string_view prefix);

// What RemoveSaverLeftovers deletes in the directory of `base` (a save_path
// without its step), each file only if older than `grace_seconds` by `now`
// (except checkpoints named by an eviction marker):
//   - the temporaries of a killed save: BASE[-STEP].index.tempstate<16 hex>,
//     BASE[-STEP].data-NNNNN-of-NNNNN.tempstate<16 hex>, and
//     LATEST.tmp<32 hex> (LATEST: the state file's name);
//   - BASE[-STEP].data-* with no BASE[-STEP].index (unreadable: a killed
//     publish or deletion), unless `listed`;
//   - for each marker BASE[-STEP].evicting: the checkpoint's files, unless
//     `listed` names it, then the marker.
// `listed`: the file names (no directory) of the prefixes the state file
// and the Saver list. Returns how many temporaries, data files, markers
// and evicted checkpoints it deleted; deletion errors are ignored (those
// files stay as they were).
int RemoveSaverLeftovers(Env& env, const std::string& base,
                         const std::string& latest_filename,
                         const std::vector<std::string>& listed, double now,
                         double grace_seconds);

// The modification time of P.index, or of P itself (a V1 checkpoint);
// std::nullopt when neither exists.
[[nodiscard]] Result<std::optional<double>> CheckpointMtime(
    Env& env, const std::string& prefix);

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_SAVER_FILES_H_
