// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a table file. Anything may be rejected
// (DATA_LOSS); nothing may crash or read out of bounds. A table that reads
// must be consistent: its keys strictly increase (so TableBuilder takes
// them back), Seek finds every key, and the table written from the entries
// reads back the same. Each input runs twice: as it is, and with the
// CRCs of the blocks its footer and index point at recomputed, so that
// mutations reach the block parser instead of stopping at a checksum.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/io/mem_env.h"

#include "checkpoint/block_reader.h"
#include "checkpoint/table.h"
#include "checkpoint/table_format.h"

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;
using inflow::internal::Table;
using inflow::internal::TableBuilder;
using inflow::internal::TableIterator;
using inflow::internal::TableOptions;

inflow::Result<std::unique_ptr<Table>> Open(inflow::MemEnv& env,
                                            const std::string& path,
                                            std::string_view bytes) {
  if (!inflow::WriteStringToFile(env, path, bytes).ok()) std::abort();
  return Table::Open(env.NewRandomAccessFile(path).value(), bytes.size());
}

// Every entry, or nothing when the iterator failed with DATA_LOSS.
bool ReadAll(const Table& table, Entries* out) {
  std::unique_ptr<TableIterator> it = table.NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out->emplace_back(std::string(it->key()), std::string(it->value()));
  }
  if (it->status().ok()) return true;
  if (!inflow::IsDataLoss(it->status())) std::abort();
  return false;
}

namespace internal = inflow::internal;

// Rewrites the trailer of the block at `h` to match its bytes (keeping the
// type byte), if the block lies in `bytes`.
void FixTrailer(std::string* bytes, const internal::BlockHandle& h) {
  if (h.offset > bytes->size() || h.size > bytes->size() - h.offset ||
      bytes->size() - h.offset - h.size < internal::kBlockTrailerSize) {
    return;
  }
  const std::string_view contents =
      std::string_view(*bytes).substr(h.offset, h.size);
  const auto type =
      static_cast<internal::BlockCompression>((*bytes)[h.offset + h.size]);
  bytes->replace(h.offset + h.size, internal::kBlockTrailerSize,
                 internal::BlockTrailer(contents, type));
}

// `bytes` with the CRCs of the metaindex, index and data blocks fixed.
std::string WithFixedChecksums(std::string bytes) {
  if (bytes.size() < internal::kFooterSize) return bytes;
  auto footer = internal::DecodeFooter(
      std::string_view(bytes).substr(bytes.size() - internal::kFooterSize),
      "/f", bytes.size());
  if (!footer.ok()) return bytes;
  FixTrailer(&bytes, footer->metaindex);
  FixTrailer(&bytes, footer->index);
  inflow::MemEnv env;
  if (!inflow::WriteStringToFile(env, "/f", bytes).ok()) std::abort();
  auto file = env.NewRandomAccessFile("/f").value();
  auto contents = internal::ReadBlock(*file, footer->index, "index block");
  if (!contents.ok()) return bytes;
  auto block = internal::Block::Parse(*std::move(contents), "index", "/f");
  if (!block.ok()) return bytes;
  internal::BlockIterator it(*block);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view v = it.value();
    internal::BlockHandle h;
    if (h.DecodeFrom(&v)) FixTrailer(&bytes, h);
  }
  return bytes;
}

void Check(std::string_view bytes) {
  inflow::MemEnv env;
  auto table = Open(env, "/fuzz.index", bytes);
  if (!table.ok()) {
    if (!inflow::IsDataLoss(table.status())) std::abort();
    return;
  }
  Entries entries;
  if (!ReadAll(**table, &entries)) return;

  std::unique_ptr<TableIterator> it = (*table)->NewIterator();
  for (const auto& [key, value] : entries) {
    it->Seek(key);
    if (!it->status().ok()) std::abort();  // it read fine a moment ago
    if (!it->Valid() || it->key() != key || it->value() != value) {
      std::abort();
    }
  }

  auto file = env.NewWritableFile("/again.index").value();
  TableOptions options;
  options.block_size = 64;
  TableBuilder builder(options, file.get());
  for (const auto& [key, value] : entries) {
    if (!builder.Add(key, value).ok()) std::abort();
  }
  if (!builder.Finish().ok() || !file->Close().ok()) std::abort();
  auto again = Open(env, "/again.index", env.Contents("/again.index").value());
  Entries reread;
  if (!again.ok() || !ReadAll(**again, &reread) || reread != entries) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  Check(bytes);
  const std::string fixed = WithFixedChecksums(bytes);
  if (fixed != bytes) Check(fixed);
  return 0;
}
