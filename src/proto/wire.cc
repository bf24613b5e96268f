// Copyright 2026 The inflow Authors.

#include "proto/wire.h"

#include <bit>

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

bool WireReader::ReadTagSlow(uint32_t* tag) {
  uint32_t result = 0;
  for (int i = 0; i < 5; ++i) {
    if (p_ == end_) return false;
    const uint8_t b = *p_++;
    // In the fifth byte, bits past 32 fall off the shift.
    result |= static_cast<uint32_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      *tag = result;
      return true;
    }
  }
  return false;  // a sixth byte would be needed
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
  if (depth >= kMaxGroupDepth) return false;
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

}  // namespace inflow::internal
