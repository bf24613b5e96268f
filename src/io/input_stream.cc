// Copyright 2026 The inflow Authors.

#include "io/input_stream.h"

#include <algorithm>
#include <cstring>

#include "io/zlib_source.h"

namespace inflow::internal {

Result<size_t> FileSource::Read(char* dst, size_t n) {
  INFLOW_ASSIGN_OR_RETURN(size_t got, file_->Read(pos_, n, dst));
  pos_ += got;
  return got;
}

std::unique_ptr<ByteSource> NewByteSource(
    std::shared_ptr<const RandomAccessFile> file, CompressionType compression,
    const ZlibOptions& zlib) {
  if (compression == CompressionType::kNone) {
    return std::make_unique<FileSource>(std::move(file));
  }
  return std::make_unique<ZlibSource>(
      std::move(file), compression == CompressionType::kGzip, zlib);
}

BufferedStream::BufferedStream(std::unique_ptr<ByteSource> source,
                               size_t buffer_size)
    : source_(std::move(source)),
      buf_(new char[std::max<size_t>(buffer_size, 64)]),
      capacity_(std::max<size_t>(buffer_size, 64)) {}

Result<std::string_view> BufferedStream::Peek(size_t n) {
  if (end_ - begin_ < n && capacity_ - begin_ < n) {
    const size_t avail = end_ - begin_;
    if (capacity_ < n) {
      const size_t grown = std::max(n, capacity_ * 2);
      std::unique_ptr<char[]> bigger(new char[grown]);
      std::memcpy(bigger.get(), buf_.get() + begin_, avail);
      buf_ = std::move(bigger);
      capacity_ = grown;
    } else {
      std::memmove(buf_.get(), buf_.get() + begin_, avail);
    }
    begin_ = 0;
    end_ = avail;
  }
  while (end_ - begin_ < n) {
    INFLOW_ASSIGN_OR_RETURN(size_t got,
                            source_->Read(buf_.get() + end_, capacity_ - end_));
    if (got == 0) break;
    end_ += got;
  }
  return std::string_view(buf_.get() + begin_, std::min(n, end_ - begin_));
}

Result<size_t> BufferedStream::Read(char* dst, size_t n) {
  const size_t buffered = std::min(n, end_ - begin_);
  std::memcpy(dst, buf_.get() + begin_, buffered);
  Skip(buffered);
  size_t done = buffered;
  if (done == n) return done;
  begin_ = end_ = 0;
  if (n - done >= capacity_ / 2) {
    // Large: straight from the source into `dst`, no second copy.
    while (done < n) {
      INFLOW_ASSIGN_OR_RETURN(size_t got, source_->Read(dst + done, n - done));
      if (got == 0) break;
      done += got;
      pos_ += got;
    }
    return done;
  }
  INFLOW_ASSIGN_OR_RETURN(std::string_view more, Peek(n - done));
  std::memcpy(dst + done, more.data(), more.size());
  Skip(more.size());
  return done + more.size();
}

Status BufferedStream::Seek(uint64_t pos) {
  const uint64_t window_start = pos_ - begin_;
  if (pos >= window_start && pos - window_start <= end_) {
    begin_ = static_cast<size_t>(pos - window_start);
    pos_ = pos;
    return OkStatus();
  }
  begin_ = end_ = 0;
  pos_ = pos;
  return source_->SeekTo(pos);
}

}  // namespace inflow::internal
