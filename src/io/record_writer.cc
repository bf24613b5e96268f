// Copyright 2026 The inflow Authors.

#include "inflow/io/record_writer.h"

#include <cstring>

#include "io/record_format.h"
#include "io/zlib_source.h"

namespace inflow {
namespace {

// Records up to this size are framed in a stack buffer.
constexpr size_t kSmallRecord = 512;

}  // namespace

Result<std::unique_ptr<RecordWriter>> RecordWriter::Create(
    Env& env, const std::string& path, const RecordWriterOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file,
                          env.NewWritableFile(path));
  return Create(std::move(file), options);
}

Result<std::unique_ptr<RecordWriter>> RecordWriter::Create(
    std::unique_ptr<WritableFile> file, const RecordWriterOptions& options) {
  if (options.compression != CompressionType::kNone) {
    INFLOW_ASSIGN_OR_RETURN(
        file, internal::ZlibWritableFile::Create(
                  std::move(file),
                  options.compression == CompressionType::kGzip, options.zlib));
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(std::move(file)));
}

RecordWriter::RecordWriter(std::unique_ptr<WritableFile> file)
    : file_(std::move(file)) {}

RecordWriter::~RecordWriter() { Close().IgnoreError(); }

Status RecordWriter::CheckOpen() const {
  if (closed_) {
    return FailedPreconditionError(
        "Writer not initialized or previously closed: " + file_->name());
  }
  if (!error_.ok()) return error_;
  return OkStatus();
}

Status RecordWriter::WriteRecord(std::string_view record) {
  if (closed_ || !error_.ok()) return CheckOpen();
  constexpr size_t kFraming =
      internal::kRecordHeaderSize + internal::kRecordFooterSize;
  const uint32_t footer = crc32c::Mask(crc32c::Value(record));
  Status s;
  if (record.size() <= kSmallRecord) {
    // One append of the framed record: small records are mostly framing.
    char framed[kSmallRecord + kFraming];
    internal::EncodeRecordHeader(framed, record.size());
    std::memcpy(framed + internal::kRecordHeaderSize, record.data(),
                record.size());
    internal::EncodeFixed32(
        framed + internal::kRecordHeaderSize + record.size(), footer);
    s = file_->Append(std::string_view(framed, record.size() + kFraming));
  } else {
    char header[internal::kRecordHeaderSize];
    internal::EncodeRecordHeader(header, record.size());
    char tail[internal::kRecordFooterSize];
    internal::EncodeFixed32(tail, footer);
    s = file_->Append(std::string_view(header, sizeof(header)));
    if (s.ok()) s = file_->Append(record);
    if (s.ok()) s = file_->Append(std::string_view(tail, sizeof(tail)));
  }
  if (!s.ok()) error_ = s;
  return s;
}

Status RecordWriter::Flush() {
  INFLOW_RETURN_IF_ERROR(CheckOpen());
  Status s = file_->Flush();
  if (!s.ok()) error_ = s;
  return s;
}

Status RecordWriter::Sync() {
  INFLOW_RETURN_IF_ERROR(CheckOpen());
  Status s = file_->Sync();
  if (!s.ok()) error_ = s;
  return s;
}

Status RecordWriter::Close() {
  if (closed_) return OkStatus();
  closed_ = true;
  Status s = file_->Close();
  return error_.ok() ? s : error_;
}

}  // namespace inflow
