// Copyright 2026 The inflow Authors.
//
// How `inflow ckpt` prints tensors: shapes as JSON arrays, values as JSON
// in row-major order. Numbers in the shortest form that reads back as the
// same value of the tensor's dtype (float16 and bfloat16 as the float
// they hold), floats always with a fraction or exponent ("3.0"); NaN and
// infinities, which JSON has no numbers for, as the strings "NaN", "Infinity",
// "-Infinity"; bools as true / false; strings as JSON strings when they are
// valid UTF-8, else {"base64": "..."}.
//
// Thread-safe: pure functions.

#ifndef INFLOW_TOOLS_CKPT_FORMAT_H_
#define INFLOW_TOOLS_CKPT_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::tools {

// "[2, 3]"; "[]" for a scalar.
std::string ShapeJson(const TensorShape& shape);

// Element `i` of `tensor` as a JSON value.
std::string ElementJson(const Tensor& tensor, int64_t i);

// A double in the notation of ElementJson ("0.0", "1701234567.5").
std::string DoubleJson(double v);

// A JSON string literal for `s` (which must be valid UTF-8).
std::string JsonString(std::string_view s);

}  // namespace inflow::tools

#endif  // INFLOW_TOOLS_CKPT_FORMAT_H_
