// Copyright 2026 The inflow Authors.
//
// The four TF readers over ReaderBase. Each keeps its per-file state only
// between OnWorkStartedLocked() and OnWorkFinishedLocked().

#include "inflow/input/readers.h"

#include <cstring>

#include "inflow/io/record_reader.h"

#include "io/input_stream.h"

namespace inflow {
namespace {

constexpr size_t kBufferSize = 256 << 10;

std::unique_ptr<internal::BufferedStream> OpenStream(
    std::unique_ptr<RandomAccessFile> file, CompressionType compression) {
  return std::make_unique<internal::BufferedStream>(
      internal::NewByteSource(std::move(file), compression, ZlibOptions{}),
      kBufferSize);
}

class TFRecordReader final : public ReaderBase {
 public:
  TFRecordReader(Env& env, CompressionType compression)
      : ReaderBase("TFRecordReader"), env_(env), compression_(compression) {}

 protected:
  Status OnWorkStartedLocked(const std::string& work) override {
    RecordReaderOptions options;
    options.compression = compression_;
    finished_.reset();
    INFLOW_ASSIGN_OR_RETURN(reader_, RecordReader::Open(env_, work, options));
    return OkStatus();
  }
  // A finished file's reader is kept until the next one opens: a
  // borrowing batch that ended with the file views its buffer.
  void OnWorkFinishedLocked() override { finished_ = std::move(reader_); }
  Status ReadLocked(const std::string& work, std::string* key,
                    std::string* value, bool* produced, bool* at_end) override {
    const uint64_t offset = reader_->offset();
    Result<std::string_view> record = reader_->Next();
    if (!record.ok()) {
      if (IsOutOfRange(record.status())) {
        *at_end = true;
        return OkStatus();
      }
      return record.status();
    }
    *key = work + ":" + std::to_string(offset);
    value->assign(record->data(), record->size());
    *produced = true;
    return OkStatus();
  }
  Status ReadIntoLocked(const std::string& work, RecordBatch* batch,
                        bool* produced, bool* at_end) override {
    const uint64_t offset = reader_->offset();
    if (batch->borrow()) {
      if (std::optional<std::string_view> view = reader_->NextInBuffer()) {
        batch->AppendBorrowedAt(work, offset, *view);
        *produced = true;
        return OkStatus();
      }
    }
    Result<std::string_view> record = reader_->Next();
    if (!record.ok()) {
      if (IsOutOfRange(record.status())) {
        *at_end = true;
        return OkStatus();
      }
      return record.status();
    }
    batch->AppendAt(work, offset, *record);
    *produced = true;
    return OkStatus();
  }

 private:
  bool NextReadRefillsLocked() const override {
    return reader_ != nullptr && !reader_->HasWholeRecordBuffered();
  }

  Env& env_;
  const CompressionType compression_;
  std::unique_ptr<RecordReader> reader_;
  std::unique_ptr<RecordReader> finished_;
};

class TextLineReader final : public ReaderBase {
 public:
  TextLineReader(Env& env, int64_t skip_header_lines)
      : ReaderBase("TextLineReader"),
        env_(env),
        skip_header_lines_(skip_header_lines) {}

 protected:
  Status OnWorkStartedLocked(const std::string& work) override {
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                            env_.NewRandomAccessFile(work));
    stream_ = OpenStream(std::move(file), CompressionType::kNone);
    line_number_ = 0;
    std::string ignored;
    for (; line_number_ < skip_header_lines_; ++line_number_) {
      Status s = ReadLine(&ignored);
      // A file shorter than its header yields nothing.
      if (IsOutOfRange(s)) return OkStatus();
      INFLOW_RETURN_IF_ERROR(s);
    }
    return OkStatus();
  }
  void OnWorkFinishedLocked() override { stream_.reset(); }
  Status ReadLocked(const std::string& work, std::string* key,
                    std::string* value, bool* produced, bool* at_end) override {
    Status s = ReadLine(value);
    if (IsOutOfRange(s)) {
      *at_end = true;
      return OkStatus();
    }
    INFLOW_RETURN_IF_ERROR(s);
    ++line_number_;
    *key = work + ":" + std::to_string(line_number_);
    *produced = true;
    return OkStatus();
  }

 private:
  // TF's InputBuffer::ReadLine: up to "\n", one trailing "\r" dropped; at
  // the end a non-empty last line counts, an empty one is OUT_OF_RANGE.
  Status ReadLine(std::string* line) {
    size_t want = 4096;
    size_t scanned = 0;
    while (true) {
      INFLOW_ASSIGN_OR_RETURN(std::string_view view, stream_->Peek(want));
      const void* nl =
          std::memchr(view.data() + scanned, '\n', view.size() - scanned);
      const bool at_eof = nl == nullptr && view.size() < want;
      if (nl != nullptr || at_eof) {
        const size_t len = nl != nullptr
                               ? static_cast<const char*>(nl) - view.data()
                               : view.size();
        line->assign(view.data(), len);
        stream_->Skip(nl != nullptr ? len + 1 : len);
        if (!line->empty() && line->back() == '\r') line->pop_back();
        if (at_eof && line->empty()) return OutOfRangeError("end of file");
        return OkStatus();
      }
      scanned = view.size();
      want *= 2;
    }
  }

