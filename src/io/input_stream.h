// Copyright 2026 The inflow Authors.
//
// Internal: byte streams under the record readers. A ByteSource yields a
// file's bytes (plain, or inflated by zlib_source.h); a BufferedStream adds
// one large buffer over it, with zero-copy Peek() for records and lines
// that fit, and direct reads into the caller's memory for those that don't.
//
// Not thread-safe.

#ifndef INFLOW_IO_INPUT_STREAM_H_
#define INFLOW_IO_INPUT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"

namespace inflow::internal {

// A stream of bytes read front to back.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes at the current position; 0 only at the end.
  [[nodiscard]] virtual Result<size_t> Read(char* dst, size_t n) = 0;
  // Moves the position to stream offset `pos` (past the end: later reads
  // return 0).
  [[nodiscard]] virtual Status SeekTo(uint64_t pos) = 0;
};

// The bytes of a file, uncompressed. Shares the file.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(std::shared_ptr<const RandomAccessFile> file)
      : file_(std::move(file)) {}
  Result<size_t> Read(char* dst, size_t n) override;
  Status SeekTo(uint64_t pos) override {
    pos_ = pos;
    return OkStatus();
  }

 private:
  std::shared_ptr<const RandomAccessFile> file_;
  uint64_t pos_ = 0;
};

// The source for `file` under `compression`.
std::unique_ptr<ByteSource> NewByteSource(
    std::shared_ptr<const RandomAccessFile> file, CompressionType compression,
    const ZlibOptions& zlib);

class MirroredBuffer;

class BufferedStream {
 public:
  BufferedStream(std::unique_ptr<ByteSource> source, size_t buffer_size);
  ~BufferedStream();

  // The next min(n, bytes left) bytes, not consumed. Valid until the next
  // non-const call. Grows the buffer when n exceeds it, so callers bound n.
  [[nodiscard]] Result<std::string_view> Peek(size_t n);
  // The bytes already buffered, not consumed (possibly none): a fast path
  // for callers that can often do without Peek().
  std::string_view buffered() const {
    return std::string_view(buf_ + begin_, end_ - begin_);
  }
  // Consumes `n` bytes. Precondition: n <= the size of the last Peek() or
  // of buffered().
  void Skip(size_t n) {
    begin_ += n;
    pos_ += n;
  }
  // Consumes up to `n` bytes into `dst`; fewer only at the end.
  [[nodiscard]] Result<size_t> Read(char* dst, size_t n);

  // The stream offset of the next byte.
  uint64_t Tell() const { return pos_; }
  // Cheap within the bytes still buffered (behind or ahead); otherwise the
  // source seeks (which a compressed source does by inflating again).
  [[nodiscard]] Status Seek(uint64_t pos);

 private:
  struct FreeAligned {
    void operator()(char* p) const;
  };

  // Bytes sit in the buffer at the same offset modulo kAlign as in the
  // stream, so that the kernel's copy into it runs page-aligned on both
  // sides.
  static constexpr size_t kAlign = 4096;
  // Once this many bytes have been moved to the front of a plain buffer
  // (unread bytes of records that straddle its end), the stream switches
  // to a mirrored ring (mirrored_buffer.h) of twice the buffer's size,
  // where nothing moves: the cost of setting one up is paid only by
  // streams of large records.
  static constexpr uint64_t kRingAfterMovedBytes = uint64_t{1} << 20;

  // Makes room for `n` unread bytes from begin_ on and returns the index up
  // to which the buffer may be filled.
  size_t MakeRoom(size_t n);
  // Switches to a plain buffer of `size` bytes, keeping the unread ones.
  void UsePlainBuffer(size_t size);
  // Hands plain_ and ring_ (whichever are held) to the pool of buffers kept
  // for later streams.
  void ReleaseBuffers();
  // The first index whose byte is still valid (consumed bytes are kept
  // for Seek until overwritten).
  size_t ValidStart() const;

  std::unique_ptr<ByteSource> source_;
  std::unique_ptr<char, FreeAligned> plain_;  // one of these two holds
  std::unique_ptr<MirroredBuffer> ring_;      // the bytes; buf_ points in
  char* buf_ = nullptr;
  size_t capacity_;       // plain: bytes in plain_; ring: ring size + kAlign
  size_t ring_read_ = 0;  // ring: bytes per source read (half the ring)
  uint64_t moved_bytes_ = 0;
  size_t start_ = 0;  // first valid byte in buf_ (consumed, kept for Seek)
  size_t begin_ = 0;  // next unread byte in buf_
  size_t end_ = 0;    // end of valid bytes in buf_
  uint64_t pos_ = 0;  // stream offset of buf_[begin_]
};

}  // namespace inflow::internal

#endif  // INFLOW_IO_INPUT_STREAM_H_
