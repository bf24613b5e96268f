// Copyright 2026 The inflow Authors.
//
// The files of one checkpoint prefix, as TF's checkpoint_management finds
// and removes them.

#ifndef INFLOW_CHECKPOINT_SAVER_FILES_H_
#define INFLOW_CHECKPOINT_SAVER_FILES_H_

#include <optional>
#include <string>
#include <string_view>

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

// The modification time of P.index, or of P itself (a V1 checkpoint);
// std::nullopt when neither exists.
[[nodiscard]] Result<std::optional<double>> CheckpointMtime(
    Env& env, const std::string& prefix);

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_SAVER_FILES_H_
