// Copyright 2026 The inflow Authors.
//
// Pieces of the CheckpointState text format shared by the writer and its
// tests.

#ifndef INFLOW_CHECKPOINT_CHECKPOINT_STATE_TEXT_H_
#define INFLOW_CHECKPOINT_CHECKPOINT_STATE_TEXT_H_

#include <string>
#include <string_view>

namespace inflow {
namespace internal {

// A string field's bytes as protobuf text format quotes them (without the
// quotes): \n \r \t \" \' \\ by name, other bytes outside 0x20..0x7e as
// three octal digits.
std::string CEscape(std::string_view bytes);

// A double as Python's repr() writes it, as protobuf's Python text format
// does: shortest round-trip digits, "1764600000.25", "3.0", "1e-05",
// "1e+16", "inf", "nan".
std::string FormatDouble(double value);

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points above U+10FFFF), which protobuf requires of string fields.
bool IsValidUtf8(std::string_view s);

}  // namespace internal
}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_CHECKPOINT_STATE_TEXT_H_
