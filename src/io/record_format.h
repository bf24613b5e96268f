// Copyright 2026 The inflow Authors.
//
// Internal: the TFRecord framing shared by the reader and the writer
// (docs/formats.md "TFRecord"). Each record is
//   u64le length | u32le masked crc32c(length bytes) | data |
//   u32le masked crc32c(data).

#ifndef INFLOW_IO_RECORD_FORMAT_H_
#define INFLOW_IO_RECORD_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "inflow/io/crc32c.h"

namespace inflow::internal {

inline constexpr size_t kRecordHeaderSize = 12;
inline constexpr size_t kRecordFooterSize = 4;

inline void EncodeFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline void EncodeFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline uint32_t DecodeFixed32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
         (static_cast<uint32_t>(b[2]) << 16) |
         (static_cast<uint32_t>(b[3]) << 24);
}
inline uint64_t DecodeFixed64(const char* p) {
  return static_cast<uint64_t>(DecodeFixed32(p)) |
         (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
}

inline void EncodeRecordHeader(char* dst, uint64_t length) {
  EncodeFixed64(dst, length);
  EncodeFixed32(dst + 8, crc32c::Mask(crc32c::Value(dst, 8)));
}

// The payload length, or nullopt when the length CRC does not match.
inline std::optional<uint64_t> DecodeRecordHeader(const char* header) {
  if (crc32c::Unmask(DecodeFixed32(header + 8)) != crc32c::Value(header, 8)) {
    return std::nullopt;
  }
  return DecodeFixed64(header);
}

}  // namespace inflow::internal

#endif  // INFLOW_IO_RECORD_FORMAT_H_
