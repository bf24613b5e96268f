// Copyright 2026 The inflow Authors.
//
// Counting packed varints (example/packed_varints.h) and the one-at-a-time
// decoders behind the varint kernels (varint_kernels.h): portable and BMI2. The
// AVX-512 group decoder is in packed_varints_avx512.cc, the choice of
// kernel in varint_kernels.cc.

#include "example/packed_varints.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "example/varint_kernels.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace inflow::internal {

namespace {

constexpr size_t kBlock = 64;

// Bit i set when byte i of the 8 in w has its high bit set: the high bits
// gathered into the top byte by one multiply.
inline uint64_t ContinuationMask8(uint64_t w) {
  return (((w & 0x8080808080808080ull) >> 7) * 0x0102040810204080ull) >> 56;
}

// Bit i set when byte i of the 64 at p has its high bit set (a varint
// continuation byte). SSE2's movemask does 16 bytes in one instruction;
// elsewhere the high bits of 8 bytes are gathered with one multiply.
inline uint64_t ContinuationMask(const uint8_t* p) {
#if defined(__SSE2__)
  uint64_t m = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i v =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    m |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(v))} << (16 * i);
  }
  return m;
#else
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    m |= ContinuationMask8(w) << (8 * i);
  }
  return m;
#endif
}

// The continuation mask of the `n` (< 64) bytes at p; bits past n clear.
// Reads only those n bytes: whole words, then the last (overlapping) word
// shifted down, or single bytes when n < 8.
inline uint64_t ContinuationMaskTail(const uint8_t* p, size_t n) {
  uint64_t m = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    m |= ContinuationMask8(w) << i;
  }
  if (i == n) return m;
  if (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p + n - 8, 8);
    return m | (ContinuationMask8(w) >> (8 - (n - i))) << i;
  }
  for (; i < n; ++i) m |= uint64_t{p[i]} >> 7 << i;
  return m;
}

// Whether `c` holds 10 set bits in a row (a varint longer than 10 bytes).
inline bool HasRunOf10(uint64_t c) {
  uint64_t x = c & (c >> 1);  // runs of 2 start here
  x &= x >> 2;                // of 4
  x &= x >> 4;                // of 8
  return (x & (x >> 2)) != 0;
}

// std::popcount without the popcnt instruction (baseline x86-64) is a
// library call; this is the same few steps inline.
inline int PopCount(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}

}  // namespace

int64_t CountPackedVarints(std::string_view payload) {
  // One bit per byte, 64 bytes at a time: every byte below 0x80 ends one
  // varint, so the count is a popcount, and a varint of more than 10 bytes
  // is a run of 10 continuation bits. No branch depends on the values, whose
  // lengths vary from one to the next in real data.
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const size_t n = payload.size();
  if (n == 0) return 0;
  if (p[n - 1] >= 0x80) return -1;  // the last varint runs past the end
  int64_t ends = 0;
  int run = 0;  // continuation bytes at the end of the previous block
  for (size_t i = 0; i < n; i += kBlock) {
    const size_t len = std::min(kBlock, n - i);
    const uint64_t c = len == kBlock ? ContinuationMask(p + i)
                                     : ContinuationMaskTail(p + i, len);
    if (run + std::countr_one(c) >= 10 || HasRunOf10(c)) return -1;
    run = c == ~uint64_t{0} ? run + 64 : std::countl_one(c);
    ends += static_cast<int64_t>(len) - PopCount(c);
  }
  return ends;
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

// The value of the varint of `len` (1..10) bytes at p, byte by byte: for
// varints of 9 or 10 bytes and those within 8 bytes of the end.
[[gnu::noinline]] uint64_t DecodeBytes(const uint8_t* p, size_t len) {
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) v |= uint64_t{p[i] & 0x7fu} << (7 * i);
  return v;
}

// The value of a varint of `bytes` (1..8) bytes lying in the low bytes of
// w, whatever the bytes above it.
inline uint64_t ValuePortable(uint64_t w, size_t bytes) {
  return Compact(w & (~uint64_t{0} >> (64 - 8 * bytes)));
}

