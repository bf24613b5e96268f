// Copyright 2026 The inflow Authors.
//
// CRC-32C. The portable path is slicing-by-8. The hardware path runs the
// SSE4.2 crc32 instruction on three independent streams at once (the
// instruction has a latency of three cycles but a throughput of one per
// cycle), then joins the three partial CRCs. Joining uses linearity: the
// CRC state after A then B equals Z(state after A) xor (CRC of B from a zero
// state), where Z feeds as many zero bytes as B holds. Z is linear on 32
// bits, so for a fixed block length it is four 256-entry tables. The
// folding kernels are in crc32c_vpclmul256.cc and crc32c_vpclmul512.cc;
// this file also picks the kernel Extend() runs (crc32c_internal.h).

#include "inflow/io/crc32c.h"

#include <array>
#include <cstring>
#include <iterator>

#include "core/kernel_select.h"
#include "io/crc32c_internal.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#define INFLOW_CRC32C_X86 1
#endif

namespace inflow::crc32c {

using ::inflow::internal::IsaLevel;
using ::inflow::internal::KernelInfo;
using ::inflow::internal::SelectKernelOf;
using internal::Kernel;

namespace {

constexpr uint32_t kPoly = 0x82f63b78u;

using Table = std::array<std::array<uint32_t, 256>, 8>;

constexpr Table MakeTable() {
  Table t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][i] = c;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t i = 0; i < 256; ++i) {
      t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    }
  }
  return t;
}

constexpr Table kTable = MakeTable();

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace

// Advances the raw (not pre- or post-inverted) CRC state over [p, p + n).
uint32_t internal::RawPortable(uint32_t c, const uint8_t* p, size_t n) {
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = (c >> 8) ^ kTable[0][(c ^ *p++) & 0xff];
    --n;
  }
  while (n >= 8) {
    const uint64_t w = Load64(p) ^ c;
    c = kTable[7][w & 0xff] ^ kTable[6][(w >> 8) & 0xff] ^
        kTable[5][(w >> 16) & 0xff] ^ kTable[4][(w >> 24) & 0xff] ^
        kTable[3][(w >> 32) & 0xff] ^ kTable[2][(w >> 40) & 0xff] ^
        kTable[1][(w >> 48) & 0xff] ^ kTable[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    c = (c >> 8) ^ kTable[0][(c ^ *p++) & 0xff];
    --n;
  }
  return c;
}

namespace {

#ifdef INFLOW_CRC32C_X86

// Z for `Len` zero bytes, as a table per byte of the state.
template <size_t Len>
struct ZeroShift {
  std::array<std::array<uint32_t, 256>, 4> t;

  ZeroShift() {
    static const std::array<uint8_t, Len> zeros{};
    uint32_t column[32];
    for (int bit = 0; bit < 32; ++bit) {
      column[bit] = internal::RawPortable(1u << bit, zeros.data(), Len);
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t v = 0;
        for (int j = 0; j < 8; ++j) {
          if (b & (1u << j)) v ^= column[8 * k + j];
        }
        t[k][b] = v;
      }
    }
  }
  uint32_t operator()(uint32_t c) const {
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^
           t[3][c >> 24];
  }
};

constexpr size_t kLongBlock = 4096;
constexpr size_t kShortBlock = 256;

const ZeroShift<kLongBlock>& LongShift() {
  static const ZeroShift<kLongBlock> shift;
  return shift;
}
const ZeroShift<kShortBlock>& ShortShift() {
  static const ZeroShift<kShortBlock> shift;
  return shift;
}

