// Copyright 2026 The inflow Authors.
//
// The walk that the general (validating) paths of the Example parsers
// share. Example, Features, a Features map entry, Feature, FeatureList,
// FeatureLists, its map entry and SequenceExample are all messages whose
// fields that matter are length-delimited and numbered from 1; each
// parser says what it does with those, and the walk validates and skips
// everything else (unknown fields, and known numbers with another wire
// type, as libprotobuf does).

#ifndef INFLOW_EXAMPLE_MESSAGE_WALK_H_
#define INFLOW_EXAMPLE_MESSAGE_WALK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "inflow/core/status.h"

#include "proto/wire.h"

namespace inflow::internal {

// INVALID_ARGUMENT naming the message (or list) `what` and the byte offset
// of `pos` from the start of the record, `base`.
inline Status Malformed(std::string_view what, const char* pos,
                        const char* base) {
  return InvalidArgumentError("Could not parse example input: malformed " +
                              std::string(what) + " at byte offset " +
                              std::to_string(pos - base));
}

// One length-delimited field of a message.
struct LenField {
  uint32_t number;
  std::string_view payload;
  const char* start;  // its tag
};

// Walks the message `msg`, which lies in the record starting at `base`,
// in wire order: calls on_field(const LenField&) -> Status for each
// length-delimited field numbered 1 to `max_field`, and skips every other
// field. Returns Malformed(what) at the first field that does not parse,
// or the first error of on_field.
template <typename OnField>
[[gnu::always_inline]] inline Status WalkLenFields(std::string_view msg,
                                                   const char* base,
                                                   std::string_view what,
                                                   uint32_t max_field,
                                                   OnField&& on_field) {
  WireReader r(msg);
  while (!r.done()) {
    const char* tag_pos = r.pos();
    uint32_t field;
    int wt;
    if (!r.ReadTag(&field, &wt)) return Malformed(what, tag_pos, base);
    if (wt == kWireLen && field >= 1 && field <= max_field) {
      LenField f{field, std::string_view(), tag_pos};
      if (!r.ReadLengthDelimited(&f.payload)) {
        return Malformed(what, tag_pos, base);
      }
      INFLOW_RETURN_IF_ERROR(on_field(f));
    } else if (!r.SkipField(field, wt)) {
      return Malformed(what, tag_pos, base);
    }
  }
  return OkStatus();
}

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_MESSAGE_WALK_H_
