// Copyright 2026 The inflow Authors.
//
// RecordIndex: where each record of a plain TFRecord file starts, so that
// record i can be read with one pread (io/indexed_record_file.h) instead of
// a scan from the start. Saved beside the file as FILE.index
// (docs/formats.md "Record index"), with the file's size and modification
// time it was built against; an index whose file has changed since is
// stale and is rebuilt.
//
//   inflow records index train-*.tfrecord      # writes each FILE.index
//   INFLOW_ASSIGN_OR_RETURN(RecordIndex index,
//                           LoadRecordIndex(env, "train-0.tfrecord"));
//   index.offset(7);  // the byte offset of record 7's framing
//
// Only plain (uncompressed) files: an offset into a GZIP or ZLIB stream
// counts decompressed bytes, and reaching it means inflating everything
// before it, which is what an index is meant to avoid. Building the index
// of a compressed file is FAILED_PRECONDITION.
//
// Errors name the file. A record file that is damaged fails the build with
// the reader's DATA_LOSS (io/record_reader.h: file and offset). An index
// file that is damaged (bad magic, checksum, sizes or offsets) is DATA_LOSS
// "corrupt record index FILE.index: ..."; one of a later format version is
// FAILED_PRECONDITION. Neither is rebuilt silently: `inflow records index`
// (or WriteRecordIndex) replaces it.

#ifndef INFLOW_IO_RECORD_INDEX_H_
#define INFLOW_IO_RECORD_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/io/env.h"

namespace inflow {

// The name of `path`'s index: path + ".index".
std::string RecordIndexPath(std::string_view path);

// The offsets of one file's records. A value: copyable, and thread-safe
// for concurrent const use.
class RecordIndex {
 public:
  // The format version Serialize() writes and Parse() reads.
  static constexpr uint32_t kVersion = 1;

  // An index of no records, of an empty file.
  RecordIndex() = default;

  // Reads every record of `path` (each CRC checked) and records where each
  // starts. FAILED_PRECONDITION for a compressed file or an index file;
  // DATA_LOSS for a damaged record; ABORTED when the file changed (size or
  // modification time) while it was read.
  static Result<RecordIndex> Build(Env& env, const std::string& path);

  // The bytes of an index file (`name` for messages): DATA_LOSS "corrupt
  // record index NAME: ..." for anything inconsistent, FAILED_PRECONDITION
  // for a version other than kVersion. An index that parses is consistent
  // with itself (offsets increasing, each record at least 16 bytes, the
  // last one ending at file_size()); whether it fits the file is
  // IsFreshFor's business.
  static Result<RecordIndex> Parse(std::string_view bytes,
                                   const std::string& name);
  // The index file's bytes.
  std::string Serialize() const;

  // Number of records.
  int64_t size() const { return static_cast<int64_t>(offsets_.size()); }
  // Record i's framing starts at offset(i); its payload is length(i) bytes.
  // Precondition: 0 <= i < size().
  uint64_t offset(int64_t i) const { return offsets_[i]; }
  uint64_t length(int64_t i) const;
  // The bytes records [first, first + n) take, framing included.
  // Precondition: 0 <= first, n >= 0, first + n <= size().
  uint64_t FramedBytes(int64_t first, int64_t n) const;

  // The file's size and modification time (nanoseconds since the epoch,
  // rounded from Env::GetModificationTime) when the index was built.
  uint64_t file_size() const { return file_size_; }
  int64_t file_mtime_ns() const { return file_mtime_ns_; }

  // OK when `path` has the size and modification time the index was built
  // against; FAILED_PRECONDITION "stale record index ..." saying what
  // differs otherwise (or the error reading them).
  [[nodiscard]] Status IsFreshFor(Env& env, const std::string& path) const;

  friend bool operator==(const RecordIndex&, const RecordIndex&) = default;

 private:
  std::vector<uint64_t> offsets_;
  uint64_t file_size_ = 0;
  int64_t file_mtime_ns_ = 0;
};

// What LoadRecordIndex does with FILE.index.
enum class RecordIndexMode {
  // Never looks at it: builds the index in memory.
  kInMemory,
  // Uses it when fresh; builds in memory when it is missing or stale.
  kRead,
  // As kRead, and writes what it built to FILE.index.
  kReadWrite,
  // Uses it; NOT_FOUND when it is missing, FAILED_PRECONDITION when stale.
  // For callers that must not scan files.
  kRequire,
};

// The index of `path` per `mode`. A corrupt FILE.index is an error in
// every mode but kInMemory (see the top of this file).
Result<RecordIndex> LoadRecordIndex(
    Env& env, const std::string& path,
    RecordIndexMode mode = RecordIndexMode::kRead);

// Builds the index of `path` and publishes it as FILE.index (written to a
// temporary beside it, synced, renamed over it), replacing whatever was
// there, corrupt or not.
Result<RecordIndex> WriteRecordIndex(Env& env, const std::string& path);

}  // namespace inflow

#endif  // INFLOW_IO_RECORD_INDEX_H_
