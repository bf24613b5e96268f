// Copyright 2026 The inflow Authors.

#include "inflow/core/tensor_shape.h"

#include <gtest/gtest.h>

namespace inflow {
namespace {

TEST(TensorShapeTest, ScalarHasOneElement) {
  TensorShape s;
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_EQ(s.DebugString(), "[]");
}

TEST(TensorShapeTest, DimsAndElements) {
  TensorShape s({2, 3, 4});
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.Slice(1), TensorShape({3, 4}));
  EXPECT_EQ(s.Prepend(5), TensorShape({5, 2, 3, 4}));
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  EXPECT_EQ(TensorShape({0, 7}).num_elements(), 0);
}

TEST(TensorShapeTest, FromDimsRejectsNegativeAndOverflow) {
  const int64_t neg[] = {2, -1};
  EXPECT_EQ(TensorShape::FromDims(neg).status().code(),
            StatusCode::kInvalidArgument);
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(TensorShape::FromDims(huge).status().code(),
            StatusCode::kInvalidArgument);
  const int64_t ok[] = {3, 0};
  EXPECT_TRUE(TensorShape::FromDims(ok).ok());
}

TEST(PartialShapeTest, UnknownRankIsCompatibleWithEverything) {
  PartialShape p;
  EXPECT_FALSE(p.rank_known());
  EXPECT_EQ(p.rank(), -1);
  EXPECT_FALSE(p.IsFullyDefined());
  EXPECT_TRUE(p.IsCompatibleWith(TensorShape({1, 2})));
  EXPECT_EQ(p.DebugString(), "<unknown>");
}

TEST(PartialShapeTest, UnknownDimsMatchAnySize) {
  PartialShape p({-1, 3});
  EXPECT_TRUE(p.IsCompatibleWith(TensorShape({7, 3})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({7, 4})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({3})));
  EXPECT_TRUE(p.IsCompatibleWith(PartialShape({5, -1})));
  EXPECT_FALSE(p.IsCompatibleWith(PartialShape({5, 4})));
  EXPECT_EQ(p.DebugString(), "[?,3]");
  EXPECT_EQ(p.Prepend(-1), PartialShape({-1, -1, 3}));
}

TEST(PartialShapeTest, FullyDefinedConvertsToTensorShape) {
  PartialShape p({2, 2});
  ASSERT_TRUE(p.IsFullyDefined());
  EXPECT_EQ(p.AsTensorShape(), TensorShape({2, 2}));
  EXPECT_EQ(PartialShape(TensorShape({4})), PartialShape({4}));
}

}  // namespace
}  // namespace inflow
