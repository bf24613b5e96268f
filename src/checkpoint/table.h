// Copyright 2026 The inflow Authors.
//
// Table: LevelDB's sorted string table format, which a checkpoint's
// `.index` file uses (docs/formats.md, "The .index file"). Keys are byte
// strings in strictly increasing unsigned order; values are byte strings.
//
//   [data block]...[metaindex block][index block][48-byte footer]
//
// Every block is followed by a 5-byte trailer (compression type, masked
// CRC32C over the block and the type byte). Blocks are written
// uncompressed; the reader also accepts Snappy-compressed blocks.
//
// Internal to the checkpoint component.

#ifndef INFLOW_CHECKPOINT_TABLE_H_
#define INFLOW_CHECKPOINT_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"

namespace inflow::internal {

struct TableOptions {
  // A data block is closed once its estimated size reaches this (TF's
  // bundle writer uses 256 KiB).
  size_t block_size = 262144;
  // Entries between restart points in data blocks (the index block always
  // uses 1).
  int restart_interval = 16;
  // Compress blocks with Snappy when that makes them at least 1/8 smaller
  // (as LevelDB). Bundles are written uncompressed; tests use this to make
  // tables like the ones TensorFlow's estimator wrote.
  bool snappy = false;
};

// Writes a table to `file`, which the caller owns, opened, and later syncs
// and closes. Not thread-safe.
class TableBuilder {
 public:
  TableBuilder(TableOptions options, WritableFile* file);
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // `key` must sort after every key added before (INVALID_ARGUMENT
  // otherwise, naming both keys). An error from the file is returned here
  // and by every later call.
  [[nodiscard]] Status Add(std::string_view key, std::string_view value);
  // Writes the last data block, the metaindex and index blocks and the
  // footer. Add() after Finish() is FAILED_PRECONDITION.
  [[nodiscard]] Status Finish();

  uint64_t num_entries() const;
  // Bytes written so far (the file's size after Finish()).
  uint64_t file_size() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// Iterates a table's entries in key order. key() and value() stay valid
// until the next call that moves the iterator. Errors (a damaged block)
// end the iteration: Valid() becomes false and status() says why.
class TableIterator {
 public:
  virtual ~TableIterator() = default;
  virtual void SeekToFirst() = 0;
  // Moves to the first entry whose key is >= `target`.
  virtual void Seek(std::string_view target) = 0;
  virtual void Next() = 0;
  virtual bool Valid() const = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;
};

struct TableRep;  // table_reader.cc

// An open table. Thread-safe: iterators may be used from several threads
// (each iterator by one thread at a time).
class Table {
 public:
  // Reads and checks the footer and the index block. Every handle is
  // checked against `file_size`; damage is DATA_LOSS naming the file and
  // the byte offset (the messages of docs/formats.md: "file is too short
  // to be an sstable", "not an sstable (bad magic number)", "bad block
  // handle", "truncated block read", "block checksum mismatch", "bad
  // block type", "bad block contents").
  [[nodiscard]] static Result<std::unique_ptr<Table>> Open(
      std::unique_ptr<RandomAccessFile> file, uint64_t file_size);
  ~Table();

  std::unique_ptr<TableIterator> NewIterator() const;

  // The file name, for messages.
  const std::string& name() const;

 private:
  explicit Table(std::shared_ptr<const TableRep> rep);
  // Shared with the iterators, which may outlive the Table.
  std::shared_ptr<const TableRep> rep_;
};

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_TABLE_H_
