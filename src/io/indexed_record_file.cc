// Copyright 2026 The inflow Authors.

#include "inflow/io/indexed_record_file.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inflow/io/crc32c.h"

#include "io/record_format.h"

namespace inflow {

using internal::kRecordFooterSize;
using internal::kRecordHeaderSize;

Result<std::unique_ptr<IndexedRecordFile>> IndexedRecordFile::Open(
    Env& env, const std::string& path, RecordIndexMode mode) {
  INFLOW_ASSIGN_OR_RETURN(RecordIndex index, LoadRecordIndex(env, path, mode));
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env.NewRandomAccessFile(path));
  return std::unique_ptr<IndexedRecordFile>(
      new IndexedRecordFile(std::move(file), std::move(index)));
}

Result<std::unique_ptr<IndexedRecordFile>> IndexedRecordFile::Open(
    Env& env, const std::string& path, RecordIndex index) {
  INFLOW_RETURN_IF_ERROR(index.IsFreshFor(env, path));
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env.NewRandomAccessFile(path));
  return std::unique_ptr<IndexedRecordFile>(
      new IndexedRecordFile(std::move(file), std::move(index)));
}

Result<std::string> IndexedRecordFile::Read(int64_t i) const {
  if (i < 0 || i >= size()) {
    return OutOfRangeError("record " + std::to_string(i) + " of " + filename() +
                           ", which has " + std::to_string(size()));
  }
  std::string framed(index_.FramedBytes(i, 1), '\0');
  std::vector<std::string_view> records;
  INFLOW_RETURN_IF_ERROR(ReadRange(i, 1, framed.data(), &records));
  return std::string(records[0]);
}

Status IndexedRecordFile::ReadRange(
    int64_t first, int64_t n, char* scratch,
    std::vector<std::string_view>* records) const {
  if (first < 0 || n < 0 || first > size() - n) {
    return OutOfRangeError("records [" + std::to_string(first) + ", " +
                           std::to_string(first + n) + ") of " + filename() +
                           ", which has " + std::to_string(size()));
  }
  if (n == 0) return OkStatus();
  const uint64_t start = index_.offset(first);
  const uint64_t want = index_.FramedBytes(first, n);
  INFLOW_ASSIGN_OR_RETURN(size_t got, ReadFully(*file_, start, want, scratch));
  const size_t before = records->size();
  auto fail = [&](std::string_view what, uint64_t offset) {
    records->resize(before);
    return DataLossError(std::string(what) + " at offset " +
                         std::to_string(offset) + " in " + filename());
  };
  for (int64_t i = first; i < first + n; ++i) {
    const uint64_t offset = index_.offset(i);
    const uint64_t length = index_.length(i);
    const size_t at = offset - start;
    // The file may have been cut since it was indexed.
    const size_t available = got > at ? got - at : 0;
    if (available < kRecordHeaderSize) {
      return fail(available == 0 ? "truncated record"
                                 : "truncated record (partial header)",
                  offset);
    }
    const char* p = scratch + at;
    const std::optional<uint64_t> stored = internal::DecodeRecordHeader(p);
    if (!stored) return fail("corrupted record (length checksum)", offset);
    if (*stored != length) {
      records->resize(before);
      return DataLossError(
          "record at offset " + std::to_string(offset) + " in " + filename() +
          " is " + std::to_string(*stored) + " bytes long, its index says " +
          std::to_string(length) + ": the file changed since it was indexed");
    }
    if (available < kRecordHeaderSize + length + kRecordFooterSize) {
      return fail("truncated record", offset);
    }
    const std::string_view data(p + kRecordHeaderSize, length);
    if (crc32c::Unmask(internal::DecodeFixed32(data.data() + length)) !=
        crc32c::Value(data)) {
      return fail("corrupted record (data checksum)", offset);
    }
    records->push_back(data);
  }
  return OkStatus();
}

}  // namespace inflow
