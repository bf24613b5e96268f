// Copyright 2026 The inflow Authors.
//
// SparseRows and the sparse-times-dense product: the portable kernel
// against a double-precision dense product, every other kernel the CPU
// runs against the portable one bit for bit, and the kernel choice.

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "model/matmul_kernels.h"
#include "model/sparse_rows.h"
#include "train_test_util.h"

namespace inflow::internal {
namespace {

using testing::Bits;

std::vector<float> RandomMatrix(std::mt19937* rng, int64_t rows, int64_t cols,
                                double zero_fraction) {
  std::vector<float> m(rows * cols);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_real_distribution<double> z(0.0, 1.0);
  for (float& v : m) v = z(*rng) < zero_fraction ? 0.0f : u(*rng);
  return m;
}

TEST(SparseRowsTest, KeepsTheNonzeroEntriesOfEachRowInColumnOrder) {
  const std::vector<float> a = {0, 2,     0, -3,  //
                                0, 0,     0, 0,   //
                                5, -0.0f, 0, 7};
  SparseRows s;
  s.AssignDense(a.data(), 3, 4);
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(s.cols, 4);
  EXPECT_EQ(s.begin, (std::vector<int32_t>{0, 2, 2, 4}));
  ASSERT_EQ(s.nonzeros(), 4);
  s.index.resize(4);
  s.value.resize(4);
  EXPECT_EQ(s.index, (std::vector<int32_t>{1, 3, 0, 3}));
  EXPECT_EQ(s.value, (std::vector<float>{2, -3, 5, 7}));
}

TEST(SparseRowsTest, TransposedHoldsEachColumnInRowOrder) {
  const std::vector<float> a = {0, 2, 0, -3,  //
                                1, 0, 0, 4,   //
                                5, 6, 0, 7};
  SparseRows s, t;
  s.AssignDense(a.data(), 3, 4);
  t.AssignTransposed(s);
  EXPECT_EQ(t.rows, 4);
  EXPECT_EQ(t.cols, 3);
  EXPECT_EQ(t.begin, (std::vector<int32_t>{0, 2, 4, 4, 7}));
  ASSERT_EQ(t.nonzeros(), 7);
  t.index.resize(7);
  t.value.resize(7);
  EXPECT_EQ(t.index, (std::vector<int32_t>{1, 2, 0, 2, 0, 1, 2}));
  EXPECT_EQ(t.value, (std::vector<float>{1, 5, 2, 6, -3, 4, 7}));
}

TEST(SparseRowsTest, RefillingASmallerMatrixKeepsOnlyItsEntries) {
  const std::vector<float> big(6 * 5, 1.0f), small = {0, 3, 4, 0};
  SparseRows s, t;
  s.AssignDense(big.data(), 6, 5);
  t.AssignTransposed(s);
  s.AssignDense(small.data(), 2, 2);
  EXPECT_EQ(s.nonzeros(), 2);
  EXPECT_EQ(s.begin, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(s.index[0], 1);
  EXPECT_EQ(s.index[1], 0);
  t.AssignTransposed(s);
  EXPECT_EQ(t.nonzeros(), 2);
  EXPECT_EQ(t.begin, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(t.value[0], 4.0f);
  EXPECT_EQ(t.value[1], 3.0f);
}

TEST(SparseRowsTest, TransposeMovesEveryElement) {
  std::mt19937 rng(3);
  for (auto [rows, cols] : {std::pair{1, 1}, {5, 70}, {33, 31}, {64, 65}}) {
    const std::vector<float> a = RandomMatrix(&rng, rows, cols, 0.0);
    std::vector<float> t(rows * cols);
    Transpose(a.data(), rows, cols, t.data());
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        ASSERT_EQ(t[j * rows + i], a[i * cols + j]) << i << "," << j;
      }
    }
  }
}

// The shapes: output widths around every kernel's vector and pass widths.
const int64_t kWidths[] = {1,  7,  8,  9,   10,  15,  16,  17,
                           63, 64, 65, 127, 128, 129, 200, 625};

TEST(SparseMatMulTest, PortableEqualsTheDenseProductInDoublePrecision) {
  std::mt19937 rng(1);
  for (int64_t n : kWidths) {
    for (double zeros : {0.0, 0.5, 0.9, 1.0}) {
      const int64_t m = 9, k = 37;
      const std::vector<float> a = RandomMatrix(&rng, m, k, zeros);
      const std::vector<float> b = RandomMatrix(&rng, k, n, 0.0);
      SparseRows s;
      s.AssignDense(a.data(), m, k);
      std::vector<float> c(m * n, 99.0f);
      SparseMatMul(TrainKernel::kPortable, s, b.data(), n, c.data());
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double want = 0, mag = 0;
          for (int64_t l = 0; l < k; ++l) {
            want += double{a[i * k + l]} * b[l * n + j];
            mag += std::abs(double{a[i * k + l]} * b[l * n + j]);
          }
          ASSERT_NEAR(c[i * n + j], want, 1e-6 * mag + 1e-30)
              << "n=" << n << " zeros=" << zeros << " at " << i << "," << j;
        }
      }
    }
  }
}

