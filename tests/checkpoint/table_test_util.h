// Copyright 2026 The inflow Authors.
//
// Helpers for the table tests: build a table in memory, open bytes as a
// table, read every entry.

#ifndef INFLOW_TESTS_CHECKPOINT_TABLE_TEST_UTIL_H_
#define INFLOW_TESTS_CHECKPOINT_TABLE_TEST_UTIL_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inflow/io/mem_env.h"

#include "checkpoint/block_reader.h"
#include "checkpoint/table.h"
#include "checkpoint/table_format.h"

namespace inflow::internal::testing {

using Entries = std::vector<std::pair<std::string, std::string>>;

// The bytes of a table holding `entries` (which must be sorted).
inline std::string BuildTable(const Entries& entries,
                              TableOptions options = {}) {
  MemEnv env;
  auto file = env.NewWritableFile("/build.index").value();
  TableBuilder builder(options, file.get());
  for (const auto& [key, value] : entries) {
    if (!builder.Add(key, value).ok()) return "";
  }
  if (!builder.Finish().ok() || !file->Close().ok()) return "";
  return env.Contents("/build.index").value();
}

// `bytes` as the table file `name`.
inline Result<std::unique_ptr<Table>> OpenTableBytes(
    std::string_view bytes, const std::string& name = "/t.index") {
  auto env = std::make_shared<MemEnv>();
  INFLOW_RETURN_IF_ERROR(WriteStringToFile(*env, name, bytes));
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env->NewRandomAccessFile(name));
  return Table::Open(std::move(file), bytes.size());
}

// Every entry in order, or the iterator's error.
inline Result<Entries> ReadAll(const Table& table) {
  std::unique_ptr<TableIterator> it = table.NewIterator();
  Entries out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(std::string(it->key()), std::string(it->value()));
  }
  INFLOW_RETURN_IF_ERROR(it->status());
  return out;
}

inline std::string FromHex(std::string_view hex) {
  std::string out;
  int nibbles = 0;
  int byte = 0;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else {
      continue;  // spaces and line breaks
    }
    byte = byte * 16 + v;
    if (++nibbles == 2) {
      out.push_back(static_cast<char>(byte));
      nibbles = 0;
      byte = 0;
    }
  }
  return out;
}

// The footer of the table `bytes` (which must have one).
inline Footer FooterOf(std::string_view bytes) {
  return DecodeFooter(bytes.substr(bytes.size() - kFooterSize), "/i",
                      bytes.size())
      .value();
}

inline std::shared_ptr<const Block> IndexBlockOf(const std::string& bytes) {
  MemEnv env;
  if (!WriteStringToFile(env, "/i", bytes).ok()) return nullptr;
  auto file = env.NewRandomAccessFile("/i").value();
  return Block::Parse(
             ReadBlock(*file, FooterOf(bytes).index, "index block").value(),
             "index block", "/i")
      .value();
}

// The index block's entries (key, data block handle).
inline std::vector<std::pair<std::string, BlockHandle>> IndexOf(
    const std::string& bytes) {
  std::vector<std::pair<std::string, BlockHandle>> out;
  BlockIterator it(IndexBlockOf(bytes));
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    std::string_view v = it.value();
    BlockHandle h;
    if (!h.DecodeFrom(&v)) return {};
    out.emplace_back(std::string(it.key()), h);
  }
  return out;
}

inline size_t IndexRestartCount(const std::string& bytes) {
  return IndexBlockOf(bytes)->restarts().size();
}

// The type byte of each data block.
inline std::vector<BlockCompression> DataBlockTypes(const std::string& bytes) {
  std::vector<BlockCompression> out;
  for (const auto& [key, h] : IndexOf(bytes)) {
    out.push_back(static_cast<BlockCompression>(bytes[h.offset + h.size]));
  }
  return out;
}

}  // namespace inflow::internal::testing

#endif  // INFLOW_TESTS_CHECKPOINT_TABLE_TEST_UTIL_H_