  Env& env_;
  const int64_t skip_header_lines_;
  std::unique_ptr<internal::BufferedStream> stream_;
  int64_t line_number_ = 0;
};

class FixedLengthRecordReader final : public ReaderBase {
 public:
  FixedLengthRecordReader(Env& env, const FixedLengthRecordOptions& options,
                          CompressionType compression)
      : ReaderBase("FixedLengthRecordReader"),
        env_(env),
        options_(options),
        compression_(compression) {}

 protected:
  Status OnWorkStartedLocked(const std::string& work) override {
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                            env_.NewRandomAccessFile(work));
    stream_ = OpenStream(std::move(file), compression_);
    record_number_ = 0;
    return stream_->Seek(static_cast<uint64_t>(options_.header_bytes));
  }
  void OnWorkFinishedLocked() override { stream_.reset(); }
  Status ReadLocked(const std::string& work, std::string* key,
                    std::string* value, bool* produced, bool* at_end) override {
    const size_t record = static_cast<size_t>(options_.record_bytes);
    // The record must leave room for the footer after it.
    const size_t need = record + static_cast<size_t>(options_.footer_bytes);
    INFLOW_ASSIGN_OR_RETURN(std::string_view view, stream_->Peek(need));
    if (view.size() < need) {
      *at_end = true;
      return OkStatus();
    }
    value->assign(view.data(), record);
    *key = work + ":" + std::to_string(record_number_);
    ++record_number_;
    *produced = true;
    const uint64_t step = static_cast<uint64_t>(
        options_.hop_bytes > 0 ? options_.hop_bytes : options_.record_bytes);
    return stream_->Seek(stream_->Tell() + step);
  }

 private:
  Env& env_;
  const FixedLengthRecordOptions options_;
  const CompressionType compression_;
  std::unique_ptr<internal::BufferedStream> stream_;
  int64_t record_number_ = 0;
};

class WholeFileReader final : public ReaderBase {
 public:
  explicit WholeFileReader(Env& env)
      : ReaderBase("WholeFileReader"), env_(env) {}

 protected:
  Status OnWorkStartedLocked(const std::string&) override { return OkStatus(); }
  void OnWorkFinishedLocked() override {}
  Status ReadLocked(const std::string& work, std::string* key,
                    std::string* value, bool* produced, bool* at_end) override {
    INFLOW_ASSIGN_OR_RETURN(*value, ReadFileToString(env_, work));
    *key = work;
    *produced = true;
    *at_end = true;
    return OkStatus();
  }

 private:
  Env& env_;
};

}  // namespace

Result<std::unique_ptr<ReaderBase>> NewTFRecordReader(
    Env& env, const std::string& compression_type) {
  INFLOW_ASSIGN_OR_RETURN(CompressionType compression,
                          ParseCompressionType(compression_type));
  return std::unique_ptr<ReaderBase>(
      std::make_unique<TFRecordReader>(env, compression));
}

Result<std::unique_ptr<ReaderBase>> NewTextLineReader(
    Env& env, int64_t skip_header_lines) {
  if (skip_header_lines < 0) {
    return InvalidArgumentError("skip_header_lines must be >= 0, got " +
                                std::to_string(skip_header_lines));
  }
  return std::unique_ptr<ReaderBase>(
      std::make_unique<TextLineReader>(env, skip_header_lines));
}

Result<std::unique_ptr<ReaderBase>> NewFixedLengthRecordReader(
    Env& env, const FixedLengthRecordOptions& options) {
  if (options.header_bytes < 0 || options.record_bytes < 0 ||
      options.footer_bytes < 0 || options.hop_bytes < 0) {
    return InvalidArgumentError(
        "FixedLengthRecordReader: header_bytes, record_bytes, footer_bytes "
        "and hop_bytes must not be negative");
  }
  if (options.record_bytes == 0) {
    return InvalidArgumentError(
        "FixedLengthRecordReader: record_bytes must be > 0");
  }
  INFLOW_ASSIGN_OR_RETURN(CompressionType compression,
                          ParseCompressionType(options.encoding));
  return std::unique_ptr<ReaderBase>(
      std::make_unique<FixedLengthRecordReader>(env, options, compression));
}

std::unique_ptr<ReaderBase> NewWholeFileReader(Env& env) {
  return std::make_unique<WholeFileReader>(env);
}

}  // namespace inflow
