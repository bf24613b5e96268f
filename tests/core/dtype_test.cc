// Copyright 2026 The inflow Authors.

#include "inflow/core/dtype.h"

#include <gtest/gtest.h>

namespace inflow {
namespace {

// TF's DataType numbers, names and sizes, one row per type.
TEST(DTypeTest, TableMatchesTensorFlow) {
  struct Row {
    DType dtype;
    int tf_enum;
    const char* name;
    size_t size;
  };
  const Row rows[] = {
      {DType::kFloat32, 1, "float32", 4},
      {DType::kFloat64, 2, "float64", 8},
      {DType::kInt32, 3, "int32", 4},
      {DType::kUInt8, 4, "uint8", 1},
      {DType::kInt16, 5, "int16", 2},
      {DType::kInt8, 6, "int8", 1},
      {DType::kString, 7, "string", 0},
      {DType::kInt64, 9, "int64", 8},
      {DType::kBool, 10, "bool", 1},
      {DType::kBFloat16, 14, "bfloat16", 2},
      {DType::kUInt16, 17, "uint16", 2},
      {DType::kFloat16, 19, "float16", 2},
      {DType::kUInt32, 22, "uint32", 4},
      {DType::kUInt64, 23, "uint64", 8},
      {DType::kComplex64, 8, "complex64", 8},
      {DType::kComplex128, 18, "complex128", 16},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(static_cast<int>(r.dtype), r.tf_enum) << r.name;
    EXPECT_EQ(DTypeName(r.dtype), r.name);
    EXPECT_EQ(DTypeFromName(r.name), r.dtype);
    EXPECT_EQ(DTypeFromEnum(r.tf_enum), r.dtype);
    EXPECT_EQ(DTypeSize(r.dtype), r.size) << r.name;
    EXPECT_TRUE(IsValidDType(r.dtype));
  }
}

TEST(DTypeTest, UnknownNamesAndNumbersAreRejected) {
  EXPECT_EQ(DTypeFromName("complex32"), std::nullopt);
  EXPECT_EQ(DTypeFromEnum(0), std::nullopt);
  EXPECT_EQ(DTypeFromEnum(20), std::nullopt);  // DT_RESOURCE
  EXPECT_EQ(DTypeFromEnum(21), std::nullopt);  // DT_VARIANT
  EXPECT_EQ(DTypeFromEnum(24), std::nullopt);  // past DT_UINT64
  EXPECT_FALSE(IsValidDType(DType::kInvalid));
  EXPECT_EQ(DTypeName(DType::kInvalid), "invalid");
}

TEST(DTypeTest, AliasesOfTfNames) {
  EXPECT_EQ(DTypeFromName("float"), DType::kFloat32);
  EXPECT_EQ(DTypeFromName("double"), DType::kFloat64);
  EXPECT_EQ(DTypeFromName("half"), DType::kFloat16);
}

TEST(DTypeTest, DTypeOfMapsCxxTypes) {
  EXPECT_EQ(kDTypeOf<float>, DType::kFloat32);
  EXPECT_EQ(kDTypeOf<int64_t>, DType::kInt64);
  EXPECT_EQ(kDTypeOf<std::string>, DType::kString);
  EXPECT_EQ(kDTypeOf<Float16>, DType::kFloat16);
  EXPECT_EQ(kDTypeOf<uint32_t>, DType::kUInt32);
  EXPECT_EQ(kDTypeOf<uint64_t>, DType::kUInt64);
  EXPECT_EQ(kDTypeOf<std::complex<float>>, DType::kComplex64);
  EXPECT_EQ(kDTypeOf<std::complex<double>>, DType::kComplex128);
}

}  // namespace
}  // namespace inflow
