// Copyright 2026 The inflow Authors.
//
// Internal: the constants of CRC-32C folding by carry-less multiplication,
// shared by the 512-bit and 256-bit VPCLMULQDQ kernels.
//
// The CRC state after a message M is M(x) * x^32 mod P(x). Folding keeps a
// 128-bit block X = H * x^64 + L congruent to the bytes read so far and
// moves it D bits forward: X * x^D = H * x^(64+D) + L * x^D, so with
// constants k_hi = x^(64+D-1) mod P and k_lo = x^(D-1) mod P (one less,
// because a carry-less product of bit-reflected operands comes out
// multiplied by x) two multiplications fold a block onto the one D bits
// later. The constants are computed once from the polynomial rather than
// written out.

#ifndef INFLOW_IO_CRC32C_FOLD_H_
#define INFLOW_IO_CRC32C_FOLD_H_

#include <array>
#include <cstdint>

namespace inflow::crc32c::internal {

// x^k mod P in bit-reflected form, as the 64-bit operand of a carry-less
// multiplication (coefficient of x^j at bit 63 - j).
inline uint64_t XPowModP(unsigned k) {
  constexpr uint32_t kPolyNormal = 0x1EDC6F41u;  // without the x^32 term
  uint32_t r = 1;  // x^0, normal form: bit j = coefficient of x^j
  for (unsigned i = 0; i < k; ++i) {
    const bool carry = (r & 0x80000000u) != 0;
    r <<= 1;
    if (carry) r ^= kPolyNormal;
  }
  uint64_t reflected = 0;
  for (int j = 0; j < 32; ++j) {
    if (r & (1u << j)) reflected |= uint64_t{1} << (63 - j);
  }
  return reflected;
}

struct FoldConstants {
  // Per fold distance D in bits: {x^(64+D-1) mod P, x^(D-1) mod P}, the
  // factors of a block's low and high qword (in a block loaded from memory
  // the low qword holds the higher powers of x).
  std::array<uint64_t, 2> d2048, d512, d384, d256, d128;
  FoldConstants() {
    auto make = [](unsigned d) {
      return std::array<uint64_t, 2>{XPowModP(64 + d - 1), XPowModP(d - 1)};
    };
    d2048 = make(2048);
    d512 = make(512);
    d384 = make(384);
    d256 = make(256);
    d128 = make(128);
  }
};

inline const FoldConstants& Constants() {
  static const FoldConstants constants;
  return constants;
}

}  // namespace inflow::crc32c::internal

#endif  // INFLOW_IO_CRC32C_FOLD_H_
