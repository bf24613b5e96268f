// Copyright 2026 The inflow Authors.
//
// Protobuf text format as Python's protobuf writes it (text_format.
// MessageToString), shared by the `checkpoint` state file and the model
// graph's graph.pbtxt.

#ifndef INFLOW_PROTO_TEXT_FORMAT_H_
#define INFLOW_PROTO_TEXT_FORMAT_H_

#include <string>
#include <string_view>

namespace inflow::internal {

// A string field's bytes as text format quotes them (without the quotes):
// \n \r \t \" \' \\ by name, other bytes outside 0x20..0x7e as three
// octal digits.
std::string TextFormatCEscape(std::string_view bytes);

// A double as Python's repr() writes it: the shortest digits that round-trip,
// positional when the decimal exponent is in [-4, 16) ("1764600000.25",
// "3.0", "0.0001"), else d.ddde+XX ("1e-05", "1e+16"); "inf", "-inf", "nan".
std::string PythonFloatRepr(double value);

}  // namespace inflow::internal

#endif  // INFLOW_PROTO_TEXT_FORMAT_H_