// Decodes the varints of a payload of `n` bytes at p that end at the set
// bits of `ends` (a bitmap of the block at offset i), the first starting
// at *start, which moves past the last. 8-byte loads are taken only below
// `loadable`; otherwise from the payload's last 8 bytes, or byte by byte.
template <uint64_t (*kValue)(uint64_t, size_t)>
[[gnu::always_inline]] inline int64_t* DecodeEnds(const uint8_t* p, size_t n,
                                                  size_t loadable, size_t i,
                                                  uint64_t ends, size_t* start,
                                                  int64_t* out) {
  // A local copy: stores through `out` may alias *start.
  size_t from = *start;
  while (ends != 0) {
    const size_t stop = i + static_cast<size_t>(std::countr_zero(ends));
    ends &= ends - 1;
    const size_t bytes = stop + 1 - from;
    uint64_t v;
    if (bytes <= 8 && from + 8 <= loadable) [[likely]] {
      uint64_t w;
      std::memcpy(&w, p + from, 8);
      v = kValue(w, bytes);
    } else if (bytes <= 8 && n >= 8) {
      // Near the end: the last 8 bytes of the payload, shifted down.
      uint64_t w;
      std::memcpy(&w, p + n - 8, 8);
      v = kValue(w >> (8 * (from + 8 - n)), bytes);
    } else {
      v = DecodeBytes(p + from, bytes);
    }
    *out++ = static_cast<int64_t>(v);
    from = stop + 1;
  }
  *start = from;
  return out;
}

// The body of DecodePackedVarints, over kValue (ValuePortable or its BMI2
// twin).
template <uint64_t (*kValue)(uint64_t, size_t)>
[[gnu::always_inline]] inline int64_t DecodeWith(std::string_view payload,
                                                 int64_t* out) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const size_t n = payload.size();
  int64_t* const first = out;
  // Where each varint ends comes from a bitmap of the block (as in
  // CountPackedVarints), so finding the next value waits only on clearing
  // a bit, not on decoding the one before: the values' loads and
  // compactions overlap.
  size_t start = 0;  // of the current varint
  size_t i = 0;
  // Blocks followed by at least 8 more bytes: a value that ends in one
  // starts at most 9 bytes before it, so an 8-byte load from its start
  // stays in the payload.
  for (; i + kBlock + 8 <= n; i += kBlock) {
    uint64_t ends = ~ContinuationMask(p + i);
    while (ends != 0) {
      const size_t stop = i + static_cast<size_t>(std::countr_zero(ends));
      ends &= ends - 1;
      const size_t bytes = stop + 1 - start;
      uint64_t w;
      std::memcpy(&w, p + start, 8);
      *out++ = static_cast<int64_t>(bytes <= 8 ? kValue(w, bytes)
                                               : DecodeBytes(p + start, bytes));
      start = stop + 1;
    }
  }
  // The last one or two blocks: loads near the end are checked.
  for (; i < n; i += kBlock) {
    const size_t len = std::min(kBlock, n - i);
    uint64_t ends = ~(len == kBlock ? ContinuationMask(p + i)
                                    : ContinuationMaskTail(p + i, len));
    if (len < kBlock) ends &= (uint64_t{1} << len) - 1;
    out = DecodeEnds<kValue>(p, n, n, i, ends, &start, out);
  }
  return out - first;
}

// Whether `c` holds 8 set bits in a row (a varint longer than 8 bytes
// ends in or after this block).
inline bool HasRunOf8(uint64_t c) {
  uint64_t x = c & (c >> 1);
  x &= x >> 2;
  return (x & (x >> 4)) != 0;
}

