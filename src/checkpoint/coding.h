// Copyright 2026 The inflow Authors.
//
// Little-endian fixed-width integers and varints as LevelDB-format tables
// and tensor bundles store them (docs/formats.md, "Checkpoints").
// Decoders never read past the bytes they are given and reject varints
// that run off the end, are longer than their width allows, or overflow it.
//
// Thread-safe: pure functions.

#ifndef INFLOW_CHECKPOINT_CODING_H_
#define INFLOW_CHECKPOINT_CODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace inflow::internal {

inline void EncodeFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline void EncodeFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, 4);
}
inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, 8);
}

inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}
inline void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

inline size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Parses a varint of at most `max_bits` (32 or 64) bits from the front of
// *input and advances past it. False (and *input unchanged) when it runs
// past the end or does not fit in `max_bits`.
inline bool GetVarint(std::string_view* input, int max_bits, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < input->size(); ++i) {
    const int shift = static_cast<int>(7 * i);
    if (shift >= max_bits) return false;
    const uint64_t byte = static_cast<unsigned char>((*input)[i]);
    const uint64_t bits = byte & 0x7f;
    // The last group may only hold the bits left of the width.
    if (max_bits - shift < 7 && (bits >> (max_bits - shift)) != 0) {
      return false;
    }
    result |= bits << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      input->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}
inline bool GetVarint64(std::string_view* input, uint64_t* v) {
  return GetVarint(input, 64, v);
}
inline bool GetVarint32(std::string_view* input, uint32_t* v) {
  uint64_t wide = 0;
  if (!GetVarint(input, 32, &wide)) return false;
  *v = static_cast<uint32_t>(wide);
  return true;
}

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_CODING_H_