TEST(SparseMatMulTest, EveryKernelGivesThePortableKernelsBits) {
  std::mt19937 rng(2);
  for (TrainKernel kernel : testing::RunnableTrainKernels("sparse matmul")) {
    for (int64_t n : kWidths) {
      for (double zeros : {0.0, 0.75}) {
        const int64_t m = 13, k = 50;
        const std::vector<float> a = RandomMatrix(&rng, m, k, zeros);
        const std::vector<float> b = RandomMatrix(&rng, k, n, 0.0);
        SparseRows s;
        s.AssignDense(a.data(), m, k);
        // Guard cells after the output: a masked tail must not write them.
        std::vector<float> want(m * n + 16, -7.0f), got(m * n + 16, -7.0f);
        SparseMatMul(TrainKernel::kPortable, s, b.data(), n, want.data());
        SparseMatMul(kernel, s, b.data(), n, got.data());
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(Bits(got[i]), Bits(want[i]))
              << TrainKernelName(kernel) << " n=" << n << " at " << i;
        }
      }
    }
  }
}

TEST(SparseMatMulTest, AnAllZeroRowGivesAZeroOutputRow) {
  for (TrainKernel kernel : testing::RunnableTrainKernels("zero row")) {
    const std::vector<float> a(2 * 3, 0.0f);
    const std::vector<float> b(3 * 20, 1.0f);
    SparseRows s;
    s.AssignDense(a.data(), 2, 3);
    std::vector<float> c(2 * 20, 5.0f);
    SparseMatMul(kernel, s, b.data(), 20, c.data());
    for (float v : c) ASSERT_EQ(v, 0.0f) << TrainKernelName(kernel);
  }
}

// The Mlp forms a weight gradient a^T * d either as a^T's rows times d or
// as the transpose of d^T's rows times a, whichever has fewer nonzero
// terms: both must give the same bits.
TEST(SparseMatMulTest, WeightGradientGivesTheSameBitsEitherWay) {
  std::mt19937 rng(5);
  const int64_t batch = 32, in = 70, out = 45;
  for (TrainKernel kernel : testing::RunnableTrainKernels("both ways")) {
    const std::vector<float> a = RandomMatrix(&rng, batch, in, 0.5);
    const std::vector<float> d = RandomMatrix(&rng, batch, out, 0.75);
    SparseRows a_rows, d_rows, t;
    a_rows.AssignDense(a.data(), batch, in);
    d_rows.AssignDense(d.data(), batch, out);
    std::vector<float> direct(in * out), flipped(out * in), back(in * out);
    t.AssignTransposed(a_rows);
    SparseMatMul(kernel, t, d.data(), out, direct.data());
    t.AssignTransposed(d_rows);
    SparseMatMul(kernel, t, a.data(), in, flipped.data());
    Transpose(flipped.data(), out, in, back.data());
    for (size_t i = 0; i < direct.size(); ++i) {
      ASSERT_EQ(Bits(back[i]), Bits(direct[i]))
          << TrainKernelName(kernel) << " at " << i;
    }
  }
}

TEST(TrainKernelChoiceTest, TheEnvironmentNamesTheKernel) {
  {
    testing::ScopedEnv env("INFLOW_TRAIN_KERNEL", "portable");
    EXPECT_EQ(ChooseTrainKernel(), TrainKernel::kPortable);
  }
  {
    testing::ScopedEnv env("INFLOW_KERNELS", "portable");
    EXPECT_EQ(ChooseTrainKernel(), TrainKernel::kPortable);
  }
  for (TrainKernel kernel : testing::RunnableTrainKernels("choice")) {
    testing::ScopedEnv env("INFLOW_TRAIN_KERNEL",
                           std::string(TrainKernelName(kernel)));
    EXPECT_EQ(ChooseTrainKernel(), kernel);
  }
}

TEST(TrainKernelChoiceTest, KernelsFollowTheCpuFlags) {
  const std::set<std::string> flags = testing::CpuFlags();
  EXPECT_EQ(TrainKernelSupported(TrainKernel::kAvx512),
            flags.count("avx512f") == 1);
  EXPECT_EQ(TrainKernelSupported(TrainKernel::kAvx2), flags.count("avx2") == 1);
  EXPECT_TRUE(TrainKernelSupported(TrainKernel::kPortable));
}

}  // namespace
}  // namespace inflow::internal
