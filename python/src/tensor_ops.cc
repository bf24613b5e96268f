// Copyright 2026 The inflow Authors.

#include "tensor_ops.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "inflow/core/status.h"

namespace inflow::py {

namespace {

// IEEE binary16 from float, rounding to nearest even; NaN becomes the
// quiet NaN (sign kept), as TF's (Eigen's) conversion.
uint16_t FloatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x47800000u) {  // 65536 and up (before rounding), inf, NaN
    return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);
  }
  if (x < 0x38800000u) {  // below 2**-14: a subnormal half or zero
    // Adding 0.5 puts the half's last mantissa bit (2**-24) at the float's
    // last one: the FPU rounds to nearest even.
    const float sum = std::bit_cast<float>(x) + 0.5f;
    return sign | static_cast<uint16_t>(std::bit_cast<uint32_t>(sum) -
                                        std::bit_cast<uint32_t>(0.5f));
  }
  const uint32_t odd = (x >> 13) & 1u;
  x += (static_cast<uint32_t>(15 - 127) << 23) + 0xfffu + odd;
  return sign | static_cast<uint16_t>(x >> 13);
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0x1f) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {
    // mantissa * 2**-24, exact in a float.
    const float v = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(v));
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) |
                              (mantissa << 13));
}

// bfloat16 from float, rounding to nearest even; NaN is the quiet NaN.
uint16_t FloatToBFloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (f != f) return (x & 0x80000000u) ? 0xffc0 : 0x7fc0;
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float BFloat16ToFloat(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// TF's CPU results for floating point to int64 and int32: truncation, and
// the type's minimum for NaN, infinities and values out of range (x86's
// "integer indefinite", which TF's kernel gives on every path).
int64_t FloatToInt64(double x) {
  if (!(x >= -0x1p63 && x < 0x1p63)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(x);
}

int32_t FloatToInt32(double x) {
  if (!(x > -2147483649.0 && x < 2147483648.0)) {
    return std::numeric_limits<int32_t>::min();
  }
  return static_cast<int32_t>(x);
}

template <typename T>
constexpr bool kIsHalf =
    std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// A value of a half type as float; others unchanged.
template <typename T>
auto Widen(T x) {
  if constexpr (std::is_same_v<T, Float16>) {
    return HalfToFloat(x.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16ToFloat(x.bits);
  } else {
    return x;
  }
}

template <typename To>
To FromFloat(float x) {
  if constexpr (std::is_same_v<To, Float16>) {
    return Float16{FloatToHalf(x)};
  } else {
    return BFloat16{FloatToBFloat16(x)};
  }
}

// TF's CPU kernels run with denormals flushed to zero (x86's FTZ and DAZ):
// a subnormal float or double read or written by a floating-point
// conversion is a zero of the same sign. The bit-level conversions
// (bfloat16 to float, the half types from float) are not affected.
template <typename T>
T FlushDenormal(T x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(T(0), x) : x;
}

template <typename To, typename From>
To Convert(From value) {
  const auto x = Widen(value);
  using W = std::remove_const_t<decltype(x)>;
  if constexpr (std::is_same_v<To, bool>) {
    if constexpr (std::is_floating_point_v<From>) return FlushDenormal(x) != 0;
    return x != 0;
  } else if constexpr (std::is_floating_point_v<W>) {
    if constexpr (std::is_floating_point_v<To>) {
      if constexpr (std::is_same_v<W, To>) return x;
      return FlushDenormal(static_cast<To>(FlushDenormal(x)));
    } else if constexpr (kIsHalf<To>) {
      if constexpr (std::is_same_v<W, double>) {
        return FromFloat<To>(FlushDenormal(static_cast<float>(x)));
      }
      return FromFloat<To>(x);
    } else if constexpr (sizeof(To) == 8) {
      return static_cast<To>(FloatToInt64(x));
    } else if constexpr (std::is_same_v<To, uint32_t>) {
      return static_cast<To>(FloatToInt64(x));
    } else {
      return static_cast<To>(FloatToInt32(x));
    }
  } else {  // integers and bool: C++'s conversions (integers wrap)
    if constexpr (kIsHalf<To>) {
      return FromFloat<To>(static_cast<float>(x));
    } else {
      return static_cast<To>(x);
    }
  }
}

// Calls f(T{}) with T the C++ type of `dtype`; false for string and
// invalid.
template <typename F>
bool VisitNumeric(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32:
      f(float{});
      return true;
    case DType::kFloat64:
      f(double{});
      return true;
    case DType::kInt8:
      f(int8_t{});
      return true;
    case DType::kInt16:
      f(int16_t{});
      return true;
    case DType::kInt32:
      f(int32_t{});
      return true;
    case DType::kInt64:
      f(int64_t{});
      return true;
    case DType::kUInt8:
      f(uint8_t{});
      return true;
    case DType::kUInt16:
      f(uint16_t{});
      return true;
    case DType::kUInt32:
      f(uint32_t{});
      return true;
    case DType::kUInt64:
      f(uint64_t{});
      return true;
    case DType::kBool:
      f(bool{});
      return true;
    case DType::kFloat16:
      f(Float16{});
      return true;
    case DType::kBFloat16:
      f(BFloat16{});
      return true;
    default:
      return false;
  }
}

bool IsNumeric(DType dtype) {
  return VisitNumeric(dtype, [](auto) {});
}

// The index values of a one_hot indices tensor, as int64.
template <typename T>
void IndicesAsInt64(const Tensor& t, std::vector<int64_t>& out) {
  for (T v : t.flat<T>()) out.push_back(static_cast<int64_t>(v));
}

}  // namespace

Status CheckCastable(DType from, DType to) {
  if (!IsNumeric(from) || !IsNumeric(to)) {
    if (from == to && from == DType::kString) return Status();
    return UnimplementedError("Cast " + std::string(DTypeName(from)) + " to " +
                              std::string(DTypeName(to)) + " is not supported");
  }
  return Status();
}

Result<Tensor> CastTensor(const Tensor& in, DType dtype) {
  INFLOW_RETURN_IF_ERROR(CheckCastable(in.dtype(), dtype));
  if (in.dtype() == dtype) return in;
  Tensor out = Tensor::Uninitialized(dtype, in.shape());
  INFLOW_ASSIGN_OR_RETURN(void* raw, out.mutable_raw_data());
  VisitNumeric(in.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    const From* src = static_cast<const From*>(in.raw_data());
    VisitNumeric(dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      To* dst = static_cast<To*>(raw);
      const int64_t n = in.num_elements();
      for (int64_t i = 0; i < n; ++i) dst[i] = Convert<To>(src[i]);
    });
  });
  return out;
}

