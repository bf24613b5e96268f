// Copyright 2026 The inflow Authors.
//
// DType: element types of a Tensor. The enumerator values are TensorFlow's
// DataType numbers (types.proto), so they can be written into file formats
// (checkpoint bundles) unchanged.

#ifndef INFLOW_CORE_DTYPE_H_
#define INFLOW_CORE_DTYPE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inflow {

enum class DType : int {
  kInvalid = 0,
  kFloat32 = 1,
  kFloat64 = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,
  kComplex64 = 8,
  kInt64 = 9,
  kBool = 10,
  kBFloat16 = 14,
  kUInt16 = 17,
  kComplex128 = 18,
  kFloat16 = 19,
  kUInt32 = 22,
  kUInt64 = 23,
};

// IEEE binary16 and bfloat16 are storage-only types: inflow moves, stores
// and compares their bits but does no arithmetic on them.
struct Float16 {
  uint16_t bits = 0;
  friend bool operator==(Float16 a, Float16 b) { return a.bits == b.bits; }
};
struct BFloat16 {
  uint16_t bits = 0;
  friend bool operator==(BFloat16 a, BFloat16 b) { return a.bits == b.bits; }
};

// Bytes per element; 0 for kInvalid and kString (strings are std::string
// objects, not fixed-size bytes), and for a value no enumerator names.
// Inline: a tensor's byte size is asked for per element in hot loops.
constexpr size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
    case DType::kInt16:
    case DType::kBFloat16:
    case DType::kUInt16:
    case DType::kFloat16:
      return 2;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kFloat64:
    case DType::kComplex64:
    case DType::kInt64:
    case DType::kUInt64:
      return 8;
    case DType::kComplex128:
      return 16;
    case DType::kInvalid:
    case DType::kString:
      return 0;
  }
  return 0;
}

// TF's Python names: "float32", "float64", "int32", "uint8", "int16",
// "int8", "string", "complex64", "int64", "bool", "bfloat16", "uint16",
// "complex128", "float16", "uint32", "uint64"; "invalid" for anything else.
std::string_view DTypeName(DType dtype);

// The inverse of DTypeName (also accepts "float", "double", "half").
std::optional<DType> DTypeFromName(std::string_view name);

// The DType for a TF DataType number, or nullopt when inflow has no such
// type.
std::optional<DType> DTypeFromEnum(int tf_enum);

// True for every DType a Tensor can hold (everything but kInvalid).
bool IsValidDType(DType dtype);

// Maps a C++ element type to its DType.
template <typename T>
struct DTypeOf;
#define INFLOW_DTYPE_OF_(T, D)               \
  template <>                                \
  struct DTypeOf<T> {                        \
    static constexpr DType value = DType::D; \
  }
INFLOW_DTYPE_OF_(float, kFloat32);
INFLOW_DTYPE_OF_(double, kFloat64);
INFLOW_DTYPE_OF_(int32_t, kInt32);
INFLOW_DTYPE_OF_(uint8_t, kUInt8);
INFLOW_DTYPE_OF_(int16_t, kInt16);
INFLOW_DTYPE_OF_(int8_t, kInt8);
INFLOW_DTYPE_OF_(std::string, kString);
INFLOW_DTYPE_OF_(std::complex<float>, kComplex64);
INFLOW_DTYPE_OF_(int64_t, kInt64);
INFLOW_DTYPE_OF_(bool, kBool);
INFLOW_DTYPE_OF_(BFloat16, kBFloat16);
INFLOW_DTYPE_OF_(uint16_t, kUInt16);
INFLOW_DTYPE_OF_(std::complex<double>, kComplex128);
INFLOW_DTYPE_OF_(Float16, kFloat16);
INFLOW_DTYPE_OF_(uint32_t, kUInt32);
INFLOW_DTYPE_OF_(uint64_t, kUInt64);
#undef INFLOW_DTYPE_OF_

template <typename T>
inline constexpr DType kDTypeOf = DTypeOf<T>::value;

}  // namespace inflow

#endif  // INFLOW_CORE_DTYPE_H_
