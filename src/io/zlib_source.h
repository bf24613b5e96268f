// Copyright 2026 The inflow Authors.
//
// Internal: zlib/gzip inflation of a file (ZlibSource) and deflation into a
// file (ZlibWritableFile), with TF's settings. Not thread-safe.

#ifndef INFLOW_IO_ZLIB_SOURCE_H_
#define INFLOW_IO_ZLIB_SOURCE_H_

#include <zlib.h>

#include <memory>
#include <string>

#include "inflow/io/compression.h"
#include "inflow/io/env.h"

#include "io/input_stream.h"

namespace inflow::internal {

// The inflated bytes of a zlib or gzip file. Concatenated gzip members read
// as one stream. Corrupt compressed data is DATA_LOSS; a compressed stream
// cut short simply ends (the record framing above notices).
class ZlibSource final : public ByteSource {
 public:
  ZlibSource(std::shared_ptr<const RandomAccessFile> file, bool gzip,
             const ZlibOptions& options);
  ~ZlibSource() override;
  ZlibSource(const ZlibSource&) = delete;
  ZlibSource& operator=(const ZlibSource&) = delete;

  Result<size_t> Read(char* dst, size_t n) override;
  // Backwards: inflates again from the start.
  Status SeekTo(uint64_t pos) override;
  // Once Read() has returned 0: true when the stream ended with a whole
  // zlib stream or gzip member (trailer and checksum verified), false when
  // the file was cut short.
  bool ended_cleanly() const { return stream_end_; }

 private:
  Status Init();
  Status Restart();

  std::shared_ptr<const RandomAccessFile> file_;
  const bool gzip_;
  const ZlibOptions options_;
  z_stream strm_{};
  bool initialized_ = false;
  Status init_status_;
  std::unique_ptr<Bytef[]> in_;
  size_t in_capacity_;
  uint64_t file_offset_ = 0;  // next compressed byte to read
  bool input_done_ = false;
  bool stream_end_ = false;
  uint64_t out_pos_ = 0;  // inflated bytes handed out
};

// Deflates everything appended into `file`, which it owns. Close() ends the
// stream; Flush() makes all appended bytes decodable (Z_PARTIAL_FLUSH).
class ZlibWritableFile final : public WritableFile {
 public:
  static Result<std::unique_ptr<WritableFile>> Create(
      std::unique_ptr<WritableFile> file, bool gzip,
      const ZlibOptions& options);
  ~ZlibWritableFile() override;

  Status Append(std::string_view data) override;
  Status Flush() override;
  Status Sync() override;
  Status Close() override;
  const std::string& name() const override { return file_->name(); }

 private:
  ZlibWritableFile(std::unique_ptr<WritableFile> file,
                   const ZlibOptions& options);
  // Deflates `data` (or only what is buffered, if empty) with `flush`.
  Status Deflate(std::string_view data, int flush);
  Status DrainBuffered(int flush);

  std::unique_ptr<WritableFile> file_;
  const ZlibOptions options_;
  z_stream strm_{};
  std::string in_;  // small appends gather here before deflate
  std::unique_ptr<Bytef[]> out_;
  size_t out_capacity_;
  bool closed_ = false;
  Status error_;  // sticky: a failed stream stays failed
};

}  // namespace inflow::internal

#endif  // INFLOW_IO_ZLIB_SOURCE_H_
