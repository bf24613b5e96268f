// Copyright 2026 The inflow Authors.
//
// Internal: the record index file's constants (docs/formats.md "Record
// index"), shared by its writer, its parser and the check that refuses to
// index an index, and the file stamp an index is validated against.

#ifndef INFLOW_IO_RECORD_INDEX_FORMAT_H_
#define INFLOW_IO_RECORD_INDEX_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/io/env.h"

namespace inflow::internal {

// magic | u32le version | u32le reserved (0) | u64le file size |
// i64le file mtime (ns) | u64le count, then count u64le offsets and a
// u32le masked crc32c of every byte before it.
inline constexpr std::string_view kIndexMagic = "IFRECIDX";
inline constexpr size_t kIndexHeaderSize = 40;
inline constexpr size_t kIndexChecksumSize = 4;

// What an index is validated against.
struct FileStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;  // rounded from Env::GetModificationTime
};

Result<FileStamp> StampOf(Env& env, const std::string& path);

}  // namespace inflow::internal

#endif  // INFLOW_IO_RECORD_INDEX_FORMAT_H_
