// Copyright 2026 The inflow Authors.

#include "datafiles/array_file.h"

#include <algorithm>
#include <utility>

namespace inflow::internal {

Result<std::unique_ptr<ArrayFileStream>> ArrayFileStream::Open(
    Env& env, const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(uint64_t file_size, env.GetFileSize(path));
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> opened,
                          env.NewRandomAccessFile(path));
  std::shared_ptr<const RandomAccessFile> file(std::move(opened));
  char magic[2] = {0, 0};
  INFLOW_ASSIGN_OR_RETURN(size_t got, ReadFully(*file, 0, 2, magic));
  const bool gzip = got == 2 && static_cast<uint8_t>(magic[0]) == 0x1f &&
                    static_cast<uint8_t>(magic[1]) == 0x8b;
  std::unique_ptr<ByteSource> source;
  ZlibSource* zlib = nullptr;
  if (gzip) {
    auto z = std::make_unique<ZlibSource>(file, /*gzip=*/true, ZlibOptions());
    zlib = z.get();
    source = std::move(z);
  } else {
    source = std::make_unique<FileSource>(file);
  }
  return std::unique_ptr<ArrayFileStream>(
      new ArrayFileStream(path, std::move(source), zlib, file_size));
}

ArrayFileStream::ArrayFileStream(std::string path,
                                 std::unique_ptr<ByteSource> source,
                                 ZlibSource* zlib, uint64_t file_size)
    : path_(std::move(path)),
      source_(std::move(source)),
      zlib_(zlib),
      gzip_(zlib != nullptr),
      file_size_(file_size) {}

Result<size_t> ArrayFileStream::ReadSome(char* dst, size_t n) {
  size_t done = 0;
  while (done < n) {
    Result<size_t> got = source_->Read(dst + done, n - done);
    if (!got.ok()) return got.status().WithContext(path_);
    if (*got == 0) break;
    done += *got;
  }
  offset_ += done;
  return done;
}

std::string ArrayFileStream::Where(uint64_t offset) const {
  return "byte offset " + std::to_string(offset) +
         (gzip_ ? " of the decompressed stream" : "");
}

Status ArrayFileStream::Truncated(std::string_view what, uint64_t wanted,
                                  uint64_t got) const {
  const uint64_t start = offset_ - got;
  return DataLossError(path_ + ": truncated " + std::string(what) +
                       ": expected " + std::to_string(wanted) + " bytes from " +
                       Where(start) + ", the " + (gzip_ ? "stream" : "file") +
                       " ends at byte offset " + std::to_string(offset_));
}

Status ArrayFileStream::Malformed(uint64_t offset,
                                  std::string_view message) const {
  return InvalidArgumentError(path_ + ": " + std::string(message) + " (at " +
                              Where(offset) + ")");
}

Status ArrayFileStream::ReadExactly(char* dst, size_t n,
                                    std::string_view what) {
  INFLOW_ASSIGN_OR_RETURN(size_t got, ReadSome(dst, n));
  if (got < n) return Truncated(what, n, got);
  return OkStatus();
}

Result<std::string> ArrayFileStream::ReadRest(uint64_t n,
                                              std::string_view what) {
  // A plain file's size decides before anything is read or allocated.
  if (!gzip_) {
    const uint64_t left = file_size_ - std::min(file_size_, offset_);
    if (left < n) {
      return DataLossError(path_ + ": truncated " + std::string(what) +
                           ": expected " + std::to_string(n) + " bytes from " +
                           Where(offset_) + ", the file ends at byte offset " +
                           std::to_string(file_size_));
    }
    if (left > n) {
      return Malformed(offset_ + n, std::to_string(left - n) +
                                        " unexpected bytes after the " +
                                        std::string(what));
    }
  }
  // Grows by at most 64 MiB at a time, and only as bytes arrive.
  constexpr uint64_t kStep = uint64_t{64} << 20;
  std::string bytes;
  while (bytes.size() < n) {
    const size_t have = bytes.size();
    const size_t chunk = static_cast<size_t>(std::min(n - have, kStep));
    bytes.resize(have + chunk);
    INFLOW_ASSIGN_OR_RETURN(size_t got, ReadSome(bytes.data() + have, chunk));
    if (got < chunk) {
      bytes.resize(have + got);
      return Truncated(what, n, bytes.size());
    }
  }
  char extra;
  INFLOW_ASSIGN_OR_RETURN(size_t more, ReadSome(&extra, 1));
  if (more != 0) {
    return Malformed(offset_ - 1,
                     "unexpected bytes after the " + std::string(what));
  }
  if (zlib_ != nullptr && !zlib_->ended_cleanly()) {
    return DataLossError(path_ +
                         ": the gzip stream is cut short (no trailer, "
                         "checksum unverified) after " +
                         std::to_string(offset_) + " decompressed bytes");
  }
  return bytes;
}

Result<Tensor> ArrayFileStream::TensorOver(DType dtype, TensorShape shape,
                                           std::string bytes) {
  auto owned = std::make_shared<std::string>(std::move(bytes));
  std::shared_ptr<TensorBuffer> buffer = TensorBuffer::WrapWritable(
      owned->data(), owned->size(), [owned]() mutable { owned.reset(); });
  return Tensor::FromBuffer(dtype, std::move(shape), std::move(buffer));
}

}  // namespace inflow::internal
