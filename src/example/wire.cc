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

// The 7-bit groups of the 8 bytes of w, joined (bit 7 of each byte must
// already be clear or is dropped): pairs of groups, then pairs of pairs.
inline uint64_t Compact(uint64_t w) {
  w &= 0x7f7f7f7f7f7f7f7full;
  w = (w & 0x007f007f007f007full) | ((w & 0x7f007f007f007f00ull) >> 1);
  w = (w & 0x00003fff00003fffull) | ((w & 0x3fff00003fff0000ull) >> 2);
  return (w & 0x000000000fffffffull) | ((w & 0x0fffffff00000000ull) >> 4);
}

}  // namespace

namespace {

// The body of DecodePackedVarints, over a compaction of 8 masked bytes.
template <uint64_t (*kCompact)(uint64_t)>
[[gnu::always_inline]] inline int64_t DecodeWith(std::string_view payload,
                                                 int64_t* out) {
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
          static_cast<int64_t>(kCompact(w & (~uint64_t{0} >> (64 - 8 * len))));
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// BMI2's pext does the compaction in one instruction; chosen at run time,
// since the build targets baseline x86-64.
__attribute__((target("bmi2"))) inline uint64_t CompactPext(uint64_t w) {
  return __builtin_ia32_pext_di(w, 0x7f7f7f7f7f7f7f7full);
}
__attribute__((target("bmi2"))) int64_t DecodeBmi2(std::string_view payload,
                                                   int64_t* out) {
  return DecodeWith<CompactPext>(payload, out);
}
bool HasBmi2() {
  static const bool kHas =
      (__builtin_cpu_init(), __builtin_cpu_supports("bmi2"));
  return kHas;
}
#else
bool HasBmi2() { return false; }
int64_t DecodeBmi2(std::string_view payload, int64_t* out) {
  return DecodeWith<Compact>(payload, out);
}
#endif

}  // namespace

int64_t DecodePackedVarints(std::string_view payload, int64_t* out) {
  if (HasBmi2()) return DecodeBmi2(payload, out);
  return DecodeWith<Compact>(payload, out);
}

int64_t DecodePackedVarintsPortable(std::string_view payload, int64_t* out) {
  return DecodeWith<Compact>(payload, out);
}

}  // namespace inflow::internal
