// Copyright 2026 The inflow Authors.
//
// Internal: the byte stream under the IDX and NPY readers. A dataset file
// is read front to back, plain or gzip-compressed (told apart by its first
// two bytes, 1f 8b, as Debian ships the Fashion-MNIST files); offsets are
// positions in the decompressed stream. Every error names the file, the
// offset and what was being read.
//
// Not thread-safe.

#ifndef INFLOW_DATAFILES_ARRAY_FILE_H_
#define INFLOW_DATAFILES_ARRAY_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

#include "io/input_stream.h"
#include "io/zlib_source.h"

namespace inflow::internal {

class ArrayFileStream {
 public:
  // NOT_FOUND (or another Env error) naming `path` when it cannot be read.
  static Result<std::unique_ptr<ArrayFileStream>> Open(Env& env,
                                                       const std::string& path);

  // Reads exactly `n` bytes of `what` (e.g. "IDX header") into `dst`;
  // DATA_LOSS "PATH: truncated WHAT: ..." when the stream ends first.
  [[nodiscard]] Status ReadExactly(char* dst, size_t n, std::string_view what);

  // Reads the rest of the stream, which must be exactly `n` bytes of
  // `what`: DATA_LOSS when it is shorter, INVALID_ARGUMENT when bytes
  // follow. A gzip stream must end with its trailer (a file cut inside it
  // is DATA_LOSS, though the data may be whole). Memory grows with the bytes
  // that arrive, so a header that promises more than the file holds cannot make
  // it allocate that much.
  [[nodiscard]] Result<std::string> ReadRest(uint64_t n, std::string_view what);

  // A tensor of `dtype` and `shape` over `bytes` (which it keeps; no
  // copy). Precondition: bytes.size() is the shape's byte size.
  static Result<Tensor> TensorOver(DType dtype, TensorShape shape,
                                   std::string bytes);

  // INVALID_ARGUMENT "PATH: MESSAGE (at byte offset O)" for malformed
  // content at stream offset `offset`.
  Status Malformed(uint64_t offset, std::string_view message) const;

  uint64_t offset() const { return offset_; }
  bool gzip() const { return gzip_; }
  const std::string& path() const { return path_; }

 private:
  ArrayFileStream(std::string path, std::unique_ptr<ByteSource> source,
                  ZlibSource* gzip, uint64_t file_size);
  // Reads up to `n` bytes (fewer only at the end of the stream).
  Result<size_t> ReadSome(char* dst, size_t n);
  Status Truncated(std::string_view what, uint64_t wanted, uint64_t got) const;
  std::string Where(uint64_t offset) const;

  const std::string path_;
  std::unique_ptr<ByteSource> source_;
  ZlibSource* const zlib_;  // source_, when gzip; else null
  const bool gzip_;
  const uint64_t file_size_;  // of the file on disk (compressed if gzip)
  uint64_t offset_ = 0;
};

}  // namespace inflow::internal

#endif  // INFLOW_DATAFILES_ARRAY_FILE_H_
