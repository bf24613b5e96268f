// Copyright 2026 The inflow Authors.

#include "ckpt_format.h"

#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>

#include "inflow/core/json_string.h"
#include "inflow/example/example_json.h"

namespace inflow::tools {

namespace {

template <typename T>
std::string Number(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "\"NaN\"";
    if (std::isinf(v)) return v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  }
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);
  std::string out(buf, result.ptr);
  // A float keeps a fraction or exponent ("3.0", "-0.0"), so that JSON
  // readers take it as a float (and -0 keeps its sign).
  if (std::is_floating_point_v<T> &&
      out.find_first_of(".e") == std::string::npos) {
    out += ".0";
  }
  return out;
}

// [re, im].
template <typename T>
std::string ComplexJson(std::complex<T> c) {
  std::string out(1, '[');
  out.append(Number(c.real()));
  out.append(", ");
  out.append(Number(c.imag()));
  out.push_back(']');
  return out;
}

float BFloat16ToFloat(BFloat16 v) {
  const uint32_t bits = uint32_t{v.bits} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// IEEE binary16 to binary32: exact (every half is a float).
float Float16ToFloat(Float16 v) {
  const uint32_t sign = (v.bits & 0x8000u) << 16;
  const uint32_t exponent = (v.bits >> 10) & 0x1f;
  const uint32_t mantissa = v.bits & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u),
                           static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

}  // namespace

std::string DoubleJson(double v) { return Number(v); }

std::string ShapeJson(const TensorShape& shape) {
  std::string out = "[";
  for (int i = 0; i < shape.rank(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape.dim(i));
  }
  out += "]";
  return out;
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(s, &out);
  return out;
}

std::string ElementJson(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return Number(t.data<float>()[i]);
    case DType::kFloat64:
      return Number(t.data<double>()[i]);
    case DType::kInt32:
      return Number(t.data<int32_t>()[i]);
    case DType::kUInt8:
      return Number(t.data<uint8_t>()[i]);
    case DType::kInt16:
      return Number(t.data<int16_t>()[i]);
    case DType::kInt8:
      return Number(t.data<int8_t>()[i]);
    case DType::kInt64:
      return Number(t.data<int64_t>()[i]);
    case DType::kUInt16:
      return Number(t.data<uint16_t>()[i]);
    case DType::kUInt32:
      return Number(t.data<uint32_t>()[i]);
    case DType::kUInt64:
      return Number(t.data<uint64_t>()[i]);
    case DType::kBool:
      return t.data<bool>()[i] ? "true" : "false";
    case DType::kComplex64:
      return ComplexJson(t.data<std::complex<float>>()[i]);
    case DType::kComplex128:
      return ComplexJson(t.data<std::complex<double>>()[i]);
    case DType::kBFloat16:
      return Number(BFloat16ToFloat(t.data<BFloat16>()[i]));
    case DType::kFloat16:
      return Number(Float16ToFloat(t.data<Float16>()[i]));
    case DType::kString: {
      const std::string& s = t.data<std::string>()[i];
      if (IsValidUtf8(s)) return JsonString(s);
      return "{\"base64\": \"" + Base64Encode(s) + "\"}";
    }
    case DType::kInvalid:
      break;
  }
  return "null";
}

}  // namespace inflow::tools
