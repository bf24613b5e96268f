// Copyright 2026 The inflow Authors.

#include "inflow/io/record_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/input_stream.h"
#include "io/record_format.h"

namespace inflow {

using internal::kRecordFooterSize;
using internal::kRecordHeaderSize;

Result<std::unique_ptr<RecordReader>> RecordReader::Open(
    Env& env, const std::string& path, const RecordReaderOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          env.NewRandomAccessFile(path));
  return Create(std::shared_ptr<const RandomAccessFile>(std::move(file)),
                options);
}

std::unique_ptr<RecordReader> RecordReader::Create(
    std::shared_ptr<const RandomAccessFile> file,
    const RecordReaderOptions& options) {
  return std::unique_ptr<RecordReader>(
      new RecordReader(std::move(file), options));
}

RecordReader::RecordReader(std::shared_ptr<const RandomAccessFile> file,
                           const RecordReaderOptions& options)
    : file_(std::move(file)), options_(options) {
  stream_ = std::make_unique<internal::BufferedStream>(
      internal::NewByteSource(file_, options.compression, options.zlib),
      options.buffer_size);
}

RecordReader::~RecordReader() = default;

uint64_t RecordReader::offset() const { return stream_->Tell(); }

Status RecordReader::Seek(uint64_t offset) { return stream_->Seek(offset); }

Status RecordReader::Corrupt(std::string_view what, uint64_t offset) const {
  std::string message = std::string(what) + " at offset " +
                        std::to_string(offset) + " in " + filename();
  // The first record of a file read uncompressed: a compressed file fails
  // here; say so when its first bytes are gzip's magic or a zlib header.
  if (offset == 0 && options_.compression == CompressionType::kNone) {
    char head[kRecordHeaderSize];
    Result<size_t> got = ReadFully(*file_, 0, sizeof(head), head);
    if (got.ok()) {
      const CompressionType looks =
          DetectCompression("", std::string_view(head, *got));
      if (looks != CompressionType::kNone) {
        const std::string name(CompressionTypeName(looks));
        message += "; the file looks " + name + "-compressed (" +
                   (looks == CompressionType::kGzip
                        ? "it starts with gzip's magic 1f 8b"
                        : "it starts with a zlib header") +
                   "): open it with compression " + name;
      }
    }
  }
  return DataLossError(message);
}

bool RecordReader::HasWholeRecordBuffered() const {
  // The length's CRC is left to the read, which checks it: a corrupt
  // length only decides whether the read comes now or after a refill.
  const std::string_view buffered = stream_->buffered();
  if (buffered.size() < kRecordHeaderSize + kRecordFooterSize) return false;
  const uint64_t len = internal::DecodeFixed64(buffered.data());
  return len <= buffered.size() - kRecordHeaderSize - kRecordFooterSize;
}

// Inlined into Next, whose fast path it is: the per-record cost of small
// records is in these few lines.
[[gnu::always_inline]] inline bool RecordReader::TakeBuffered(
    std::string_view* record) {
  const std::string_view buffered = stream_->buffered();
  if (buffered.size() < kRecordHeaderSize + kRecordFooterSize) return false;
  const std::optional<uint64_t> len =
      internal::DecodeRecordHeader(buffered.data());
  if (!len || *len > buffered.size() - kRecordHeaderSize - kRecordFooterSize) {
    return false;
  }
  const std::string_view data = buffered.substr(kRecordHeaderSize, *len);
  const uint32_t stored = internal::DecodeFixed32(data.data() + data.size());
  if (crc32c::Unmask(stored) != crc32c::Value(data)) return false;
  // Skipping within the buffer moves no byte.
  stream_->Skip(kRecordHeaderSize + *len + kRecordFooterSize);
  *record = data;
  return true;
}

std::optional<std::string_view> RecordReader::NextInBuffer() {
  std::string_view data;
  if (!TakeBuffered(&data)) return std::nullopt;
  return data;
}

Result<std::string_view> RecordReader::Next() {
  // Fast path: the whole record is already buffered and intact.
  if (std::string_view data; TakeBuffered(&data)) return data;
  // Otherwise: fill the buffer as needed, and report what is wrong.
  const uint64_t start = stream_->Tell();
  INFLOW_ASSIGN_OR_RETURN(std::string_view header,
                          stream_->Peek(kRecordHeaderSize));
  if (header.empty()) {
    return OutOfRangeError("end of file " + filename() + " at offset " +
                           std::to_string(start));
  }
  if (header.size() < kRecordHeaderSize) {
    return Corrupt("truncated record (partial header)", start);
  }
  const std::optional<uint64_t> length =
      internal::DecodeRecordHeader(header.data());
  if (!length) return Corrupt("corrupted record (length checksum)", start);
  const uint64_t len = *length;
  if (len > std::numeric_limits<size_t>::max() - kRecordHeaderSize -
                kRecordFooterSize - 1) {
    return Corrupt("record size too large", start);
  }
  const size_t total = kRecordHeaderSize + len + kRecordFooterSize;

  if (total <= options_.buffer_size) {
    // The whole record fits in the buffer: verify and return it in place.
    INFLOW_ASSIGN_OR_RETURN(std::string_view framed, stream_->Peek(total));
    if (framed.size() < total) return Corrupt("truncated record", start);
    const std::string_view data = framed.substr(kRecordHeaderSize, len);
    const uint32_t stored =
        internal::DecodeFixed32(framed.data() + kRecordHeaderSize + len);
    if (crc32c::Unmask(stored) != crc32c::Value(data)) {
      return Corrupt("corrupted record (data checksum)", start);
    }
    stream_->Skip(total);
    return data;
  }

  // Too large for the buffer: read straight into `large_`, growing it only
  // as bytes actually arrive.
  stream_->Skip(kRecordHeaderSize);
  const size_t need = len + kRecordFooterSize;
  size_t have = 0;
  while (have < need) {
    if (have == large_capacity_) {
      const size_t grown = std::min(
          need, std::max<size_t>(large_capacity_ * 2, size_t{1} << 20));
      std::unique_ptr<char[]> bigger(new char[grown]);
      if (have > 0) std::memcpy(bigger.get(), large_.get(), have);
      large_ = std::move(bigger);
      large_capacity_ = grown;
    }
    const size_t want = std::min(need, large_capacity_) - have;
    Result<size_t> got = stream_->Read(large_.get() + have, want);
    if (!got.ok() || *got == 0) {
      INFLOW_RETURN_IF_ERROR(stream_->Seek(start));
      if (!got.ok()) return got.status();
      return Corrupt("truncated record", start);
    }
    have += *got;
  }
  const std::string_view data(large_.get(), len);
  const uint32_t stored = internal::DecodeFixed32(large_.get() + len);
  if (crc32c::Unmask(stored) != crc32c::Value(data)) {
    INFLOW_RETURN_IF_ERROR(stream_->Seek(start));
    return Corrupt("corrupted record (data checksum)", start);
  }
  return data;
}

Status RecordReader::ReadRecord(uint64_t* offset, std::string* record) {
  if (*offset != stream_->Tell()) INFLOW_RETURN_IF_ERROR(Seek(*offset));
  INFLOW_ASSIGN_OR_RETURN(std::string_view data, Next());
  record->assign(data.data(), data.size());
  *offset = stream_->Tell();
  return OkStatus();
}

}  // namespace inflow
