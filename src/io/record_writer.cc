// Copyright 2026 The inflow Authors.

#include "inflow/io/record_writer.h"

#include "io/record_format.h"
#include "io/zlib_source.h"

namespace inflow {

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
  return error_;
}

Status RecordWriter::WriteRecord(std::string_view record) {
  INFLOW_RETURN_IF_ERROR(CheckOpen());
  char header[internal::kRecordHeaderSize];
  internal::EncodeRecordHeader(header, record.size());
  char footer[internal::kRecordFooterSize];
  internal::EncodeFixed32(footer, crc32c::Mask(crc32c::Value(record)));
  Status s = file_->Append(std::string_view(header, sizeof(header)));
  if (s.ok()) s = file_->Append(record);
  if (s.ok()) s = file_->Append(std::string_view(footer, sizeof(footer)));
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
