// Copyright 2026 The inflow Authors.
//
// A bundle's index file as a whole: the table of "" -> header and name ->
// entry, read and checked, or written. Shared by BundleWriter,
// BundleReader and MergeBundles. Also the temporary-file naming they use
// to publish files by rename (io/atomic_publish.h).
//
// Internal to the checkpoint component. Thread-compatible.

#ifndef INFLOW_CHECKPOINT_BUNDLE_INDEX_H_
#define INFLOW_CHECKPOINT_BUNDLE_INDEX_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"

#include "checkpoint/bundle_proto.h"

namespace inflow::internal {

struct BundleIndex {
  std::string path;  // P.index
  BundleHeader header;
  std::vector<StoredEntry> entries;  // in key order
};

// Reads P.index. NOT_FOUND when it is missing; DATA_LOSS naming the file
// (and the tensor) when the table is damaged, the header is missing or
// unparseable, num_shards < 1, an entry is unparseable, or an entry's
// shard_id, offset or size is out of range; INVALID_ARGUMENT for an
// incompatible version; UNIMPLEMENTED for big-endian bundles.
Result<BundleIndex> ReadBundleIndex(Env& env, const std::string& prefix);

// Writes `header` and `entries` (map key = tensor name) as a table to
// `path`, syncs it when `sync`, and closes it.
Status WriteBundleIndex(Env& env, const std::string& path,
                        const BundleHeader& header,
                        const std::map<std::string, StoredEntry>& entries,
                        bool sync);

// The header this library writes: `num_shards`, little-endian, version
// {producer: 1}.
BundleHeader MakeBundleHeader(int32_t num_shards);

// "<path>.tempstate<16 random hex digits>", as TF's bundle writer names
// its temporaries (the Saver's leftover cleanup knows the name:
// saver_files.h).
std::string TempFilename(const std::string& path);
// Creates the directory `path` lies in, and its parents, each made durable
// in its own parent; OK when it exists.
Status CreateParentDir(Env& env, const std::string& path);

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_BUNDLE_INDEX_H_
