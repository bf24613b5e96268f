// Copyright 2026 The inflow Authors.
//
// JSON string literals, as the Example JSON printer, the metrics recorder
// and the CLI's JSON output write them. Quote, backslash and control
// characters are escaped (\n, \r, \t, \b, \f, else \u00XX); valid UTF-8
// passes through; each byte that is not part of a valid UTF-8 sequence
// becomes U+FFFD, so the output is always valid JSON. Thread-safe.

#ifndef INFLOW_CORE_JSON_STRING_H_
#define INFLOW_CORE_JSON_STRING_H_

#include <string>
#include <string_view>

namespace inflow {

// Appends `s` as a JSON string literal (with its quotes) to *out.
void AppendJsonString(std::string_view s, std::string* out);

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points above U+10FFFF), as protobuf requires of string fields and JSON of
// its text.
bool IsValidUtf8(std::string_view s);

}  // namespace inflow

#endif  // INFLOW_CORE_JSON_STRING_H_