PartialShape OneHotShape(const PartialShape& indices, int64_t depth, int axis) {
  if (!indices.rank_known()) return PartialShape();
  std::vector<int64_t> dims = indices.dims();
  const int at = axis < 0 ? static_cast<int>(dims.size()) : axis;
  dims.insert(dims.begin() + at, depth);
  return PartialShape(std::move(dims));
}

Result<Tensor> OneHotTensor(const Tensor& indices, int64_t depth,
                            const Tensor& on, const Tensor& off, int axis) {
  if (depth < 0) {
    return InvalidArgumentError("one_hot: depth must be non-negative, got " +
                                std::to_string(depth));
  }
  const int rank = indices.rank();
  if (axis < -1 || axis > rank) {
    return InvalidArgumentError(
        "one_hot: axis must be -1 or between 0 and the rank of indices (" +
        std::to_string(rank) + "), got " + std::to_string(axis));
  }
  if (on.rank() != 0 || off.rank() != 0 || on.dtype() != off.dtype()) {
    return InvalidArgumentError(
        "one_hot: on_value and off_value must be scalars of one dtype");
  }
  std::vector<int64_t> idx;
  idx.reserve(indices.num_elements());
  switch (indices.dtype()) {
    case DType::kUInt8:
      IndicesAsInt64<uint8_t>(indices, idx);
      break;
    case DType::kInt8:
      IndicesAsInt64<int8_t>(indices, idx);
      break;
    case DType::kInt32:
      IndicesAsInt64<int32_t>(indices, idx);
      break;
    case DType::kInt64:
      IndicesAsInt64<int64_t>(indices, idx);
      break;
    default:
      return InvalidArgumentError(
          "one_hot: indices must be uint8, int8, int32 or int64, got " +
          std::string(DTypeName(indices.dtype())));
  }
  const int at = axis < 0 ? rank : axis;
  int64_t prefix = 1;
  int64_t suffix = 1;
  for (int i = 0; i < rank; ++i) {
    (i < at ? prefix : suffix) *= indices.dim_size(i);
  }
  int64_t total = 0;
  if (__builtin_mul_overflow(indices.num_elements(), depth, &total)) {
    return InvalidArgumentError("one_hot: the result of depth " +
                                std::to_string(depth) + " is too large");
  }
  std::vector<int64_t> dims = indices.shape().dims();
  dims.insert(dims.begin() + at, depth);
  const DType dtype = on.dtype();
  Tensor out = dtype == DType::kString
                   ? Tensor(dtype, TensorShape(dims))
                   : Tensor::Uninitialized(dtype, TensorShape(dims));
  // out[p][j][s] = idx[p * suffix + s] == j ? on : off.
  auto fill = [&](auto* dst, const auto& on_v, const auto& off_v) {
    for (int64_t i = 0; i < total; ++i) dst[i] = off_v;
    for (int64_t p = 0; p < prefix; ++p) {
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t j = idx[p * suffix + s];
        if (j >= 0 && j < depth) dst[(p * depth + j) * suffix + s] = on_v;
      }
    }
  };
  if (dtype == DType::kString) {
    INFLOW_ASSIGN_OR_RETURN(std::span<std::string> dst,
                            out.mutable_flat<std::string>());
    fill(dst.data(), on.flat<std::string>()[0], off.flat<std::string>()[0]);
    return out;
  }
  INFLOW_ASSIGN_OR_RETURN(void* raw, out.mutable_raw_data());
  VisitNumeric(dtype, [&](auto tag) {
    using T = decltype(tag);
    T on_v, off_v;
    std::memcpy(&on_v, on.raw_data(), sizeof(T));
    std::memcpy(&off_v, off.raw_data(), sizeof(T));
    fill(static_cast<T*>(raw), on_v, off_v);
  });
  return out;
}

}  // namespace inflow::py
