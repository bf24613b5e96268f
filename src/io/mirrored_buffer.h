// Copyright 2026 The inflow Authors.
//
// Internal: memory whose bytes appear twice, back to back, in the address
// space: byte i and byte i + size() are the same byte. A ring buffer kept
// in it never has to move or split what it holds; any size() consecutive
// bytes from any starting index below size() are contiguous.

#ifndef INFLOW_IO_MIRRORED_BUFFER_H_
#define INFLOW_IO_MIRRORED_BUFFER_H_

#include <cstddef>
#include <memory>

namespace inflow::internal {

class MirroredBuffer {
 public:
  // A buffer of `size` bytes (rounded up to a multiple of the page size),
  // mapped twice; nullptr where the platform cannot (not Linux, or the
  // mappings failed). Its start is page-aligned.
  static std::unique_ptr<MirroredBuffer> Create(size_t size);

  MirroredBuffer(const MirroredBuffer&) = delete;
  MirroredBuffer& operator=(const MirroredBuffer&) = delete;
  ~MirroredBuffer();

  // 2 * size() addressable bytes.
  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  MirroredBuffer(char* data, size_t size) : data_(data), size_(size) {}

  char* const data_;
  const size_t size_;
};

}  // namespace inflow::internal

#endif  // INFLOW_IO_MIRRORED_BUFFER_H_