// DecodePackedVarintsChecked's body, over kValue. CountPackedVarints's
// checks per 64-byte block, and the block's values decoded while they fit
// in `capacity`.
template <uint64_t (*kValue)(uint64_t, size_t), int (*kPopCount)(uint64_t)>
[[gnu::always_inline]] inline int64_t DecodeCheckedWith(
    std::string_view payload, int64_t* out, int64_t capacity, size_t slack) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const size_t n = payload.size();
  if (n == 0) return 0;
  if (p[n - 1] >= 0x80) return -1;  // the last varint runs past the end
  // With 64 bytes of slack, whole blocks and 8-byte loads never leave the
  // buffer: the last block's mask is cut to the payload instead, and bytes
  // past a value's end are dropped by kValue anyway.
  const bool wide = slack >= kBlock;
  const size_t loadable = wide ? n + kBlock : n;
  int64_t count = 0;
  int run = 0;       // continuation bytes at the end of the previous block
  size_t start = 0;  // of the current varint
  bool writing = true;
  for (size_t i = 0; i < n; i += kBlock) {
    const size_t len = std::min(kBlock, n - i);
    uint64_t c;
    if (len == kBlock) {
      c = ContinuationMask(p + i);
    } else if (wide) {
      c = ContinuationMask(p + i) & ((uint64_t{1} << len) - 1);
    } else {
      c = ContinuationMaskTail(p + i, len);
    }
    // A varint of 9 or more bytes ends in (or runs through) this block when
    // 8 continuation bytes come in a row; rare, so the check for 11 or
    // more bytes (malformed) waits for it.
    const int lead = run + std::countr_one(c);
    const bool long_varint = lead >= 8 || HasRunOf8(c);
    if (long_varint && (lead >= 10 || HasRunOf10(c))) return -1;
    uint64_t ends = ~c;
    if (len < kBlock) ends &= (uint64_t{1} << len) - 1;
    const int64_t k = kPopCount(ends);
    if (writing && count + k > capacity) writing = false;
    if (writing) {
      if (i + kBlock + 8 <= loadable && !long_varint) {
        // Every varint ending here has at most 8 bytes, and an 8-byte load
        // from its start stays in the payload.
        const uint8_t* from = p + start;
        const uint8_t* const after = p + i + 1;  // one past bit 0's byte
        while (ends != 0) {
          const uint8_t* to = after + std::countr_zero(ends);
          ends &= ends - 1;
          uint64_t w;
          std::memcpy(&w, from, 8);
          *out++ =
              static_cast<int64_t>(kValue(w, static_cast<size_t>(to - from)));
          from = to;
        }
        start = static_cast<size_t>(from - p);
      } else {
        out = DecodeEnds<kValue>(p, n, loadable, i, ends, &start, out);
      }
    }
    count += k;
    run = c == ~uint64_t{0} ? run + 64 : std::countl_one(c);
  }
  return count;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// BMI2's pext does the compaction in one instruction; chosen at run time,
// since the build targets baseline x86-64.
__attribute__((target("bmi,bmi2"))) inline uint64_t ValuePext(uint64_t w,
                                                              size_t bytes) {
  // The payload bits of the first `bytes` bytes.
  return __builtin_ia32_pext_di(
      w, __builtin_ia32_bzhi_di(0x7f7f7f7f7f7f7f7full,
                                static_cast<unsigned>(8 * bytes)));
}
}  // namespace

__attribute__((target("bmi,bmi2"))) int64_t DecodeVarintsBmi2(
    std::string_view payload, int64_t* out) {
  return DecodeWith<ValuePext>(payload, out);
}

namespace {
__attribute__((target("popcnt"))) inline int PopCnt(uint64_t x) {
  return __builtin_popcountll(x);
}
}  // namespace

__attribute__((target("bmi,bmi2,popcnt"))) int64_t DecodeVarintsCheckedBmi2(
    std::string_view payload, int64_t* out, int64_t capacity, size_t slack) {
  return DecodeCheckedWith<ValuePext, PopCnt>(payload, out, capacity, slack);
}
bool Bmi2Supported() {
  static const bool kHas =
      (__builtin_cpu_init(),
       __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"));
  return kHas;
}
#else
}  // namespace

// Never chosen (Bmi2Supported() is false); defined so that every kernel
// in the table links.
bool Bmi2Supported() { return false; }
int64_t DecodeVarintsBmi2(std::string_view payload, int64_t* out) {
  return DecodeVarintsPortable(payload, out);
}
int64_t DecodeVarintsCheckedBmi2(std::string_view payload, int64_t* out,
                                 int64_t capacity, size_t slack) {
  return DecodeVarintsCheckedPortable(payload, out, capacity, slack);
}
#endif

int64_t DecodeVarintsPortable(std::string_view payload, int64_t* out) {
  return DecodeWith<ValuePortable>(payload, out);
}

int64_t DecodeVarintsCheckedPortable(std::string_view payload, int64_t* out,
                                     int64_t capacity, size_t slack) {
  return DecodeCheckedWith<ValuePortable, PopCount>(payload, out, capacity,
                                                    slack);
}

}  // namespace inflow::internal
