// Copyright 2026 The inflow Authors.

#include "inflow/core/tensor.h"

#include <cstring>

#include <gtest/gtest.h>

namespace inflow {
namespace {

TEST(TensorTest, DefaultIsUninitialized) {
  Tensor t;
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.DebugString(), "Tensor<uninitialized>");
}

TEST(TensorTest, NewTensorIsZeroedAndAligned) {
  Tensor t(DType::kFloat32, TensorShape({3, 5}));
  EXPECT_EQ(t.num_elements(), 15);
  EXPECT_EQ(t.num_bytes(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u);
  for (float v : t.flat<float>()) EXPECT_EQ(v, 0.0f);
}

TEST(TensorTest, EmptyAndStringBuffersAreAlignedAndIndependent) {
  Tensor empty(DType::kInt64, TensorShape({0, 3}));
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(empty.raw_data()) % kTensorAlignment,
            0u);
  // Long strings own heap memory; ASan reports a leak if the buffer does
  // not destroy them.
  Tensor s(DType::kString, TensorShape({3}));
  Result<std::span<std::string>> strings = s.mutable_flat<std::string>();
  ASSERT_TRUE(strings.ok()) << strings.status();
  for (std::string& v : *strings) v.assign(100, 'x');
  Tensor t(DType::kString, TensorShape({3}));
  EXPECT_NE(s.raw_data(), t.raw_data());
  EXPECT_EQ(t.flat<std::string>()[0], "");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(s.raw_data()) % kTensorAlignment, 0u);
}

TEST(TensorTest, ScalarAndVector) {
  Tensor s = Tensor::Scalar<int64_t>(42);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.data<int64_t>()[0], 42);
  Result<Tensor> v =
      Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->shape(), TensorShape({2, 2}));
  EXPECT_EQ(v->flat<int32_t>()[3], 4);
  EXPECT_EQ(v->DebugString(), "Tensor<int32 [2,2]: [1 2 3 4]>");
  EXPECT_FALSE(v->read_only());
}

TEST(TensorTest, CopyingSharesTheBuffer) {
  Tensor a(DType::kInt32, TensorShape({4}));
  Tensor b = a;
  EXPECT_TRUE(a.SharesBufferWith(b));
  (*b.mutable_flat<int32_t>())[0] = 9;
  EXPECT_EQ(a.data<int32_t>()[0], 9);
  Tensor c = a.Clone();
  EXPECT_FALSE(c.SharesBufferWith(a));
  EXPECT_EQ(c, a);
}

TEST(TensorTest, SliceAlongDimZeroIsZeroCopy) {
  Tensor t =
      *Tensor::FromVector<float>({0, 1, 2, 3, 4, 5}, TensorShape({3, 2}));
  Tensor s = t.Slice(1, 3);
  EXPECT_TRUE(s.SharesBufferWith(t));
  EXPECT_EQ(s.shape(), TensorShape({2, 2}));
  EXPECT_EQ(s.flat<float>()[0], 2.0f);
  Tensor row = t.SubTensor(2);
  EXPECT_EQ(row.shape(), TensorShape({2}));
  EXPECT_EQ(row.flat<float>()[1], 5.0f);
  EXPECT_EQ(t.Slice(3, 3).num_elements(), 0);
}

TEST(TensorTest, AssignSubTensorMovesOneViewFromRowToRow) {
  Tensor t =
      *Tensor::FromVector<float>({0, 1, 2, 3, 4, 5}, TensorShape({3, 2}));
  Tensor row;
  for (int64_t i = 0; i < 3; ++i) {
    row.AssignSubTensor(t, i);
    EXPECT_TRUE(row.SharesBufferWith(t));
    EXPECT_EQ(row, t.SubTensor(i));
  }
  Tensor kept = row;  // a copy keeps its row
  row.AssignSubTensor(t, 0);
  EXPECT_EQ(kept.flat<float>()[0], 4.0f);
  EXPECT_EQ(row.flat<float>()[0], 0.0f);
  // A view of another tensor becomes a view of this one.
  Tensor other = Tensor::FromVector<int32_t>({7, 8});
  row.AssignSubTensor(other, 1);
  EXPECT_EQ(row, Tensor::Scalar<int32_t>(8));
  Tensor words = Tensor::FromVector<std::string>({"a", "bc"});
  row.AssignSubTensor(words, 1);
  EXPECT_EQ(row.data<std::string>()[0], "bc");
}

