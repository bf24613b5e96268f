// Copyright 2026 The inflow Authors.
//
// The index's bytes (docs/formats.md "Record index") and its build.

#include "inflow/io/record_index.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "inflow/io/compression.h"
#include "inflow/io/crc32c.h"
#include "inflow/io/record_reader.h"

#include "io/record_format.h"
#include "io/record_index_format.h"

namespace inflow {

using internal::DecodeFixed32;
using internal::DecodeFixed64;
using internal::EncodeFixed32;
using internal::EncodeFixed64;
using internal::kRecordFooterSize;
using internal::kRecordHeaderSize;

namespace internal {

Result<FileStamp> StampOf(Env& env, const std::string& path) {
  FileStamp stamp;
  INFLOW_ASSIGN_OR_RETURN(stamp.size, env.GetFileSize(path));
  INFLOW_ASSIGN_OR_RETURN(double mtime, env.GetModificationTime(path));
  stamp.mtime_ns = std::llround(mtime * 1e9);
  return stamp;
}

}  // namespace internal

namespace {

using internal::FileStamp;
using internal::kIndexChecksumSize;
using internal::kIndexHeaderSize;
using internal::kIndexMagic;

constexpr uint64_t kFramingSize = kRecordHeaderSize + kRecordFooterSize;

Status Corrupt(const std::string& name, std::string_view what) {
  return DataLossError("corrupt record index " + name + ": " +
                       std::string(what) +
                       "; delete it or rebuild it with `inflow records index`");
}

// FAILED_PRECONDITION unless `path` starts like a plain TFRecord file (or
// is empty): an index file or a compressed file cannot be indexed.
Status CheckIndexable(Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env.NewRandomAccessFile(path));
  char head[kRecordHeaderSize];
  INFLOW_ASSIGN_OR_RETURN(size_t got, ReadFully(*file, 0, sizeof(head), head));
  const std::string_view first(head, got);
  if (first.starts_with(kIndexMagic)) {
    return FailedPreconditionError(
        path +
        " is a record index, not a TFRecord file (a pattern such as "
        "train-* also matches the FILE.index files beside the data)");
  }
  // By the bytes only: a plain file named .gz is still plain.
  const CompressionType looks = DetectCompression("", first);
  if (looks != CompressionType::kNone) {
    return FailedPreconditionError(
        "cannot index " + path + ": it looks " +
        std::string(CompressionTypeName(looks)) +
        "-compressed, and a record index needs a plain TFRecord file "
        "(reaching an offset in a compressed stream means inflating "
        "everything before it); write it uncompressed");
  }
  return OkStatus();
}

}  // namespace

std::string RecordIndexPath(std::string_view path) {
  return std::string(path) + ".index";
}

uint64_t RecordIndex::length(int64_t i) const {
  const uint64_t end =
      i + 1 < size() ? offsets_[static_cast<size_t>(i + 1)] : file_size_;
  return end - offsets_[static_cast<size_t>(i)] - kFramingSize;
}

uint64_t RecordIndex::FramedBytes(int64_t first, int64_t n) const {
  if (n == 0) return 0;
  const int64_t last = first + n;
  const uint64_t end =
      last < size() ? offsets_[static_cast<size_t>(last)] : file_size_;
  return end - offsets_[static_cast<size_t>(first)];
}

Result<RecordIndex> RecordIndex::Build(Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(const FileStamp before, internal::StampOf(env, path));
  INFLOW_RETURN_IF_ERROR(CheckIndexable(env, path));
  RecordReaderOptions options;
  options.buffer_size = 1 << 20;
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                          RecordReader::Open(env, path, options));
  RecordIndex index;
  for (;;) {
    const uint64_t offset = reader->offset();
    Result<std::string_view> record = reader->Next();
    if (!record.ok()) {
      if (IsOutOfRange(record.status())) break;
      return record.status();
    }
    index.offsets_.push_back(offset);
  }
  // The stamp stored must be that of the bytes read: a file rewritten or
  // appended to during the scan would give an index of neither version.
  INFLOW_ASSIGN_OR_RETURN(const FileStamp after, internal::StampOf(env, path));
  if (after.size != before.size || after.mtime_ns != before.mtime_ns ||
      reader->offset() != before.size) {
    return AbortedError(path +
                        " changed while it was being indexed; index it again");
  }
  index.file_size_ = before.size;
  index.file_mtime_ns_ = before.mtime_ns;
  return index;
}

