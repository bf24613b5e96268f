// Copyright 2026 The inflow Authors.
//
// Fuzz target: arbitrary bytes as a table file. Anything may be rejected
// (DATA_LOSS); nothing may crash or read out of bounds. A table that reads
// must be consistent: its keys strictly increase (so TableBuilder takes
// them back), Seek finds every key, and the table written from the entries
// reads back the same.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checkpoint/table.h"
#include "inflow/io/mem_env.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  inflow::MemEnv env;
  auto table = Open(env, "/fuzz.index", bytes);
  if (!table.ok()) {
    if (!inflow::IsDataLoss(table.status())) std::abort();
    return 0;
  }
  Entries entries;
  if (!ReadAll(**table, &entries)) return 0;

  std::unique_ptr<TableIterator> it = (*table)->NewIterator();
  for (const auto& [key, value] : entries) {
    it->Seek(key);
    if (!it->status().ok()) return 0;  // a block read again, damaged
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
  return 0;
}
