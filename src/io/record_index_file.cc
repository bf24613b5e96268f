// Copyright 2026 The inflow Authors.
//
// FILE.index on disk: loaded when fresh, rebuilt when stale, published
// atomically.

#include <string>

#include "inflow/io/record_index.h"

#include "io/atomic_publish.h"

namespace inflow {

Result<RecordIndex> WriteRecordIndex(Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(RecordIndex index, RecordIndex::Build(env, path));
  const std::string index_path = RecordIndexPath(path);
  // Synced before the rename: a crash must not leave a short FILE.index,
  // which every later load would reject as corrupt.
  INFLOW_RETURN_IF_ERROR(internal::WriteFileAtomically(
      env, index_path, index_path + ".tmp" + internal::RandomHex(8),
      index.Serialize()));
  return index;
}

Result<RecordIndex> LoadRecordIndex(Env& env, const std::string& path,
                                    RecordIndexMode mode) {
  if (mode == RecordIndexMode::kInMemory) return RecordIndex::Build(env, path);
  const std::string index_path = RecordIndexPath(path);
  auto rebuild = [&]() -> Result<RecordIndex> {
    if (mode == RecordIndexMode::kReadWrite) {
      return WriteRecordIndex(env, path);
    }
    return RecordIndex::Build(env, path);
  };
  Result<std::string> bytes = ReadFileToString(env, index_path);
  if (!bytes.ok()) {
    if (!IsNotFound(bytes.status())) return bytes.status();
    if (mode == RecordIndexMode::kRequire) {
      return NotFoundError("no record index " + index_path + " for " + path +
                           ": write it with `inflow records index`");
    }
    return rebuild();
  }
  INFLOW_ASSIGN_OR_RETURN(RecordIndex index,
                          RecordIndex::Parse(*bytes, index_path));
  Status fresh = index.IsFreshFor(env, path);
  if (fresh.ok()) return index;
  if (mode == RecordIndexMode::kRequire || !IsFailedPrecondition(fresh)) {
    return fresh;
  }
  return rebuild();
}

}  // namespace inflow
