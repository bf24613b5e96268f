// Copyright 2026 The inflow Authors.
//
// MergeBundles: the inputs' data files become the merged bundle's shards
// by rename; only the index is rewritten. Every input index is read and
// every name checked before anything is renamed, so an error leaves the
// inputs as they were.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "inflow/checkpoint/bundle.h"

#include "checkpoint/bundle_index.h"
#include "io/atomic_publish.h"
#include "io/path.h"

namespace inflow {

Status MergeBundles(Env& env, std::span<const std::string> prefixes,
                    const std::string& merged_prefix) {
  std::vector<internal::BundleIndex> inputs;
  std::map<std::string, internal::StoredEntry> merged;
  std::map<std::string, std::string> owner;  // name -> input prefix
  int64_t total_shards = 0;
  for (const std::string& prefix : prefixes) {
    INFLOW_ASSIGN_OR_RETURN(internal::BundleIndex index,
                            internal::ReadBundleIndex(env, prefix));
    for (int shard = 0; shard < index.header.num_shards; ++shard) {
      const std::string path =
          BundleDataFilename(prefix, shard, index.header.num_shards);
      Status s = env.FileExists(path);
      if (!s.ok()) return s.WithContext("merging bundle " + prefix);
    }
    for (const internal::StoredEntry& stored : index.entries) {
      auto [it, inserted] = owner.try_emplace(stored.entry.name, prefix);
      if (!inserted) {
        return InvalidArgumentError(
            "Duplicate tensor keyed by " + stored.entry.name +
            " encountered, when merging prefix: " + prefix + " (also in " +
            it->second + ")");
      }
      internal::StoredEntry& out = merged[stored.entry.name];
      out = stored;
      out.entry.shard_id += static_cast<int32_t>(total_shards);
    }
    total_shards += index.header.num_shards;
    if (total_shards > (int64_t{1} << 30)) {
      return InvalidArgumentError("merging more than 2^30 shards");
    }
    inputs.push_back(std::move(index));
  }
  if (inputs.empty()) {
    return InvalidArgumentError("MergeBundles needs at least one input");
  }
  const int32_t n = static_cast<int32_t>(total_shards);
  const std::string merged_index = BundleIndexFilename(merged_prefix);
  INFLOW_RETURN_IF_ERROR(internal::CreateParentDir(env, merged_index));
  // The index first (under a temporary name): a failure to write it leaves
  // the inputs untouched.
  const std::string tmp = internal::TempFilename(merged_index);
  Status s = internal::WriteBundleIndex(env, tmp, internal::MakeBundleHeader(n),
                                        merged, /*sync=*/true);
  if (!s.ok()) {
    env.DeleteFile(tmp).IgnoreError();
    return s.WithContext("writing merged bundle index " + merged_index);
  }
  const std::string sync_dir = internal::DirectoryOf(merged_index);
  // As BundleWriter: an index being replaced goes first, so that a crash
  // never pairs it with the new data files.
  if (env.FileExists(merged_index).ok()) {
    s = env.DeleteFile(merged_index);
    if (s.ok()) s = env.SyncDir(sync_dir);
    if (!s.ok()) {
      env.DeleteFile(tmp).IgnoreError();
      return s.WithContext("replacing bundle index " + merged_index);
    }
  }
  int32_t next = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int32_t shards = inputs[i].header.num_shards;
    for (int32_t shard = 0; shard < shards; ++shard, ++next) {
      const std::string from = BundleDataFilename(prefixes[i], shard, shards);
      const std::string to = BundleDataFilename(merged_prefix, next, n);
      if (from == to) continue;
      s = env.RenameFile(from, to);
      if (!s.ok()) {
        env.DeleteFile(tmp).IgnoreError();
        return s.WithContext("merging bundle " + prefixes[i]);
      }
    }
  }
  INFLOW_RETURN_IF_ERROR(env.SyncDir(sync_dir));
  INFLOW_RETURN_IF_ERROR(env.RenameFile(tmp, merged_index));
  INFLOW_RETURN_IF_ERROR(env.SyncDir(sync_dir));
  std::set<std::string> input_dirs;
  for (const internal::BundleIndex& input : inputs) {
    if (input.path == merged_index) continue;
    INFLOW_RETURN_IF_ERROR(env.DeleteFile(input.path));
    input_dirs.insert(internal::DirectoryOf(input.path));
  }
  for (const std::string& dir : input_dirs) {
    INFLOW_RETURN_IF_ERROR(env.SyncDir(dir));
  }
  return OkStatus();
}

}  // namespace inflow
