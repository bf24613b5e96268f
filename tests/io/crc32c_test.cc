// Copyright 2026 The inflow Authors.

#include "inflow/io/crc32c.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace inflow::crc32c {
namespace {

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

TEST(Crc32cTest, HardwarePathAgreesWithPortableOnRandomLengthsAndAlignments) {
  if (!HardwareAvailable()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937 rng(42);
  std::vector<char> buf(3 * 4096 * 4 + 1024);
  for (char& c : buf) c = static_cast<char>(rng());
  std::uniform_int_distribution<size_t> align(0, 63);
  // Lengths around every block boundary of the 3-way paths, then random.
  std::vector<size_t> lengths;
  for (size_t base :
       {size_t{0}, size_t{256}, size_t{512}, size_t{768}, size_t{3 * 4096}}) {
    for (size_t d = 0; d < 24; ++d) {
      lengths.push_back(base + d);
      if (base >= d) lengths.push_back(base - d);
    }
  }
  std::uniform_int_distribution<size_t> len(0, 3 * 4096 * 4);
  for (int i = 0; i < 300; ++i) lengths.push_back(len(rng));
  for (size_t n : lengths) {
    const size_t off = align(rng);
    const uint32_t seed = rng();
    const uint32_t portable = ExtendPortable(seed, buf.data() + off, n);
    ASSERT_EQ(ExtendSse42(seed, buf.data() + off, n), portable)
        << "sse4.2, length " << n << " offset " << off;
    if (VpclmulAvailable()) {
      ASSERT_EQ(ExtendVpclmul(seed, buf.data() + off, n), portable)
          << "vpclmulqdq, length " << n << " offset " << off;
    }
    ASSERT_EQ(Extend(seed, buf.data() + off, n), portable);
  }
}

// The folding path first runs the bytes up to a 64-byte boundary through
// crc32; every distance to the boundary, with lengths that leave fewer than
// 256, exactly 256 or more bytes to fold after it.
TEST(Crc32cTest, VpclmulPathAgreesWithPortableFromEveryCacheLineOffset) {
  if (!VpclmulAvailable()) GTEST_SKIP() << "no VPCLMULQDQ on this CPU";
  std::mt19937 rng(7);
  std::vector<char> buf(8192 + 128);
  for (char& c : buf) c = static_cast<char>(rng());
  char* const line =
      buf.data() + (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64;
  for (size_t off = 0; off < 64; ++off) {
    for (size_t n : {size_t{256}, size_t{257}, size_t{300}, size_t{319},
                     size_t{320}, size_t{511}, size_t{512}, size_t{575},
                     size_t{576}, size_t{4096 + 13}, size_t{8192}}) {
      const uint32_t seed = rng();
      ASSERT_EQ(ExtendVpclmul(seed, line + off, n),
                ExtendPortable(seed, line + off, n))
          << "length " << n << " offset " << off;
    }
  }
}

TEST(Crc32cTest, ImplementationNameReportsTheChosenPath) {
  const std::string_view expected = VpclmulAvailable()
                                        ? "avx512 vpclmulqdq + sse4.2"
                                    : HardwareAvailable() ? "sse4.2 (3-way)"
                                                          : "portable";
  EXPECT_EQ(ImplementationName(), expected);
}

}  // namespace
}  // namespace inflow::crc32c
