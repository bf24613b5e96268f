// Copyright 2026 The inflow Authors.
//
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) and TensorFlow's
// masking of stored CRCs. Extend() runs the fastest implementation this
// CPU has, chosen once at run time (carry-less-multiply folding with
// 512-bit or 256-bit VPCLMULQDQ for large buffers, the SSE4.2 crc32
// instruction on three interleaved streams, or a portable slicing-by-8
// table); the environment can pick another (docs/PERFORMANCE.md,
// "Kernels"). All give identical results.
//
// Thread-safe: these are pure functions.

#ifndef INFLOW_IO_CRC32C_H_
#define INFLOW_IO_CRC32C_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace inflow::crc32c {

// Returns the CRC-32C of A + data, where `crc` is the CRC-32C of some
// string A. Extend(0, data, n) is the CRC-32C of data alone.
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(std::string_view data) {
  return Extend(0, data.data(), data.size());
}

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

// The form in which TFRecord, table and bundle files store a CRC: rotated
// right by 15 bits plus a constant, so that a CRC computed over data that
// itself embeds CRCs does not degenerate.
constexpr uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}
// The inverse of Mask().
constexpr uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace inflow::crc32c

#endif  // INFLOW_IO_CRC32C_H_
