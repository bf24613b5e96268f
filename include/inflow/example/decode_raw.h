// Copyright 2026 The inflow Authors.
//
// tf.io.decode_raw: bytes reinterpreted as a vector of numbers.
//
// Every numeric dtype is accepted, uint32 and uint64 included (TF's
// DecodeRaw refuses those two; inflow decodes them as it does the other
// integers).
//
// Errors: INVALID_ARGUMENT when the byte count is not a multiple of the
// element size, when the elements of a string tensor differ in length, or
// when `dtype` is string or invalid.

#ifndef INFLOW_EXAMPLE_DECODE_RAW_H_
#define INFLOW_EXAMPLE_DECODE_RAW_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "inflow/core/result.h"
#include "inflow/core/tensor.h"

namespace inflow {

// One bytes value -> a 1-D tensor of dtype (a copy).
Result<Tensor> DecodeRaw(std::string_view bytes, DType dtype,
                         bool little_endian = true);

// The tf.io.decode_raw op: a string tensor of shape S, all elements of the
// same length n, -> S + [n / sizeof(dtype)].
Result<Tensor> DecodeRaw(const Tensor& bytes, DType dtype,
                         bool little_endian = true);

// decode_raw(bytes, tf.uint8) followed by tf.cast(..., tf.float32) *
// scale, in one pass: a string tensor of shape S, all elements of the same
// length n, -> float S + [n] with out = float(byte) * scale (a single
// float multiplication, as TF's cast-then-multiply; scale 1.0f / 255 maps
// pixels to [0, 1]). Runs the fastest conversion kernel the CPU has
// (INFLOW_CONVERT_KERNEL; docs/PERFORMANCE.md, "Kernels"). Errors as
// DecodeRaw's.
Result<Tensor> DecodeRawToFloat(const Tensor& bytes, float scale);
// The same over views, e.g. the bytes values of ExampleViews: shape
// [bytes.size(), n].
Result<Tensor> DecodeRawToFloat(std::span<const std::string_view> bytes,
                                float scale);

// Zero-copy DecodeRaw: `bytes` must lie inside *owner (for example a
// bytes value of an ExampleView over that record). When the byte order is
// the host's and the address suits the dtype's alignment, the tensor views
// those bytes and keeps `owner` alive; otherwise it is a copy. The view is
// read-only (Tensor::read_only()): mutable_flat() / mutable_raw_data()
// return FAILED_PRECONDITION, since writing would change the record. A
// copy is writable.
Result<Tensor> DecodeRawShared(std::shared_ptr<const std::string> owner,
                               std::string_view bytes, DType dtype,
                               bool little_endian = true);

}  // namespace inflow

#endif  // INFLOW_EXAMPLE_DECODE_RAW_H_
