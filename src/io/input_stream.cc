// Copyright 2026 The inflow Authors.

#include "io/input_stream.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "core/fork_safety.h"
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

// The buffers of streams that have ended, kept for the next ones. A fresh
// buffer costs a page fault for every page on first touch (a mirrored ring
// two, one per mapping) plus the mapping calls; a reader opened per file
// paid about 190 faults per file with 256 KB buffers, a few percent of
// reading a 48 MB file of 100 KB records. Buffers are matched by exact
// size; at most kMaxEach of each kind and kMaxBytes in all are kept.
class BufferPool {
 public:
  static BufferPool& Get() {
    static BufferPool* const pool =  // never destroyed
        HeldAcrossFork(new BufferPool, &BufferPool::mu_);
    return *pool;
  }

  // A kept plain buffer of `size` bytes, or nullptr.
  char* TakePlain(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < plain_.size(); ++i) {
      if (plain_[i].size != size) continue;
      char* p = plain_[i].data;
      plain_.erase(plain_.begin() + static_cast<ptrdiff_t>(i));
      bytes_ -= size;
      return p;
    }
    return nullptr;
  }
  // Keeps `p` (of `size` bytes, from operator new[] aligned to `align`) or
  // frees it.
  void GivePlain(char* p, size_t size, size_t align) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (plain_.size() < kMaxEach && bytes_ + size <= kMaxBytes) {
        plain_.push_back({p, size});
        bytes_ += size;
        return;
      }
    }
    ::operator delete[](p, std::align_val_t{align});
  }

  // A kept ring of `size` bytes, or nullptr.
  std::unique_ptr<MirroredBuffer> TakeRing(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < rings_.size(); ++i) {
      if (rings_[i]->size() != size) continue;
      std::unique_ptr<MirroredBuffer> ring = std::move(rings_[i]);
      rings_.erase(rings_.begin() + static_cast<ptrdiff_t>(i));
      bytes_ -= size;
      return ring;
    }
    return nullptr;
  }
  void GiveRing(std::unique_ptr<MirroredBuffer> ring) {
    std::lock_guard<std::mutex> lock(mu_);
    if (rings_.size() < kMaxEach && bytes_ + ring->size() <= kMaxBytes) {
      bytes_ += ring->size();
      rings_.push_back(std::move(ring));
    }
    // Otherwise `ring` unmaps here.
  }

 private:
  static constexpr size_t kMaxEach = 8;
  static constexpr size_t kMaxBytes = size_t{64} << 20;

  struct Plain {
    char* data;
    size_t size;
  };

  std::mutex mu_;
  std::vector<Plain> plain_;
  std::vector<std::unique_ptr<MirroredBuffer>> rings_;
  size_t bytes_ = 0;
};

}  // namespace

BufferedStream::BufferedStream(std::unique_ptr<ByteSource> source,
                               size_t buffer_size)
    : source_(std::move(source)), capacity_(0) {
  UsePlainBuffer(RoundUp(std::max<size_t>(buffer_size, 64), kAlign) + kAlign);
}

BufferedStream::~BufferedStream() { ReleaseBuffers(); }

void BufferedStream::ReleaseBuffers() {
  if (plain_ != nullptr) {
    BufferPool::Get().GivePlain(plain_.release(), capacity_, kAlign);
  }
  if (ring_ != nullptr) BufferPool::Get().GiveRing(std::move(ring_));
}

void BufferedStream::UsePlainBuffer(size_t size) {
  char* kept = BufferPool::Get().TakePlain(size);
  std::unique_ptr<char, FreeAligned> plain(
      kept != nullptr ? kept
                      : static_cast<char*>(
                            ::operator new[](size, std::align_val_t{kAlign})));
  const size_t avail = end_ - begin_;
  const size_t shift = static_cast<size_t>(pos_ % kAlign);
  if (avail > 0) std::memcpy(plain.get() + shift, buf_ + begin_, avail);
  ReleaseBuffers();
  plain_ = std::move(plain);
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
    // Fill up to a page boundary of the file (indices and file offsets
    // agree modulo kAlign), so that the next read starts on one, and read
    // ring_read_ bytes at a time as the plain buffer did (the ring holds
    // twice that, so a full read fits beside the unread bytes).
    const size_t page_end = (begin_ + r) / kAlign * kAlign;
    const size_t limit = page_end >= begin_ + n ? page_end : begin_ + r;
    return std::max(std::min(limit, end_ + ring_read_), begin_ + n);
  }
  if (ring_ == nullptr && capacity_ - begin_ >= n) return capacity_;
  const size_t avail = end_ - begin_;
  const size_t shift = static_cast<size_t>(pos_ % kAlign);
  if (ring_ != nullptr || capacity_ - shift < n) {
    UsePlainBuffer(RoundUp(std::max(n + kAlign, capacity_ * 2), kAlign));
    return capacity_;
  }
  moved_bytes_ += avail;
  if (ring_ == nullptr) {
    // A kept ring costs nothing to switch to; a new one only once enough
    // bytes have moved to pay for it.
    const size_t read_size = capacity_ - kAlign;
    std::unique_ptr<MirroredBuffer> ring =
        BufferPool::Get().TakeRing(2 * read_size);
    if (ring == nullptr && moved_bytes_ >= kRingAfterMovedBytes) {
      ring = MirroredBuffer::Create(2 * read_size);
    }
    if (ring != nullptr && ring->size() % kAlign == 0 && n <= ring->size()) {
      std::memcpy(ring->data() + shift, buf_ + begin_, avail);
      ReleaseBuffers();
      ring_read_ = read_size;
      capacity_ = ring->size() + kAlign;
      buf_ = ring->data();
      ring_ = std::move(ring);
      start_ = begin_ = shift;
      end_ = shift + avail;
      return begin_ + ring_->size();
    }
    if (ring != nullptr) BufferPool::Get().GiveRing(std::move(ring));
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
