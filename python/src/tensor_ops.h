// Copyright 2026 The inflow Authors.
//
// Element-wise tensor ops the Python package's Nodes run between parsing
// and batching, as TF1 input code uses them: tf.cast and tf.one_hot, with
// TF's results (docs/conformance.md, "Python: cast and one_hot"). They run
// on inflow's threads without the GIL and touch no Python object.

#ifndef INFLOW_PYTHON_SRC_TENSOR_OPS_H_
#define INFLOW_PYTHON_SRC_TENSOR_OPS_H_

#include <cstdint>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::py {

// tf.cast: `in`'s values as `dtype`, shape unchanged (`in` itself when the
// dtype is the same). Integers wrap (two's complement); floating-point to
// integer truncates toward zero, and a NaN, an infinity or a value outside
// the target's range gives what TF's CPU kernel gives: int32 and int64 take
// their minimum; int8, int16, uint8 and uint16 take the low bits of the
// int32 result, uint32 and uint64 those of the int64 result. To bool:
// x != 0 (NaN is true). float16 and bfloat16 round to nearest even.
// Denormals are flushed to zero where TF's kernel flushes them (a
// subnormal float32 read by a conversion, a float32 result of one).
// UNIMPLEMENTED for a string on either side (as TF).
Result<Tensor> CastTensor(const Tensor& in, DType dtype);

// CastTensor's check alone: OK when `from` can be cast to `to`.
Status CheckCastable(DType from, DType to);

// The shape tf.one_hot gives: `indices` with `depth` inserted at `axis`
// (-1: last). Unknown rank stays unknown.
PartialShape OneHotShape(const PartialShape& indices, int64_t depth, int axis);

// tf.one_hot: out[..., j, ...] (j at `axis`) is `on` where the index is j,
// `off` elsewhere; a negative index or one >= depth gives a row of `off`.
// `indices`: uint8, int8, int32 or int64; `on` and `off`: scalars of the
// output dtype (any dtype, strings too). INVALID_ARGUMENT for another
// index dtype, a negative depth, axis < -1 or > rank, or on/off that are
// not scalars of one dtype.
Result<Tensor> OneHotTensor(const Tensor& indices, int64_t depth,
                            const Tensor& on, const Tensor& off, int axis);

}  // namespace inflow::py

#endif  // INFLOW_PYTHON_SRC_TENSOR_OPS_H_
