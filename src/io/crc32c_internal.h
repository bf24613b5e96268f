// Copyright 2026 The inflow Authors.
//
// Internal: the raw (not pre- or post-inverted) CRC-32C kernels behind
// crc32c::Extend, shared by crc32c.cc and crc32c_vpclmul.cc.

#ifndef INFLOW_IO_CRC32C_INTERNAL_H_
#define INFLOW_IO_CRC32C_INTERNAL_H_

#include <cstddef>
#include <cstdint>

namespace inflow::crc32c::internal {

uint32_t RawPortable(uint32_t state, const uint8_t* p, size_t n);
// Requires SSE4.2.
uint32_t RawSse42(uint32_t state, const uint8_t* p, size_t n);
// Whether the CPU (and OS) run RawVpclmul: AVX-512F + VPCLMULQDQ + SSE4.2.
bool VpclmulSupported();
// Requires VpclmulSupported(). Folds 256-byte blocks (from the first
// 64-byte boundary on) with carry-less multiplication, then finishes with
// RawSse42.
uint32_t RawVpclmul(uint32_t state, const uint8_t* p, size_t n);

}  // namespace inflow::crc32c::internal

#endif  // INFLOW_IO_CRC32C_INTERNAL_H_