std::string RecordIndex::Serialize() const {
  std::string out(kIndexHeaderSize + 8 * offsets_.size() + kIndexChecksumSize,
                  '\0');
  char* p = out.data();
  std::memcpy(p, kIndexMagic.data(), kIndexMagic.size());
  EncodeFixed32(p + 8, kVersion);
  EncodeFixed32(p + 12, 0);  // reserved
  EncodeFixed64(p + 16, file_size_);
  EncodeFixed64(p + 24, static_cast<uint64_t>(file_mtime_ns_));
  EncodeFixed64(p + 32, offsets_.size());
  p += kIndexHeaderSize;
  for (uint64_t offset : offsets_) {
    EncodeFixed64(p, offset);
    p += 8;
  }
  EncodeFixed32(p, crc32c::Mask(crc32c::Value(out.data(), p - out.data())));
  return out;
}

Result<RecordIndex> RecordIndex::Parse(std::string_view bytes,
                                       const std::string& name) {
  if (bytes.size() < kIndexHeaderSize + kIndexChecksumSize) {
    if (!bytes.starts_with(kIndexMagic.substr(0, bytes.size()))) {
      return Corrupt(name, "not a record index (bad magic)");
    }
    return Corrupt(
        name, "truncated (" + std::to_string(bytes.size()) +
                  " bytes; the smallest index has " +
                  std::to_string(kIndexHeaderSize + kIndexChecksumSize) + ")");
  }
  const char* p = bytes.data();
  if (!bytes.starts_with(kIndexMagic)) {
    return Corrupt(name, "not a record index (bad magic)");
  }
  const uint32_t version = DecodeFixed32(p + 8);
  if (version != kVersion) {
    return FailedPreconditionError(
        "record index " + name + " has format version " +
        std::to_string(version) + "; this inflow reads version " +
        std::to_string(kVersion) + ": rebuild it with `inflow records index`");
  }
  const uint64_t count = DecodeFixed64(p + 32);
  const uint64_t room =
      (bytes.size() - kIndexHeaderSize - kIndexChecksumSize) / 8;
  if (count != room ||
      bytes.size() != kIndexHeaderSize + 8 * count + kIndexChecksumSize) {
    return Corrupt(name, "its size (" + std::to_string(bytes.size()) +
                             " bytes) does not match its record count (" +
                             std::to_string(count) + ")");
  }
  const size_t body = bytes.size() - kIndexChecksumSize;
  if (crc32c::Unmask(DecodeFixed32(p + body)) != crc32c::Value(p, body)) {
    return Corrupt(name, "checksum mismatch");
  }
  if (DecodeFixed32(p + 12) != 0) {
    return Corrupt(name, "reserved header field is not 0");
  }
  RecordIndex index;
  index.file_size_ = DecodeFixed64(p + 16);
  index.file_mtime_ns_ = static_cast<int64_t>(DecodeFixed64(p + 24));
  index.offsets_.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    index.offsets_[i] = DecodeFixed64(p + kIndexHeaderSize + 8 * i);
  }
  // Records tile the file: the first at 0, each at least 16 bytes, the
  // last one ending at the file's end.
  if (count == 0 && index.file_size_ != 0) {
    return Corrupt(name, "no records for a file of " +
                             std::to_string(index.file_size_) + " bytes");
  }
  uint64_t expected_min = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t offset = index.offsets_[i];
    if ((i == 0 && offset != 0) || offset < expected_min ||
        offset > index.file_size_ || index.file_size_ - offset < kFramingSize) {
      return Corrupt(name, "record " + std::to_string(i) + "'s offset " +
                               std::to_string(offset) +
                               " is out of order or past the file's end");
    }
    expected_min = offset + kFramingSize;
  }
  return index;
}

Status RecordIndex::IsFreshFor(Env& env, const std::string& path) const {
  INFLOW_ASSIGN_OR_RETURN(const FileStamp now, internal::StampOf(env, path));
  if (now.size == file_size_ && now.mtime_ns == file_mtime_ns_) {
    return OkStatus();
  }
  return FailedPreconditionError(
      "stale record index of " + path + ": built for " +
      std::to_string(file_size_) + " bytes modified at " +
      std::to_string(file_mtime_ns_) + " ns, the file has " +
      std::to_string(now.size) + " bytes modified at " +
      std::to_string(now.mtime_ns) +
      " ns; rebuild it with `inflow records index`");
}

}  // namespace inflow