TEST(TensorTest, StringTensorsHoldStrings) {
  Tensor t = Tensor::FromVector<std::string>({"a", "", "xyz"});
  EXPECT_EQ(t.flat<std::string>()[2], "xyz");
  Tensor sub = t.SubTensor(2);
  EXPECT_EQ(sub.data<std::string>()[0], "xyz");
  Tensor c = t.Clone();
  (*c.mutable_flat<std::string>())[0] = "changed";
  EXPECT_EQ(t.flat<std::string>()[0], "a");
  EXPECT_EQ(Tensor::Scalar("hi").data<std::string>()[0], "hi");
}

TEST(TensorTest, EqualityComparesDtypeShapeAndValues) {
  Tensor a = Tensor::FromVector<int64_t>({1, 2});
  EXPECT_EQ(a, Tensor::FromVector<int64_t>({1, 2}));
  EXPECT_FALSE(a == Tensor::FromVector<int64_t>({1, 3}));
  EXPECT_FALSE(a == Tensor::FromVector<int32_t>({1, 2}));
  EXPECT_FALSE(a == *Tensor::FromVector<int64_t>({1, 2}, TensorShape({2, 1})));
}

TEST(TensorTest, StackCopiesOnceIntoABatch) {
  std::vector<Tensor> rows = {Tensor::FromVector<float>({1, 2}),
                              Tensor::FromVector<float>({3, 4}),
                              Tensor::FromVector<float>({5, 6})};
  Result<Tensor> b = Tensor::Stack(rows);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->shape(), TensorShape({3, 2}));
  EXPECT_EQ(
      *b, *Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->raw_data()) % kTensorAlignment, 0u);
}

TEST(TensorTest, StackMovesTheStringsOfElementsNoOneElseHolds) {
  Tensor shared = Tensor::FromVector<std::string>({"kept", "also kept"});
  Tensor holder = shared;  // a second reference: copied, not moved
  std::vector<Tensor> rows = {
      Tensor::FromVector<std::string>({std::string(100, 'a'), "b"}), shared};
  shared = Tensor();
  Result<Tensor> b = Tensor::StackMove(std::move(rows));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b, *Tensor::FromVector<std::string>(
                    {std::string(100, 'a'), "b", "kept", "also kept"},
                    TensorShape({2, 2})));
  EXPECT_EQ(rows[0].flat<std::string>()[0], "");  // moved out
  EXPECT_EQ(holder.flat<std::string>()[0], "kept");
  EXPECT_EQ(rows[1].flat<std::string>()[1], "also kept");
  // Mismatches: the same errors as the copying Stack.
  std::vector<Tensor> bad = {Tensor::FromVector<std::string>({"x"}),
                             Tensor::FromVector<std::string>({"x", "y"})};
  EXPECT_TRUE(IsInvalidArgument(Tensor::StackMove(std::move(bad)).status()));
}

TEST(TensorTest, StackRejectsMismatches) {
  std::vector<Tensor> rows = {Tensor::FromVector<float>({1, 2}),
                              Tensor::FromVector<float>({3})};
  EXPECT_EQ(Tensor::Stack(rows).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Stack({}).status().code(), StatusCode::kInvalidArgument);
}

TEST(TensorTest, ConcatJoinsAlongDimZero) {
  std::vector<Tensor> parts = {Tensor::FromVector<std::string>({"a"}),
                               Tensor::FromVector<std::string>({"b", "c"})};
  Result<Tensor> c = Tensor::Concat(parts);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, Tensor::FromVector<std::string>({"a", "b", "c"}));
}

TEST(TensorTest, ReshapeKeepsElementCount) {
  Tensor t(DType::kUInt8, TensorShape({6}));
  Result<Tensor> r = t.Reshape(TensorShape({2, 3}));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(t));
  EXPECT_EQ(t.Reshape(TensorShape({4})).status().code(),
            StatusCode::kInvalidArgument);
}

