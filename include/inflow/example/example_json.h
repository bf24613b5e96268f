// Copyright 2026 The inflow Authors.
//
// Example and SequenceExample as protobuf's canonical JSON mapping (what
// google.protobuf.json_format.MessageToJson gives, on one line): field
// names in lowerCamelCase, int64 values as strings, bytes in base64,
// NaN / Infinity / -Infinity as strings, empty lists and unset fields left
// out. Map keys are written sorted; a key given twice keeps its last value.
// Key bytes that are not UTF-8 are written as U+FFFD.

#ifndef INFLOW_EXAMPLE_EXAMPLE_JSON_H_
#define INFLOW_EXAMPLE_EXAMPLE_JSON_H_

#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"

namespace inflow {

struct ExampleJsonOptions {
  // When non-empty, only these feature keys (context features and feature
  // lists, for a SequenceExample) are written.
  std::vector<std::string> only_features;
};

// INVALID_ARGUMENT when the record is not a valid Example.
Result<std::string> ExampleToJson(std::string_view serialized,
                                  const ExampleJsonOptions& options = {});
Result<std::string> SequenceExampleToJson(
    std::string_view serialized, const ExampleJsonOptions& options = {});

// Standard base64 with padding (protobuf's JSON for bytes).
std::string Base64Encode(std::string_view bytes);
// The inverse of Base64Encode. Also accepts the URL-safe alphabet ('-' and
// '_') and missing padding, as protobuf's JSON parser does. INVALID_ARGUMENT
// for any other character, '=' before the end, or a length that is 1
// modulo 4 once the padding is removed.
Result<std::string> Base64Decode(std::string_view text);

}  // namespace inflow

#endif  // INFLOW_EXAMPLE_EXAMPLE_JSON_H_
