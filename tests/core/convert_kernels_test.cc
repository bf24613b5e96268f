// Copyright 2026 The inflow Authors.

#include "core/convert_kernels.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.h"

namespace inflow::internal {
namespace {

std::vector<ConvertKernel> RunnableKernels(const char* test) {
  return testing::RunnableKernels<ConvertKernel>(
      test, kAllConvertKernels, ConvertKernelSupported, ConvertKernelName);
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(ConvertKernelsTest, EveryByteValueConvertsToTheCastTimesTheScale) {
  std::vector<uint8_t> in(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<uint8_t>(i);
  for (float scale : {1.0f, 1.0f / 255, 0.5f, -3.25f}) {
    for (ConvertKernel k : RunnableKernels("every byte")) {
      std::vector<float> out(256, -1);
      Uint8ToFloatScaledWith(k, in.data(), in.size(), scale, out.data());
      for (int i = 0; i < 256; ++i) {
        ASSERT_EQ(Bits(out[i]), Bits(static_cast<float>(i) * scale))
            << ConvertKernelName(k) << " " << i << " " << scale;
      }
    }
  }
}

TEST(ConvertKernelsTest,
     EveryKernelMatchesThePortableOneAtEveryLengthAndOffset) {
  std::mt19937 rng(13);
  std::vector<uint8_t> in(300);
  for (uint8_t& b : in) b = static_cast<uint8_t>(rng());
  const float scale = 1.0f / 255;
  for (ConvertKernel k : RunnableKernels("lengths")) {
    for (size_t offset = 0; offset < 4; ++offset) {
      for (size_t n = 0; n + offset <= 200; ++n) {
        // A guard value after the end shows a kernel writing too far.
        std::vector<float> want(n + 1, 7), got(n + 1, 7);
        Uint8ToFloatPortable(in.data() + offset, n, scale, want.data());
        Uint8ToFloatScaledWith(k, in.data() + offset, n, scale, got.data());
        ASSERT_EQ(0, std::memcmp(want.data(), got.data(), (n + 1) * 4))
            << ConvertKernelName(k) << " n=" << n << " offset=" << offset;
      }
    }
  }
}

TEST(ConvertKernelsTest, TheEnvironmentPicksTheKernelByNameAndByLevel) {
  {
    testing::ScopedEnv env("INFLOW_CONVERT_KERNEL", "portable");
    EXPECT_EQ(ChooseConvertKernel(), ConvertKernel::kPortable);
  }
  {
    testing::ScopedEnv env("INFLOW_KERNELS", "portable");
    EXPECT_EQ(ChooseConvertKernel(), ConvertKernel::kPortable);
  }
  const std::set<std::string> flags = testing::CpuFlags();
  if (flags.count("avx2") != 0) {
    testing::ScopedEnv env("INFLOW_KERNELS", "avx2");
    EXPECT_EQ(ChooseConvertKernel(), ConvertKernel::kAvx2);
  }
  if (flags.count("avx512f") != 0) {
    EXPECT_EQ(ChooseConvertKernel(), ConvertKernel::kAvx512);
  }
  EXPECT_EQ(ConvertKernelSupported(ConvertKernel::kAvx512),
            flags.count("avx512f") != 0);
  EXPECT_EQ(ConvertKernelSupported(ConvertKernel::kAvx2),
            flags.count("avx2") != 0);
}

}  // namespace
}  // namespace inflow::internal
