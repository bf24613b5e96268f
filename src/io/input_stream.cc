// Copyright 2026 The inflow Authors.

#include "io/input_stream.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "io/mirrored_buffer.h"
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

void BufferedStream::FreeAligned::operator()(char* p) const {
  ::operator delete[](p, std::align_val_t{kAlign});
}

namespace {
size_t RoundUp(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }
}  // namespace

BufferedStream::BufferedStream(std::unique_ptr<ByteSource> source,
                               size_t buffer_size)
    : source_(std::move(source)), capacity_(0) {
  UsePlainBuffer(RoundUp(std::max<size_t>(buffer_size, 64), kAlign) + kAlign);
}

BufferedStream::~BufferedStream() = default;

void BufferedStream::UsePlainBuffer(size_t size) {
  std::unique_ptr<char, FreeAligned> plain(
      static_cast<char*>(::operator new[](size, std::align_val_t{kAlign})));
  const size_t avail = end_ - begin_;
  const size_t shift = static_cast<size_t>(pos_ % kAlign);
  if (avail > 0) std::memcpy(plain.get() + shift, buf_ + begin_, avail);
  plain_ = std::move(plain);
  ring_.reset();
  buf_ = plain_.get();
  capacity_ = size;
  start_ = begin_ = shift;
  end_ = shift + avail;
}

size_t BufferedStream::ValidStart() const {
  if (ring_ == nullptr || end_ <= ring_->size()) return start_;
  return std::max(start_, end_ - ring_->size());
}

size_t BufferedStream::MakeRoom(size_t n) {
  if (ring_ != nullptr && n <= ring_->size()) {
    // Nothing moves: indices past the ring's size see the same bytes as
    // those one size lower.
    const size_t r = ring_->size();
    if (begin_ >= r) {
      begin_ -= r;
      end_ -= r;
      start_ = start_ >= r ? start_ - r : 0;
    }
    return begin_ + r;
  }
  if (ring_ == nullptr && capacity_ - begin_ >= n) return capacity_;
  const size_t avail = end_ - begin_;
  const size_t shift = static_cast<size_t>(pos_ % kAlign);
  if (ring_ != nullptr || capacity_ - shift < n) {
    UsePlainBuffer(RoundUp(std::max(n + kAlign, capacity_ * 2), kAlign));
    return capacity_;
  }
  moved_bytes_ += avail;
  if (ring_ == nullptr && moved_bytes_ >= kRingAfterMovedBytes) {
    std::unique_ptr<MirroredBuffer> ring =
        MirroredBuffer::Create(capacity_ - kAlign);
    if (ring != nullptr && ring->size() % kAlign == 0 && n <= ring->size()) {
      std::memcpy(ring->data() + shift, buf_ + begin_, avail);
      capacity_ = ring->size() + kAlign;
      buf_ = ring->data();
      ring_ = std::move(ring);
      plain_.reset();
      start_ = begin_ = shift;
      end_ = shift + avail;
      return begin_ + ring_->size();
    }
  }
  // Move the unread bytes to the front, keeping their offset modulo kAlign
  // (at most kAlign - 1 bytes of the front stay unused).
  std::memmove(buf_ + shift, buf_ + begin_, avail);
  start_ = begin_ = shift;
  end_ = shift + avail;
  return capacity_;
}

Result<std::string_view> BufferedStream::Peek(size_t n) {
  if (end_ - begin_ < n) {
    const size_t limit = MakeRoom(n);
    while (end_ - begin_ < n) {
      INFLOW_ASSIGN_OR_RETURN(size_t got,
                              source_->Read(buf_ + end_, limit - end_));
      if (got == 0) break;
      end_ += got;
    }
  }
  return std::string_view(buf_ + begin_, std::min(n, end_ - begin_));
}

Result<size_t> BufferedStream::Read(char* dst, size_t n) {
  const size_t buffered = std::min(n, end_ - begin_);
  std::memcpy(dst, buf_ + begin_, buffered);
  Skip(buffered);
  size_t done = buffered;
  if (done == n) return done;
  start_ = begin_ = end_ = static_cast<size_t>(pos_ % kAlign);
  if (n - done >= capacity_ / 2) {
    // Large: straight from the source into `dst`, no second copy.
    while (done < n) {
      INFLOW_ASSIGN_OR_RETURN(size_t got, source_->Read(dst + done, n - done));
      if (got == 0) break;
      done += got;
      pos_ += got;
    }
    start_ = begin_ = end_ = static_cast<size_t>(pos_ % kAlign);
    return done;
  }
  INFLOW_ASSIGN_OR_RETURN(std::string_view more, Peek(n - done));
  std::memcpy(dst + done, more.data(), more.size());
  Skip(more.size());
  return done + more.size();
}

Status BufferedStream::Seek(uint64_t pos) {
  const uint64_t window_start = pos_ - begin_;
  if (pos >= window_start + ValidStart() && pos - window_start <= end_) {
    begin_ = static_cast<size_t>(pos - window_start);
    pos_ = pos;
    return OkStatus();
  }
  pos_ = pos;
  start_ = begin_ = end_ = static_cast<size_t>(pos_ % kAlign);
  return source_->SeekTo(pos);
}

}  // namespace inflow::internal