// The shaped factory checks what an assert used to: a wrong count would
// have written past the buffer in Release.
TEST(TensorTest, FromVectorRejectsAShapeOfAnotherElementCount) {
  Result<Tensor> few =
      Tensor::FromVector<int32_t>({1, 2, 3}, TensorShape({2, 2}));
  ASSERT_EQ(few.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(few.status().message(),
            "FromVector: 3 values do not fill shape [2,2] of 4 elements");
  Result<Tensor> many =
      Tensor::FromVector<std::string>({"a", "b", "c"}, TensorShape({2}));
  EXPECT_EQ(many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Tensor::FromVector<int64_t>({}, TensorShape({0, 5})).ok());
  EXPECT_TRUE(Tensor::FromVector<int64_t>({7}, TensorShape()).ok());
}

// [-1,-2] has "2 elements" by multiplication; it is still not a shape.
TEST(TensorTest, FromVectorRejectsNegativeDimensions) {
  Result<Tensor> t = Tensor::FromVector<float>({1, 2}, TensorShape({-1, -2}));
  ASSERT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("negative dimension"),
            std::string_view::npos)
      << t.status();
}

TEST(TensorTest, MutableFlatChecksTheDtypeInEveryBuild) {
  Tensor t(DType::kInt32, TensorShape({2}));
  EXPECT_EQ(t.mutable_flat<int64_t>().status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(t.mutable_flat<uint32_t>().status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(t.mutable_flat<int32_t>().ok());
  Tensor none;
  EXPECT_EQ(none.mutable_raw_data().status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(TensorTest, UnsignedThirtyTwoAndSixtyFourBitTensors) {
  Tensor u32 = Tensor::FromVector<uint32_t>({0, 4294967295u});
  EXPECT_EQ(u32.dtype(), DType::kUInt32);
  EXPECT_EQ(u32.num_bytes(), 8u);
  EXPECT_EQ(u32.flat<uint32_t>()[1], 4294967295u);
  EXPECT_EQ(u32.DebugString(), "Tensor<uint32 [2]: [0 4294967295]>");
  Tensor u64 = Tensor::FromVector<uint64_t>({1, 18446744073709551615u});
  EXPECT_EQ(u64.dtype(), DType::kUInt64);
  EXPECT_EQ(u64.num_bytes(), 16u);
  EXPECT_EQ(u64.DebugString(), "Tensor<uint64 [2]: [1 18446744073709551615]>");
  EXPECT_EQ(Tensor::Scalar<uint64_t>(5).DebugString(),
            "Tensor<uint64 []: [5]>");
  Tensor rows[] = {u64, u64.Clone()};
  Result<Tensor> stacked = Tensor::Stack(rows);
  ASSERT_TRUE(stacked.ok()) << stacked.status();
  EXPECT_EQ(*stacked, *Tensor::FromVector<uint64_t>(
                          {1, 18446744073709551615u, 1, 18446744073709551615u},
                          TensorShape({2, 2})));
  EXPECT_FALSE(u32 == Tensor::FromVector<int32_t>({0, -1}));
}

// Broken preconditions of the calls that return no Status end the process
// in every build (this test runs in Release too) instead of reading or
// writing outside the buffer.
TEST(TensorDeathTest, WrongTypedReadAbortsInEveryBuild) {
  Tensor t(DType::kInt32, TensorShape({2}));
  EXPECT_DEATH((void)t.data<int64_t>(),
               "typed access as int64 to a tensor of dtype int32");
  EXPECT_DEATH((void)t.flat<uint32_t>(),
               "typed access as uint32 to a tensor of dtype int32");
}

TEST(TensorDeathTest, SliceOutsideDimensionZeroAbortsInEveryBuild) {
  Tensor t(DType::kFloat32, TensorShape({2, 3}));
  EXPECT_DEATH((void)t.Slice(1, 3),
               "Slice\\(1, 3\\) of a tensor of shape \\[2,3\\]");
  EXPECT_DEATH((void)t.Slice(-1, 1), "Slice\\(-1, 1\\)");
  EXPECT_DEATH((void)t.SubTensor(2), "SubTensor\\(2\\)");
  Tensor row;
  EXPECT_DEATH(row.AssignSubTensor(t, 2), "SubTensor\\(2\\)");
  EXPECT_DEATH((void)Tensor::Scalar<float>(1).Slice(0, 0), "Slice\\(0, 0\\)");
}

TEST(TensorDeathTest, NewTensorWithAnInvalidShapeAbortsInEveryBuild) {
  EXPECT_DEATH(Tensor(DType::kFloat32, TensorShape({-1, -2})),
               "invalid shape \\[\\?,\\?\\] for a new tensor");
  EXPECT_DEATH(
      Tensor::Uninitialized(DType::kUInt8,
                            TensorShape({int64_t{1} << 40, int64_t{1} << 40})),
      "invalid shape");
}

}  // namespace
}  // namespace inflow
