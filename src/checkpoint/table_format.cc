// Copyright 2026 The inflow Authors.

#include "checkpoint/table_format.h"

#include <snappy.h>

#include <string>
#include <tuple>

#include "inflow/io/crc32c.h"

#include "proto/wire.h"

namespace inflow::internal {

void BlockHandle::EncodeTo(std::string* dst) const {
  PutVarint(dst, offset);
  PutVarint(dst, size);
}

bool BlockHandle::DecodeFrom(std::string_view* input) {
  std::string_view in = *input;
  if (!GetVarint64(&in, &offset) || !GetVarint64(&in, &size)) return false;
  *input = in;
  return true;
}

std::string Footer::Encode() const {
  std::string out;
  metaindex.EncodeTo(&out);
  index.EncodeTo(&out);
  out.resize(2 * kMaxBlockHandleLength, '\0');
  PutFixed32(&out, static_cast<uint32_t>(kTableMagicNumber & 0xffffffffu));
  PutFixed32(&out, static_cast<uint32_t>(kTableMagicNumber >> 32));
  return out;
}

Status TableDataLoss(std::string_view message, uint64_t offset,
                     const std::string& file_name) {
  std::string text(message);
  text += " at offset ";
  text += std::to_string(offset);
  text += " in ";
  text += file_name;
  return DataLossError(text);
}

Result<Footer> DecodeFooter(std::string_view bytes,
                            const std::string& file_name, uint64_t file_size) {
  const uint64_t footer_offset = file_size - kFooterSize;
  const uint64_t magic = DecodeFixed64(bytes.data() + kFooterSize - 8);
  if (magic != kTableMagicNumber) {
    return TableDataLoss("not an sstable (bad magic number)", file_size - 8,
                         file_name);
  }
  Footer footer;
  std::string_view in = bytes.substr(0, 2 * kMaxBlockHandleLength);
  if (!footer.metaindex.DecodeFrom(&in)) {
    return TableDataLoss("bad block handle (metaindex, in the footer)",
                         footer_offset, file_name);
  }
  const uint64_t index_at =
      footer_offset + (2 * kMaxBlockHandleLength - in.size());
  if (!footer.index.DecodeFrom(&in)) {
    return TableDataLoss("bad block handle (index, in the footer)", index_at,
                         file_name);
  }
  // Both blocks and their trailers must end before the footer.
  for (const auto& [handle, what, at] :
       {std::tuple{footer.metaindex, "metaindex", footer_offset},
        std::tuple{footer.index, "index", index_at}}) {
    if (handle.offset > footer_offset ||
        handle.size > footer_offset - handle.offset ||
        footer_offset - handle.offset - handle.size < kBlockTrailerSize) {
      return TableDataLoss(
          std::string("bad block handle (") + what + " block at offset " +
              std::to_string(handle.offset) + ", size " +
              std::to_string(handle.size) + ", runs into the footer)",
          at, file_name);
    }
  }
  return footer;
}

std::string BlockTrailer(std::string_view contents, BlockCompression type) {
  const char type_byte = static_cast<char>(type);
  uint32_t crc = crc32c::Value(contents);
  crc = crc32c::Extend(crc, &type_byte, 1);
  std::string trailer(1, type_byte);
  PutFixed32(&trailer, crc32c::Mask(crc));
  return trailer;
}

Result<BlockContents> ReadBlock(const RandomAccessFile& file,
                                const BlockHandle& handle,
                                std::string_view what) {
  const std::string& name = file.name();
  auto loss = [&](std::string_view message) {
    return TableDataLoss(std::string(message) + " (" + std::string(what) +
                             ", " + std::to_string(handle.size) + " bytes)",
                         handle.offset, name);
  };
  const size_t n = static_cast<size_t>(handle.size);
  std::string buf(n + kBlockTrailerSize, '\0');
  Result<size_t> got = ReadFully(file, handle.offset, buf.size(), buf.data());
  if (!got.ok()) {
    return got.status().WithContext(
        "reading the " + std::string(what) + " at offset " +
        std::to_string(handle.offset) + " of " + name);
  }
  if (*got != buf.size()) return loss("truncated block read");
  const char type = buf[n];
  const uint32_t stored = crc32c::Unmask(DecodeFixed32(buf.data() + n + 1));
  if (crc32c::Value(buf.data(), n + 1) != stored) {
    return loss("block checksum mismatch");
  }
  BlockContents result;
  result.handle = handle;
  switch (static_cast<BlockCompression>(type)) {
    case BlockCompression::kNone:
      buf.resize(n);
      result.data = std::move(buf);
      return result;
    case BlockCompression::kSnappy: {
      size_t ulength = 0;
      // Snappy expands at most 64 bytes from a 3-byte copy; a larger
      // claimed length is damage, and must not be allocated.
      if (!snappy::GetUncompressedLength(buf.data(), n, &ulength) ||
          ulength / 64 > n / 3 + 1) {
        return loss("corrupted compressed block contents");
      }
      result.data.resize(ulength);
      if (!snappy::RawUncompress(buf.data(), n, result.data.data())) {
        return loss("corrupted compressed block contents");
      }
      result.compressed = true;
      return result;
    }
  }
  return loss("bad block type " +
              std::to_string(static_cast<unsigned char>(type)));
}

}  // namespace inflow::internal
