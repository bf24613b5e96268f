// Copyright 2026 The inflow Authors.

#include "example/wire.h"

#include <bit>
#include <cstring>

namespace inflow::internal {

static_assert(std::endian::native == std::endian::little,
              "the wire readers copy fixed-width values as they lie");

bool WireReader::ReadVarintSlow(uint64_t* v) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (p_ == end_) return false;
    const uint8_t b = *p_++;
    result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *v = result;
      return true;
    }
  }
  return false;  // an 11th byte would be needed
}

bool WireReader::SkipField(uint32_t field, int wire_type) {
  switch (wire_type) {
    case kWireVarint: {
      uint64_t v;
      return ReadVarint(&v);
    }
    case kWireFixed64: {
      uint64_t v;
      return ReadFixed64(&v);
    }
    case kWireLen: {
      std::string_view s;
      return ReadLengthDelimited(&s);
    }
    case kWireStartGroup:
      return SkipGroup(field, 0);
    case kWireFixed32: {
      uint32_t v;
      return ReadFixed32(&v);
    }
    default:  // a stray end-group
      return false;
  }
}

bool WireReader::SkipGroup(uint32_t field, int depth) {
  // libprotobuf's default recursion limit.
  if (depth >= 100) return false;
  while (!done()) {
    uint32_t f;
    int wt;
    if (!ReadTag(&f, &wt)) return false;
    if (wt == kWireEndGroup) return f == field;
    if (wt == kWireStartGroup) {
      if (!SkipGroup(f, depth + 1)) return false;
    } else if (!SkipField(f, wt)) {
      return false;
    }
  }
  return false;  // unterminated group
}

int64_t CountPackedVarints(std::string_view payload) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const size_t n = payload.size();
  int64_t count = 0;
  size_t run = 0;  // continuation bytes since the last terminating byte
  size_t i = 0;
  // Eight bytes at a time: every byte below 0x80 ends one varint. Varint
  // lengths vary from value to value, so a byte loop would mispredict its
  // branch about once per value.
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    const uint64_t ends = ~w & kHighBits;
    if (ends == 0) {
      run += 8;
      if (run >= 10) return -1;
      continue;
    }
    // Little-endian: the lowest set bit is the first terminator.
    if (run + static_cast<size_t>(std::countr_zero(ends)) / 8 >= 10) return -1;
    // Each byte of ends >> 7 is 0 or 1; the multiply sums them into the
    // top byte (a portable popcount for this bit pattern).
    count += static_cast<int64_t>(((ends >> 7) * 0x0101010101010101ull) >> 56);
    run = static_cast<size_t>(std::countl_zero(ends)) / 8;
  }
  for (; i < n; ++i) {
    if (p[i] < 0x80) {
      ++count;
      run = 0;
    } else if (++run >= 10) {
      return -1;
    }
  }
  return run == 0 ? count : -1;
}

namespace {

// The 7-bit groups of the 8 bytes of w, joined.
inline uint64_t Compact(uint64_t w) {
  return (w & 0x7f) | ((w >> 1) & (uint64_t{0x7f} << 7)) |
         ((w >> 2) & (uint64_t{0x7f} << 14)) |
         ((w >> 3) & (uint64_t{0x7f} << 21)) |
         ((w >> 4) & (uint64_t{0x7f} << 28)) |
         ((w >> 5) & (uint64_t{0x7f} << 35)) |
         ((w >> 6) & (uint64_t{0x7f} << 42)) |
         ((w >> 7) & (uint64_t{0x7f} << 49));
}

}  // namespace

int64_t DecodePackedVarints(std::string_view payload, int64_t* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const auto* end = p + payload.size();
  int64_t* const first = out;
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  // A value of up to 8 bytes from one 8-byte load, with no branch on its
  // length: lengths vary from value to value in real data, and a byte loop
  // mispredicts about once per value.
  for (;;) {
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      const uint64_t ends = ~w & kHighBits;
      if (ends == 0) break;  // a 9- or 10-byte value: decoded below
      const int len = std::countr_zero(ends) / 8 + 1;
      *out++ =
          static_cast<int64_t>(Compact(w & (~uint64_t{0} >> (64 - 8 * len))));
      p += len;
    }
    if (p == end) break;
    // One value byte by byte (near the end, or longer than 8 bytes).
    uint64_t b = *p++;
    uint64_t v = b & 0x7f;
    int shift = 7;
    while (b >= 0x80) {
      b = *p++;
      v |= (b & 0x7f) << shift;
      shift += 7;
    }
    *out++ = static_cast<int64_t>(v);
  }
  return out - first;
}

}  // namespace inflow::internal