// Three streams over consecutive `Len`-byte blocks while 3 * Len bytes
// remain.
template <size_t Len>
__attribute__((target("sse4.2"))) inline uint64_t ThreeWay(
    uint64_t c, const uint8_t*& p, size_t& n, const ZeroShift<Len>& shift) {
  while (n >= 3 * Len) {
    uint64_t c0 = c, c1 = 0, c2 = 0;
    for (size_t i = 0; i < Len; i += 8) {
      c0 = _mm_crc32_u64(c0, Load64(p + i));
      c1 = _mm_crc32_u64(c1, Load64(p + Len + i));
      c2 = _mm_crc32_u64(c2, Load64(p + 2 * Len + i));
    }
    c = shift(shift(static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1)) ^
        static_cast<uint32_t>(c2);
    p += 3 * Len;
    n -= 3 * Len;
  }
  return c;
}

}  // namespace

__attribute__((target("sse4.2"))) uint32_t internal::RawSse42(uint32_t crc,
                                                              const uint8_t* p,
                                                              size_t n) {
  // Unaligned loads cost nothing extra on the CPUs that have SSE4.2, so
  // there is no byte-by-byte prologue; the tail takes at most three steps.
  uint64_t c = crc;
  if (n >= 3 * kLongBlock) c = ThreeWay(c, p, n, LongShift());
  if (n >= 3 * kShortBlock) c = ThreeWay(c, p, n, ShortShift());
  while (n >= 8) {
    c = _mm_crc32_u64(c, Load64(p));
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  if (n & 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    c32 = _mm_crc32_u32(c32, v);
    p += 4;
  }
  if (n & 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    c32 = _mm_crc32_u16(c32, v);
    p += 2;
  }
  if (n & 1) c32 = _mm_crc32_u8(c32, *p);
  return c32;
}

#endif  // INFLOW_CRC32C_X86

namespace {

KernelInfo Info(Kernel kernel) {
  switch (kernel) {
#ifdef INFLOW_CRC32C_X86
    case Kernel::kVpclmul512:
      return {"vpclmul512", IsaLevel::kAvx512, internal::Vpclmul512Supported()};
    case Kernel::kVpclmul256:
      return {"vpclmul256", IsaLevel::kAvx2, internal::Vpclmul256Supported()};
    case Kernel::kSse42:
      return {"sse42", IsaLevel::kSse42, __builtin_cpu_supports("sse4.2") != 0};
#else
    case Kernel::kVpclmul512:
      return {"vpclmul512", IsaLevel::kAvx512, false};
    case Kernel::kVpclmul256:
      return {"vpclmul256", IsaLevel::kAvx2, false};
    case Kernel::kSse42:
      return {"sse42", IsaLevel::kSse42, false};
#endif
    case Kernel::kPortable:
      break;
  }
  return {"portable", IsaLevel::kPortable, true};
}

}  // namespace

Kernel internal::ChooseKernel() {
  return SelectKernelOf("INFLOW_CRC32C_KERNEL", internal::kAllKernels, Info);
}

std::string_view internal::KernelName(Kernel kernel) {
  return Info(kernel).name;
}

bool internal::KernelSupported(Kernel kernel) { return Info(kernel).supported; }

Kernel internal::SelectedKernel() {
  static const Kernel kernel = ChooseKernel();
  return kernel;
}

uint32_t internal::ExtendWith(Kernel kernel, uint32_t crc, const void* data,
                              size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  switch (kernel) {
#ifdef INFLOW_CRC32C_X86
    case Kernel::kVpclmul512:
      return ~RawVpclmul512(~crc, p, n);
    case Kernel::kVpclmul256:
      return ~RawVpclmul256(~crc, p, n);
    case Kernel::kSse42:
      return ~RawSse42(~crc, p, n);
#endif
    default:
      return ~RawPortable(~crc, p, n);
  }
}

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  static const Kernel kernel = internal::SelectedKernel();
#ifdef INFLOW_CRC32C_X86
  // Short buffers (record headers, small records) go to the crc32
  // instruction without a call through the switch.
  if (n < internal::kFoldMinBytes && kernel != Kernel::kPortable) {
    return ~internal::RawSse42(~crc, static_cast<const uint8_t*>(data), n);
  }
#endif
  return internal::ExtendWith(kernel, crc, data, n);
}

}  // namespace inflow::crc32c
