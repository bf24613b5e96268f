// Copyright 2026 The inflow Authors.
//
// ExampleParser's fast path: a parser fused with the schema, which walks
// a record in the encoder layout (encoder_layout.h) and decodes each
// wanted feature for its spec as it meets it, straight into the outputs
// where it can.

#ifndef INFLOW_EXAMPLE_EXAMPLE_FAST_PARSER_H_
#define INFLOW_EXAMPLE_EXAMPLE_FAST_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "inflow/example/feature_view.h"

#include "example/build_outputs.h"
#include "example/parsed_schema.h"

namespace inflow::internal {

// What ParseExampleFast fills.
struct FastOutputs {
  // By spec: where the FixedLen output of spec s starts (its tensor is
  // allocated before parsing); null for other specs.
  std::span<char* const> fixed;
  std::vector<int64_t>* int64_arena;  // var-len int64 values, decoded
  size_t int64_used = 0;
  std::vector<std::string_view>* bytes_arena;  // var-len bytes values
  size_t bytes_used = 0;
};

// Parses Example `record` (example b of the batch) when it is laid out as
// every encoder writes it, for the specs of `schema`: sets row[s] to the
// winning feature of spec s, as the general path does, and slots[s] to
// where its values went. A FixedLen feature whose kind and count match
// goes straight into row b of its output; var-len int64 values are decoded
// into the int64 arena and var-len bytes values listed in the bytes arena.
// False when the record needs the general path (any other layout,
// malformed input included); row and slots are then partly written.
bool ParseExampleFast(std::string_view record, const ParsedSchema& schema,
                      int64_t b, FeatureView* row, int64_t* slots,
                      FastOutputs* out);

}  // namespace inflow::internal

#endif  // INFLOW_EXAMPLE_EXAMPLE_FAST_PARSER_H_
