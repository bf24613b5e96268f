// Copyright 2026 The inflow Authors.

#include "checkpoint/bundle_index.h"

#include <limits>
#include <memory>
#include <utility>

#include "checkpoint/table.h"
#include "io/atomic_publish.h"
#include "io/path.h"

namespace inflow::internal {
namespace {

Status Damaged(const std::string& file, std::string_view what) {
  return DataLossError("bundle index " + file + ": " + std::string(what));
}

Status CheckEntry(const BundleIndex& index, const StoredEntry& stored) {
  const BundleEntry& e = stored.entry;
  if (e.partitioned) return OkStatus();  // fields 3-6 are not used
  const std::string where = "tensor '" + e.name + "'";
  if (e.shard_id < 0 || e.shard_id >= index.header.num_shards) {
    return Damaged(index.path, where + " has shard_id " +
                                   std::to_string(e.shard_id) + " of " +
                                   std::to_string(index.header.num_shards));
  }
  if (e.offset < 0 || e.size < 0 ||
      e.size > std::numeric_limits<int64_t>::max() - e.offset) {
    return Damaged(index.path, where + " has offset " +
                                   std::to_string(e.offset) + " and size " +
                                   std::to_string(e.size));
  }
  return OkStatus();
}

}  // namespace

BundleHeader MakeBundleHeader(int32_t num_shards) {
  BundleHeader header;
  header.num_shards = num_shards;
  header.endianness = kBundleLittleEndian;
  header.producer = kBundleVersion;
  return header;
}

Result<BundleIndex> ReadBundleIndex(Env& env, const std::string& prefix) {
  BundleIndex index;
  index.path = BundleIndexFilename(prefix);
  Result<uint64_t> size = env.GetFileSize(index.path);
  if (!size.ok()) {
    return size.status().WithContext("opening bundle index " + index.path);
  }
  Result<std::unique_ptr<RandomAccessFile>> file =
      env.NewRandomAccessFile(index.path);
  if (!file.ok()) {
    return file.status().WithContext("opening bundle index " + index.path);
  }
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<Table> table,
                          Table::Open(std::move(file).value(), *size));
  std::unique_ptr<TableIterator> it = table->NewIterator();
  it->SeekToFirst();
  if (!it->Valid()) {
    INFLOW_RETURN_IF_ERROR(it->status());
    return Damaged(index.path, "no header entry (the table is empty)");
  }
  if (!it->key().empty()) {
    return Damaged(index.path, "no header entry (first key is not \"\")");
  }
  Status s = DecodeBundleHeader(it->value(), &index.header);
  if (!s.ok()) return s.WithContext("bundle index " + index.path);
  if (index.header.endianness == kBundleBigEndian) {
    return UnimplementedError("bundle index " + index.path +
                              ": big-endian bundles are not supported");
  }
  if (index.header.endianness != kBundleLittleEndian) {
    return Damaged(index.path, "unknown endianness " +
                                   std::to_string(index.header.endianness));
  }
  s = CheckBundleVersion(index.header);
  if (!s.ok()) return s.WithContext("bundle index " + index.path);
  if (index.header.num_shards < 1) {
    return Damaged(index.path,
                   "num_shards is " + std::to_string(index.header.num_shards));
  }
  for (it->Next(); it->Valid(); it->Next()) {
    StoredEntry stored;
    stored.entry.name = std::string(it->key());
    s = DecodeBundleEntry(it->value(), &stored);
    if (!s.ok()) {
      return s.WithContext("bundle index " + index.path + ", tensor '" +
                           stored.entry.name + "'");
    }
    INFLOW_RETURN_IF_ERROR(CheckEntry(index, stored));
    index.entries.push_back(std::move(stored));
  }
  INFLOW_RETURN_IF_ERROR(it->status());
  return index;
}

Status WriteBundleIndex(Env& env, const std::string& path,
                        const BundleHeader& header,
                        const std::map<std::string, StoredEntry>& entries,
                        bool sync) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                          env.NewWritableFile(path));
  TableBuilder builder(TableOptions(), file.get());
  INFLOW_RETURN_IF_ERROR(builder.Add("", EncodeBundleHeader(header)));
  for (const auto& [name, stored] : entries) {
    INFLOW_RETURN_IF_ERROR(builder.Add(name, EncodeBundleEntry(stored)));
  }
  INFLOW_RETURN_IF_ERROR(builder.Finish());
  if (sync) INFLOW_RETURN_IF_ERROR(file->Sync());
  return file->Close();
}

std::string TempFilename(const std::string& path) {
  return path + ".tempstate" + RandomHex(16);
}

Status CreateParentDir(Env& env, const std::string& path) {
  const std::string dir = Dirname(path);
  if (dir.empty()) return OkStatus();
  return RecursivelyCreateDir(env, dir);
}

}  // namespace inflow::internal
