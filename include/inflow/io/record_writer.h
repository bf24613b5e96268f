// Copyright 2026 The inflow Authors.
//
// RecordWriter: writes TFRecord files (docs/formats.md "TFRecord") that
// TensorFlow reads, plain or ZLIB/GZIP-compressed with TF's settings (files
// byte-identical to TF's for the same records and options).
//
// WriteRecord/Flush after Close() fail with FAILED_PRECONDITION; Close() is
// idempotent; the destructor closes and drops any error (call Close() to
// see it). An I/O error is sticky: later calls return it again.
//
// Not thread-safe.

#ifndef INFLOW_IO_RECORD_WRITER_H_
#define INFLOW_IO_RECORD_WRITER_H_

#include <memory>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"

namespace inflow {

struct RecordWriterOptions {
  CompressionType compression = CompressionType::kNone;
  ZlibOptions zlib;
};

class RecordWriter {
 public:
  // Creates or truncates `path`.
  static Result<std::unique_ptr<RecordWriter>> Create(
      Env& env, const std::string& path,
      const RecordWriterOptions& options = {});
  // Writes into `file`, which it owns.
  static Result<std::unique_ptr<RecordWriter>> Create(
      std::unique_ptr<WritableFile> file,
      const RecordWriterOptions& options = {});
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  [[nodiscard]] Status WriteRecord(std::string_view record);
  // Hands everything written so far to the file (decodable, if
  // compressed).
  [[nodiscard]] Status Flush();
  // Flush() and then makes the bytes durable.
  [[nodiscard]] Status Sync();
  // Ends the compressed stream, if any, and closes the file.
  [[nodiscard]] Status Close();

 private:
  explicit RecordWriter(std::unique_ptr<WritableFile> file);
  Status CheckOpen() const;

  std::unique_ptr<WritableFile> file_;
  bool closed_ = false;
  Status error_;
};

}  // namespace inflow

#endif  // INFLOW_IO_RECORD_WRITER_H_
