// Copyright 2026 The inflow Authors.
//
// RecordReader: reads TFRecord files (docs/formats.md "TFRecord"), plain or
// ZLIB/GZIP-compressed, verifying both CRCs of every record.
//
// End of input and errors, at a record starting at stream offset o:
//   - no bytes at all left: OUT_OF_RANGE (the clean end);
//   - 1..11 header bytes, or fewer payload + footer bytes than the header
//     promises (including none): DATA_LOSS "truncated record at offset o";
//   - a length or data CRC mismatch: DATA_LOSS "corrupted record at
//     offset o";
//   - corrupt compressed bytes: DATA_LOSS.
// Every DATA_LOSS message names the file and the offset. When the first
// record of a file read without compression fails and the file starts
// with gzip's magic (1f 8b) or a zlib header, the message adds "the file
// looks GZIP-compressed ...: open it with compression GZIP" (or ZLIB). A failed
// read does not advance: reading again fails the same way. Offsets are
// positions in the decompressed stream.
//
// Not thread-safe; use one reader per thread.

#ifndef INFLOW_IO_RECORD_READER_H_
#define INFLOW_IO_RECORD_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"

namespace inflow {

namespace internal {
class BufferedStream;
}  // namespace internal

struct RecordReaderOptions {
  CompressionType compression = CompressionType::kNone;
  // The read buffer (of decompressed bytes when compressed). Records that
  // fit in it are returned without a copy.
  size_t buffer_size = 256 << 10;
  // Input and output buffers for zlib; level and mem_level are unused.
  ZlibOptions zlib;
};

class RecordReader {
 public:
  static Result<std::unique_ptr<RecordReader>> Open(
      Env& env, const std::string& path,
      const RecordReaderOptions& options = {});
  // Reads from an open file (shared: it may also serve other readers).
  static std::unique_ptr<RecordReader> Create(
      std::shared_ptr<const RandomAccessFile> file,
      const RecordReaderOptions& options = {});
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record. The view stays valid until the next call on this
  // reader. OUT_OF_RANGE at the clean end of the file.
  [[nodiscard]] Result<std::string_view> Next();
  // The next record when it is whole and intact in the buffer already,
  // without reading: its view, like those of the NextInBuffer calls
  // before it, stays valid until a call that may read (Next, ReadRecord,
  // Seek) or the reader's end. nullopt otherwise (Next then reads, or
  // reports what is wrong), the reader unmoved.
  [[nodiscard]] std::optional<std::string_view> NextInBuffer();
  // Whether the next record is whole in the buffer, so that reading it
  // (NextInBuffer or Next) reads nothing more; it may still be corrupt
  // (its length too: then the answer only decides when the read that
  // reports it comes).
  bool HasWholeRecordBuffered() const;

  // TF's RecordReader::ReadRecord: reads the record at `*offset` into
  // `*record` and, on success, advances `*offset` past it. Sequential
  // offsets are cheap; others seek (a compressed file inflates again from
  // its start when the offset lies behind).
  [[nodiscard]] Status ReadRecord(uint64_t* offset, std::string* record);

  // The stream offset of the next record Next() reads.
  uint64_t offset() const;
  // Moves to the record at `offset`.
  [[nodiscard]] Status Seek(uint64_t offset);

  const std::string& filename() const { return file_->name(); }

 private:
  RecordReader(std::shared_ptr<const RandomAccessFile> file,
               const RecordReaderOptions& options);
  Status Corrupt(std::string_view what, uint64_t offset) const;
  // The next record when it is whole and intact in the buffer: consumes
  // it, sets *record and returns true; else false, nothing consumed.
  bool TakeBuffered(std::string_view* record);

  std::shared_ptr<const RandomAccessFile> file_;
  const RecordReaderOptions options_;
  std::unique_ptr<internal::BufferedStream> stream_;
  // Records too large for the buffer; grows only as bytes arrive, so a
  // corrupt length cannot make it allocate more than the file holds.
  std::unique_ptr<char[]> large_;
  size_t large_capacity_ = 0;
};

}  // namespace inflow

#endif  // INFLOW_IO_RECORD_READER_H_
