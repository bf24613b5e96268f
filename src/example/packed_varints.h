// Copyright 2026 The inflow Authors.
//
// Packed runs of varints (an Int64List's value field), counted and decoded
// in bulk by the kernel varint_kernels.h chooses. Built on the shared wire
// reader (proto/wire.h).
//
// Internal to the example component. Pure functions.

#ifndef INFLOW_EXAMPLE_PACKED_VARINTS_H_
#define INFLOW_EXAMPLE_PACKED_VARINTS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "proto/wire.h"

namespace inflow::internal {

// Counts the varints in a packed payload; -1 when one runs past the end or
// exceeds 10 bytes.
int64_t CountPackedVarints(std::string_view payload);

// Decodes varints known to be well formed (CountPackedVarints agreed);
// returns how many were written to out.
int64_t DecodePackedVarints(std::string_view payload, int64_t* out);

// Validates and decodes in one pass: -1 when CountPackedVarints would say
// so, else the number of varints. Values are written to out[0, capacity)
// only when all of them fit (count <= capacity); otherwise the first
// values may or may not have been written, and none past capacity.
// `slack` is how many bytes after the payload may be read (they lie in the
// same buffer); with 64 or more, no load needs a bounds check.
int64_t DecodePackedVarintsChecked(std::string_view payload, int64_t* out,
                                   int64_t capacity, size_t slack = 0);

// DecodePackedVarintsChecked for short payloads (a few values): one
// WireReader::ReadVarint per value, cheaper there than the block machinery.
inline int64_t DecodeShortPackedVarintsChecked(std::string_view payload,
                                               int64_t* out, int64_t capacity) {
  WireReader reader(payload);
  int64_t count = 0;
  while (!reader.done()) {
    uint64_t v;
    // An 11th byte, or the payload ends inside the varint.
    if (!reader.ReadVarint(&v)) return -1;
    if (count < capacity) out[count] = static_cast<int64_t>(v);
    ++count;
  }
  return count;
}

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_PACKED_VARINTS_H_
