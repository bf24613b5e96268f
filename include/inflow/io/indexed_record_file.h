// Copyright 2026 The inflow Authors.
//
// IndexedRecordFile: a plain TFRecord file opened with its RecordIndex
// (io/record_index.h), read by record number. Each read is a positioned
// read (pread) of the records' framed bytes, with no cursor, so any number
// of threads may read one file at once.
//
//   INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<IndexedRecordFile> file,
//                           IndexedRecordFile::Open(env, "train-0.tfrecord"));
//   INFLOW_ASSIGN_OR_RETURN(std::string record, file->Read(41));
//
// Every read checks both CRCs of every record and that each length is the
// index's. Errors, at the record whose framing starts at offset o: DATA_LOSS
// "corrupted record (length checksum)" / "(data checksum) at offset o in
// FILE" (the wording of io/record_reader.h), "truncated record at offset o
// in FILE" when the file ends before it does, and "record at offset o in
// FILE is L bytes long, its index says M" when the file changed without
// its size or modification time changing. A record number outside
// [0, size()) is OUT_OF_RANGE.
//
// Thread-safe: every method is const.

#ifndef INFLOW_IO_INDEXED_RECORD_FILE_H_
#define INFLOW_IO_INDEXED_RECORD_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/io/env.h"
#include "inflow/io/record_index.h"

namespace inflow {

class IndexedRecordFile {
 public:
  // Opens `path` with the index LoadRecordIndex(env, path, mode) gives.
  static Result<std::unique_ptr<IndexedRecordFile>> Open(
      Env& env, const std::string& path,
      RecordIndexMode mode = RecordIndexMode::kRead);
  // Opens `path` with `index`: FAILED_PRECONDITION when it is stale for
  // the file (RecordIndex::IsFreshFor).
  static Result<std::unique_ptr<IndexedRecordFile>> Open(
      Env& env, const std::string& path, RecordIndex index);

  IndexedRecordFile(const IndexedRecordFile&) = delete;
  IndexedRecordFile& operator=(const IndexedRecordFile&) = delete;

  const std::string& filename() const { return file_->name(); }
  const RecordIndex& index() const { return index_; }
  // Number of records.
  int64_t size() const { return index_.size(); }

  // Record i.
  [[nodiscard]] Result<std::string> Read(int64_t i) const;
  // Records [first, first + n) with one read of their framed bytes
  // (index().FramedBytes(first, n)) into `scratch`, which must hold that
  // many; appends to `records` a view into `scratch` of each one's
  // payload. On error `records` is as it was.
  [[nodiscard]] Status ReadRange(int64_t first, int64_t n, char* scratch,
                                 std::vector<std::string_view>* records) const;

 private:
  IndexedRecordFile(std::unique_ptr<RandomAccessFile> file, RecordIndex index)
      : file_(std::move(file)), index_(std::move(index)) {}

  const std::unique_ptr<RandomAccessFile> file_;
  const RecordIndex index_;
};

}  // namespace inflow

#endif  // INFLOW_IO_INDEXED_RECORD_FILE_H_
