// Copyright 2026 The inflow Authors.
//
// Tensor::DebugString and the Tuple form: values as text, strings escaped
// the way TF's tf.print escapes them.

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "inflow/core/tensor.h"

namespace inflow {
namespace {

// TF's escaping for printed string elements (absl::Utf8SafeCEscape): the
// usual C escapes, three octal digits for other control bytes and 0x7f,
// bytes from 0x80 up unchanged so that UTF-8 stays readable.
void AppendEscaped(std::ostringstream& os, const std::string& bytes) {
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\n':
        os << "\\n";
        break;
      case '\r':
        os << "\\r";
        break;
      case '\t':
        os << "\\t";
        break;
      case '"':
        os << "\\\"";
        break;
      case '\'':
        os << "\\'";
        break;
      case '\\':
        os << "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char octal[5];
          std::snprintf(octal, sizeof(octal), "\\%03o", c);
          os << octal;
        } else {
          os << ch;
        }
    }
  }
}

void AppendValue(std::ostringstream& os, const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32:
      os << t.data<float>()[i];
      break;
    case DType::kFloat64:
      os << t.data<double>()[i];
      break;
    case DType::kInt32:
      os << t.data<int32_t>()[i];
      break;
    case DType::kUInt8:
      os << static_cast<int>(t.data<uint8_t>()[i]);
      break;
    case DType::kInt16:
      os << t.data<int16_t>()[i];
      break;
    case DType::kInt8:
      os << static_cast<int>(t.data<int8_t>()[i]);
      break;
    case DType::kString:
      os << '"';
      AppendEscaped(os, t.data<std::string>()[i]);
      os << '"';
      break;
    case DType::kInt64:
      os << t.data<int64_t>()[i];
      break;
    case DType::kBool:
      os << (t.data<bool>()[i] ? "true" : "false");
      break;
    case DType::kBFloat16:
      os << "0x" << std::hex << t.data<BFloat16>()[i].bits << std::dec;
      break;
    case DType::kUInt16:
      os << t.data<uint16_t>()[i];
      break;
    case DType::kFloat16:
      os << "0x" << std::hex << t.data<Float16>()[i].bits << std::dec;
      break;
    case DType::kUInt32:
      os << t.data<uint32_t>()[i];
      break;
    case DType::kUInt64:
      os << t.data<uint64_t>()[i];
      break;
    case DType::kComplex64:
      os << t.data<std::complex<float>>()[i];
      break;
    case DType::kComplex128:
      os << t.data<std::complex<double>>()[i];
      break;
    case DType::kInvalid:
      break;
  }
}

}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  if (!IsInitialized()) return "Tensor<uninitialized>";
  std::ostringstream os;
  os << "Tensor<" << DTypeName(dtype_) << " " << shape_.DebugString() << ": [";
  const int64_t n = std::min<int64_t>(num_elements_, max_entries);
  for (int64_t i = 0; i < n; ++i) {
    if (i) os << ' ';
    AppendValue(os, *this, i);
  }
  if (n < num_elements_) os << " ...";
  os << "]>";
  return os.str();
}

std::string DebugString(const Tuple& tuple) {
  std::string out = "(";
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (i) out += ", ";
    out += tuple[i].DebugString();
  }
  return out + ")";
}

}  // namespace inflow
