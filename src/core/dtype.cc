// Copyright 2026 The inflow Authors.

#include "inflow/core/dtype.h"

#include <array>

namespace inflow {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  size_t size;
};

constexpr std::array<DTypeInfo, 16> kInfo = {{
    {DType::kFloat32, "float32", 4},
    {DType::kFloat64, "float64", 8},
    {DType::kInt32, "int32", 4},
    {DType::kUInt8, "uint8", 1},
    {DType::kInt16, "int16", 2},
    {DType::kInt8, "int8", 1},
    {DType::kString, "string", 0},
    {DType::kComplex64, "complex64", 8},
    {DType::kInt64, "int64", 8},
    {DType::kBool, "bool", 1},
    {DType::kBFloat16, "bfloat16", 2},
    {DType::kUInt16, "uint16", 2},
    {DType::kComplex128, "complex128", 16},
    {DType::kFloat16, "float16", 2},
    {DType::kUInt32, "uint32", 4},
    {DType::kUInt64, "uint64", 8},
}};

// The header's inline DTypeSize agrees with the table.
constexpr bool SizesAgree() {
  for (const DTypeInfo& info : kInfo) {
    if (DTypeSize(info.dtype) != info.size) return false;
  }
  return true;
}
static_assert(SizesAgree());

const DTypeInfo* Find(DType dtype) {
  for (const DTypeInfo& info : kInfo) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

}  // namespace

std::string_view DTypeName(DType dtype) {
  const DTypeInfo* info = Find(dtype);
  return info ? info->name : "invalid";
}

std::optional<DType> DTypeFromName(std::string_view name) {
  if (name == "float") return DType::kFloat32;
  if (name == "double") return DType::kFloat64;
  if (name == "half") return DType::kFloat16;
  for (const DTypeInfo& info : kInfo) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromEnum(int tf_enum) {
  for (const DTypeInfo& info : kInfo) {
    if (static_cast<int>(info.dtype) == tf_enum) return info.dtype;
  }
  return std::nullopt;
}

bool IsValidDType(DType dtype) { return Find(dtype) != nullptr; }

}  // namespace inflow
