// Copyright 2026 The inflow Authors.
//
// Internal: the CRC-32C kernels behind crc32c::Extend, which one runs, and
// entry points that run a given one (for tests and benchmarks). The Raw*
// functions advance the raw (not pre- or post-inverted) CRC state.

#ifndef INFLOW_IO_CRC32C_INTERNAL_H_
#define INFLOW_IO_CRC32C_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace inflow::crc32c::internal {

// Best first. The names (KernelName) are what INFLOW_CRC32C_KERNEL takes.
enum class Kernel {
  kVpclmul512,  // "vpclmul512": AVX-512F/BW + VPCLMULQDQ, 256 bytes a step
  kVpclmul256,  // "vpclmul256": AVX2 + VPCLMULQDQ, 256 bytes a step
  kSse42,       // "sse42": the crc32 instruction, three streams
  kPortable,    // "portable": slicing-by-8
};
inline constexpr Kernel kAllKernels[] = {Kernel::kVpclmul512,
                                         Kernel::kVpclmul256, Kernel::kSse42,
                                         Kernel::kPortable};

std::string_view KernelName(Kernel kernel);
// Whether this CPU (and OS) run `kernel`.
bool KernelSupported(Kernel kernel);
// The kernel Extend() runs: chosen on first use from the CPU and the
// environment (INFLOW_CRC32C_KERNEL, INFLOW_KERNELS; core/kernel_select.h).
Kernel SelectedKernel();
// What SelectedKernel() chooses, worked out again from the environment now.
Kernel ChooseKernel();
// Extend() with `kernel`, folding kernels on every length (Extend() gives
// buffers below kFoldMinBytes to the crc32 instruction). Precondition:
// KernelSupported(kernel).
uint32_t ExtendWith(Kernel kernel, uint32_t crc, const void* data, size_t n);

// Below this size the crc32 instruction beats folding's fixed costs.
inline constexpr size_t kFoldMinBytes = 512;

uint32_t RawPortable(uint32_t state, const uint8_t* p, size_t n);
// Requires SSE4.2.
uint32_t RawSse42(uint32_t state, const uint8_t* p, size_t n);
// Whether the CPU (and OS) run RawVpclmul512: AVX-512F/BW + VPCLMULQDQ +
// SSE4.2.
bool Vpclmul512Supported();
// Requires Vpclmul512Supported(). Folds 256-byte blocks (from the first
// 64-byte boundary on) in four 512-bit registers with carry-less
// multiplication, then finishes with RawSse42.
uint32_t RawVpclmul512(uint32_t state, const uint8_t* p, size_t n);
// Whether the CPU (and OS) run RawVpclmul256: AVX2 + VPCLMULQDQ + SSE4.2.
bool Vpclmul256Supported();
// Requires Vpclmul256Supported(). RawVpclmul512 with eight 256-bit
// registers.
uint32_t RawVpclmul256(uint32_t state, const uint8_t* p, size_t n);

}  // namespace inflow::crc32c::internal

#endif  // INFLOW_IO_CRC32C_INTERNAL_H_
