// Copyright 2026 The inflow Authors.

#include "inflow/io/crc32c.h"

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/kernel_select.h"
#include "io/crc32c_internal.h"
#include "kernel_test_util.h"

namespace inflow::crc32c {
namespace {

using ::inflow::internal::IsaLevel;
using internal::Kernel;
using internal::KernelName;
using internal::KernelSupported;
using testing::ScopedEnv;

TEST(Crc32cTest, KnownAnswersFromTheSpec) {
  EXPECT_EQ(Value("123456789"), 0xE3069283u);
  EXPECT_EQ(Value(""), 0u);
  EXPECT_EQ(Value("hello"), 0x9A71BB4Cu);
  EXPECT_EQ(Value(std::string(8, '\0')), 0x8C28B28Au);
}

TEST(Crc32cTest, KnownAnswersFromRfc3720) {
  EXPECT_EQ(Value(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Value(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(Value(ascending), 0x46DD794Eu);
  EXPECT_EQ(Value(descending), 0x113FDB5Cu);
}

TEST(Crc32cTest, MaskMatchesTheSpecAndUnmaskInvertsIt) {
  EXPECT_EQ(Mask(0x00000000u), 0xA282EAD8u);
  EXPECT_EQ(Mask(0x9A71BB4Cu), 0x191C1FBBu);
  EXPECT_EQ(Mask(0x8C28B28Au), 0x07980329u);
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t c = rng();
    EXPECT_NE(Mask(c), c);
    EXPECT_EQ(Unmask(Mask(c)), c);
    EXPECT_NE(Mask(Mask(c)), Mask(c));
  }
}

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  const std::string a = "The quick brown fox ", b = "jumps over the dog";
  EXPECT_EQ(Extend(Value(a), b.data(), b.size()), Value(a + b));
  EXPECT_EQ(Extend(Value("hello"), "", 0), Value("hello"));
}

std::vector<Kernel> RunnableKernels(const char* test) {
  return testing::RunnableKernels<Kernel>(test, internal::kAllKernels,
                                          KernelSupported, KernelName);
}

TEST(Crc32cTest, KernelsSupportedAreThoseTheCpuFlagsAllow) {
  const std::set<std::string> flags = testing::CpuFlags();
#if defined(__x86_64__) && defined(__linux__)
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  auto has = [&](const char* f) { return flags.count(f) != 0; };
  EXPECT_EQ(KernelSupported(Kernel::kSse42), has("sse4_2"));
  EXPECT_EQ(
      KernelSupported(Kernel::kVpclmul256),
      has("sse4_2") && has("pclmulqdq") && has("avx2") && has("vpclmulqdq"));
  EXPECT_EQ(KernelSupported(Kernel::kVpclmul512),
            has("sse4_2") && has("pclmulqdq") && has("avx512f") &&
                has("avx512bw") && has("vpclmulqdq"));
#else
  EXPECT_FALSE(KernelSupported(Kernel::kSse42));
  EXPECT_FALSE(KernelSupported(Kernel::kVpclmul256));
  EXPECT_FALSE(KernelSupported(Kernel::kVpclmul512));
#endif
  EXPECT_TRUE(KernelSupported(Kernel::kPortable));
}

TEST(Crc32cTest, EveryRunnableKernelAgreesWithPortableOnLengthsAndAlignments) {
  std::mt19937 rng(42);
  std::vector<char> buf(3 * 4096 * 4 + 1024);
  for (char& c : buf) c = static_cast<char>(rng());
  std::uniform_int_distribution<size_t> align(0, 63);
  // Lengths around every block boundary of the 3-way and folding paths,
  // then random.
  std::vector<size_t> lengths;
  for (size_t base : {size_t{0}, size_t{256}, size_t{512}, size_t{768},
                      size_t{1024}, size_t{3 * 4096}}) {
    for (size_t d = 0; d < 40; ++d) {
      lengths.push_back(base + d);
      if (base >= d) lengths.push_back(base - d);
    }
  }
  std::uniform_int_distribution<size_t> len(0, 3 * 4096 * 4);
  for (int i = 0; i < 300; ++i) lengths.push_back(len(rng));
  const std::vector<Kernel> kernels = RunnableKernels("crc32c lengths");
  for (size_t n : lengths) {
    const size_t off = align(rng);
    const uint32_t seed = rng();
    const uint32_t portable =
        internal::ExtendWith(Kernel::kPortable, seed, buf.data() + off, n);
    for (Kernel k : kernels) {
      ASSERT_EQ(internal::ExtendWith(k, seed, buf.data() + off, n), portable)
          << KernelName(k) << ", length " << n << " offset " << off;
    }
    ASSERT_EQ(Extend(seed, buf.data() + off, n), portable);
  }
}

// The folding kernels first run the bytes up to a 64-byte boundary through
// crc32; every distance to the boundary, with lengths that leave fewer than
// 256, exactly 256 or more bytes to fold after it, every count of trailing
// 32- and 16-byte blocks, and the hybrid path's bounds.
TEST(Crc32cTest, FoldingKernelsAgreeWithPortableFromEveryCacheLineOffset) {
  std::mt19937 rng(7);
  std::vector<char> buf(8192 + 128);
  for (char& c : buf) c = static_cast<char>(rng());
  char* const line =
      buf.data() + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64;
  std::vector<size_t> lengths = {256, 257, 300, 319,       320, 511,
                                 512, 575, 576, 4096 + 13, 8192};
  for (size_t n = 512; n < 512 + 256; n += 15) lengths.push_back(n);
  // Around where vpclmul256 starts its hybrid path (4 steps of 520 bytes)
  // and one step more.
  for (size_t n : {2079, 2080, 2081, 2599, 2600, 2601, 6000}) {
    lengths.push_back(n);
  }
  int folding = 0;
  for (Kernel k : RunnableKernels("crc32c folding")) {
    if (k != Kernel::kVpclmul256 && k != Kernel::kVpclmul512) continue;
    ++folding;
    for (size_t off = 0; off < 64; ++off) {
      for (size_t n : lengths) {
        const uint32_t seed = rng();
        ASSERT_EQ(internal::ExtendWith(k, seed, line + off, n),
                  internal::ExtendWith(Kernel::kPortable, seed, line + off, n))
            << KernelName(k) << ", length " << n << " offset " << off;
      }
    }
  }
  RecordProperty("folding_kernels_run", folding);
}

Kernel Best(IsaLevel limit) {
  for (Kernel k : internal::kAllKernels) {
    const bool avx512 = k == Kernel::kVpclmul512;
    const bool avx2 = avx512 || k == Kernel::kVpclmul256;
    if (avx512 && limit < IsaLevel::kAvx512) continue;
    if (avx2 && limit < IsaLevel::kAvx2) continue;
    if (k == Kernel::kSse42 && limit < IsaLevel::kSse42) continue;
    if (KernelSupported(k)) return k;
  }
  return Kernel::kPortable;
}

TEST(Crc32cTest, KernelIsTheBestSupportedOneWithinInflowKernels) {
  ScopedEnv no_name("INFLOW_CRC32C_KERNEL", "");
  {
    ScopedEnv unset("INFLOW_KERNELS", "");
    EXPECT_EQ(internal::ChooseKernel(), Best(IsaLevel::kAvx512));
  }
  for (auto [name, level] : {std::pair{"avx512", IsaLevel::kAvx512},
                             std::pair{"avx2", IsaLevel::kAvx2},
                             std::pair{"sse4.2", IsaLevel::kSse42},
                             std::pair{"portable", IsaLevel::kPortable}}) {
    ScopedEnv limit("INFLOW_KERNELS", name);
    EXPECT_EQ(KernelName(internal::ChooseKernel()), KernelName(Best(level)))
        << "INFLOW_KERNELS=" << name;
  }
}

TEST(Crc32cTest, KernelNamedInTheEnvironmentRunsWhenTheCpuHasIt) {
  ScopedEnv limit("INFLOW_KERNELS", "portable");  // the name wins over it
  for (Kernel k : internal::kAllKernels) {
    ScopedEnv name("INFLOW_CRC32C_KERNEL", std::string(KernelName(k)));
    EXPECT_EQ(KernelName(internal::ChooseKernel()),
              KernelName(KernelSupported(k) ? k : Kernel::kPortable));
  }
  ScopedEnv unknown("INFLOW_CRC32C_KERNEL", "no-such-kernel");
  EXPECT_EQ(internal::ChooseKernel(), Kernel::kPortable);
}

TEST(Crc32cTest, KernelNamesAreTheEnvironmentsSpellings) {
  EXPECT_EQ(KernelName(Kernel::kVpclmul512), "vpclmul512");
  EXPECT_EQ(KernelName(Kernel::kVpclmul256), "vpclmul256");
  EXPECT_EQ(KernelName(Kernel::kSse42), "sse42");
  EXPECT_EQ(KernelName(Kernel::kPortable), "portable");
}

}  // namespace
}  // namespace inflow::crc32c
