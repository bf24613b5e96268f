// Copyright 2026 The inflow Authors.
//
// The word-at-a-time varint counting and decoding against a plain byte
// loop, on every varint length and on malformed tails.

#include "example/packed_varints.h"

#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "example/varint_kernels.h"
#include "kernel_test_util.h"

namespace inflow::internal {
namespace {

std::vector<VarintKernel> RunnableKernels(const char* test) {
  return testing::RunnableKernels<VarintKernel>(
      test, kAllVarintKernels, VarintKernelSupported, VarintKernelName);
}

std::vector<uint64_t> Reference(std::string_view payload) {
  std::vector<uint64_t> out;
  WireReader r(payload);
  uint64_t v;
  while (!r.done() && r.ReadVarint(&v)) out.push_back(v);
  return out;
}

TEST(WireTest, PackedVarintsDecodeLikeAByteLoopWithEveryRunnableKernel) {
  const std::vector<VarintKernel> kernels = RunnableKernels("decode");
  std::mt19937_64 rng(9);
  for (int round = 0; round < 2000; ++round) {
    std::string payload;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const int bits = static_cast<int>(rng() % 65);  // 0..64 bits
      const uint64_t v = bits == 0 ? 0 : rng() >> (64 - bits);
      PutVarint(&payload, v);
    }
    const std::vector<uint64_t> want = Reference(payload);
    ASSERT_EQ(CountPackedVarints(payload), static_cast<int64_t>(want.size()));
    for (VarintKernel k : kernels) {
      std::vector<int64_t> got(want.size() + 1);
      ASSERT_EQ(DecodePackedVarintsWith(k, payload, got.data()),
                static_cast<int64_t>(want.size()));
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(static_cast<uint64_t>(got[i]), want[i])
            << VarintKernelName(k) << " " << round << " " << i;
      }
    }
    std::vector<int64_t> got(want.size() + 1);
    ASSERT_EQ(DecodePackedVarints(payload, got.data()),
              static_cast<int64_t>(want.size()));
  }
}

TEST(WireTest, CountRejectsUnterminatedAndOverlongVarints) {
  EXPECT_EQ(CountPackedVarints(""), 0);
  EXPECT_EQ(CountPackedVarints("\x80"), -1);
  EXPECT_EQ(CountPackedVarints(std::string(9, '\xff') + "\x01"), 1);
  EXPECT_EQ(CountPackedVarints(std::string(10, '\xff') + "\x01"), -1);
  // The same across an 8-byte word boundary.
  EXPECT_EQ(CountPackedVarints("\x01\x02\x03\x04\x05" +
                               std::string(10, '\x80') + "\x01"),
            -1);
  EXPECT_EQ(CountPackedVarints("\x01\x02\x03\x04\x05" + std::string(9, '\x80') +
                               "\x01"),
            6);
  EXPECT_EQ(CountPackedVarints(std::string(16, '\x01') + "\x80"), -1);
}

TEST(WireTest, TenByteVarintsAndOverlongRunsAtEveryOffsetAcross64ByteBlocks) {
  // The counting and decoding work on 64-byte blocks: a varint may start
  // at any offset before a block boundary and end after it.
  const std::vector<VarintKernel> kernels = RunnableKernels("ten bytes");
  for (size_t offset = 0; offset < 140; ++offset) {
    const std::string head(offset, '\x05');
    const std::string ten = std::string(9, '\xff') + "\x01";
    const std::string payload = head + ten + "\x07";
    ASSERT_EQ(CountPackedVarints(payload), static_cast<int64_t>(offset) + 2)
        << offset;
    const std::vector<uint64_t> want = Reference(payload);
    for (VarintKernel k : kernels) {
      std::vector<int64_t> got(offset + 2);
      ASSERT_EQ(DecodePackedVarintsWith(k, payload, got.data()),
                static_cast<int64_t>(offset) + 2);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(static_cast<uint64_t>(got[i]), want[i])
            << VarintKernelName(k) << " " << offset;
      }
    }
    ASSERT_EQ(
        CountPackedVarints(head + std::string(10, '\x80') + "\x01" + head), -1)
        << offset;
    ASSERT_EQ(CountPackedVarints(head + std::string(9, '\x80')), -1) << offset;
  }
}

// DecodePackedVarintsChecked against CountPackedVarints and the byte loop:
// the count, the values when they fit, no write past the capacity, with and
// without readable bytes after the payload.
TEST(WireTest, CheckedDecodeCountsValidatesAndStaysWithinCapacity) {
  const std::vector<VarintKernel> kernels = RunnableKernels("checked");
  std::mt19937_64 rng(17);
  constexpr int64_t kCanary = 0x5a5a5a5a5a5a5a5a;
  for (int round = 0; round < 4000; ++round) {
    std::string payload;
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const int bits = static_cast<int>(rng() % 65);
      const uint64_t v = bits == 0 ? 0 : rng() >> (64 - bits);
      PutVarint(&payload, v);
    }
    if (round % 7 == 0 && !payload.empty()) {
      // Malformed: an unterminated tail, or an 11-byte varint.
      if (rng() % 2 == 0) {
        payload.back() = static_cast<char>(payload.back() | 0x80);
      } else {
        payload.insert(rng() % payload.size(), std::string(10, '\x80'));
      }
    }
    const int64_t count = CountPackedVarints(payload);
    const std::vector<uint64_t> want = Reference(payload);
    if (count >= 0) {
      ASSERT_EQ(count, static_cast<int64_t>(want.size()));
    }
    // The payload inside a buffer with `slack` readable bytes after it.
    for (size_t slack : {size_t{0}, size_t{5}, size_t{64}, size_t{100}}) {
      std::string buffer = payload + std::string(slack, '\xff');
      const std::string_view in(buffer.data(), payload.size());
      const int64_t capacity =
          count < 0
              ? 0
              : (rng() % 3 == 0 ? static_cast<int64_t>(rng() % (count + 1))
                                : count);
      // Each kernel, then the short-payload reader, then the default.
      for (size_t variant = 0; variant < kernels.size() + 2; ++variant) {
        std::vector<int64_t> out(static_cast<size_t>(capacity) + 1, kCanary);
        const int64_t got =
            variant < kernels.size()
                ? DecodePackedVarintsCheckedWith(kernels[variant], in,
                                                 out.data(), capacity, slack)
            : variant == kernels.size()
                ? DecodeShortPackedVarintsChecked(in, out.data(), capacity)
                : DecodePackedVarintsChecked(in, out.data(), capacity, slack);
        ASSERT_EQ(got, count)
            << round << " slack " << slack << " variant " << variant;
        ASSERT_EQ(out[static_cast<size_t>(capacity)], kCanary) << round;
        if (count >= 0 && count <= capacity) {
          for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(static_cast<uint64_t>(out[i]), want[i])
                << round << " " << i << " slack " << slack;
          }
        }
      }
    }
  }
}

// Long lists (where the group decoders decode groups of short varints) of
// short, long and mixed varints, some damaged, against a byte loop.
TEST(WireTest, CheckedDecodeOfLongListsMatchesAByteLoopWithEveryKernel) {
  const std::vector<VarintKernel> kernels = RunnableKernels("long lists");
  std::mt19937_64 rng(29);
  constexpr int64_t kCanary = 0x5a5a5a5a5a5a5a5a;
  for (int round = 0; round < 20000; ++round) {
    std::string payload;
    const int n = static_cast<int>(rng() % 150);
    const int mix = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      int bits = static_cast<int>(rng() % 65);
      if (mix == 0 || rng() % 3 == 0) bits = static_cast<int>(rng() % 8);
      if (mix == 1) bits = 28 + static_cast<int>(rng() % 29);  // 4-9 bytes
      PutVarint(&payload, bits == 0 ? 0 : rng() >> (64 - bits));
    }
    if (rng() % 10 == 0 && !payload.empty()) {
      payload[rng() % payload.size()] |= '\x80';
    }
    if (rng() % 20 == 0) payload.append(std::string(11, '\x80') + "\x01");
    const size_t slack = rng() % 2 == 0 ? 64 + rng() % 10 : rng() % 70;
    const std::string buffer = payload + std::string(slack, '\xff');
    const std::string_view in(buffer.data(), payload.size());
    const int64_t capacity =
        rng() % 4 == 0 ? static_cast<int64_t>(rng() % 160) : 200;
    std::vector<int64_t> want(201, kCanary);
    const int64_t count =
        DecodeShortPackedVarintsChecked(in, want.data(), capacity);
    for (VarintKernel k : kernels) {
      std::vector<int64_t> got(201, kCanary);
      ASSERT_EQ(
          DecodePackedVarintsCheckedWith(k, in, got.data(), capacity, slack),
          count)
          << VarintKernelName(k) << " " << round;
      ASSERT_EQ(got[static_cast<size_t>(capacity)], kCanary) << round;
      if (count >= 0 && count <= capacity) {
        for (int64_t i = 0; i < count; ++i) {
          ASSERT_EQ(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)])
              << VarintKernelName(k) << " " << round << " " << i;
        }
      }
    }
  }
}

TEST(WireTest, CheckedDecodeHandlesLongVarintsAcrossBlocks) {
  const std::vector<VarintKernel> kernels = RunnableKernels("across blocks");
  for (size_t offset = 0; offset < 140; ++offset) {
    const std::string head(offset, '\x05');
    const std::string payload =
        head + std::string(9, '\xff') + "\x01" + "\x07" + head;
    const std::vector<uint64_t> want = Reference(payload);
    for (size_t slack : {size_t{0}, size_t{64}}) {
      const std::string buffer = payload + std::string(slack, '\x80');
      const std::string_view in(buffer.data(), payload.size());
      const std::string bad = head + std::string(10, '\x80') + "\x01" + head;
      for (VarintKernel k : kernels) {
        std::vector<int64_t> out(want.size());
        const auto cap = static_cast<int64_t>(want.size());
        ASSERT_EQ(DecodePackedVarintsCheckedWith(k, in, out.data(), cap, slack),
                  cap)
            << VarintKernelName(k);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(static_cast<uint64_t>(out[i]), want[i])
              << VarintKernelName(k) << " " << offset;
        }
        ASSERT_EQ(DecodePackedVarintsCheckedWith(k, bad, nullptr, 0, 0), -1);
      }
      ASSERT_EQ(DecodePackedVarintsChecked(bad, nullptr, 0, 0), -1);
      ASSERT_EQ(DecodeShortPackedVarintsChecked(bad, nullptr, 0), -1);
    }
  }
}

TEST(WireTest, VarintKernelsSupportedAreThoseTheCpuFlagsAllow) {
  const std::set<std::string> flags = testing::CpuFlags();
#if defined(__x86_64__) && defined(__linux__)
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  auto has = [&](const char* f) { return flags.count(f) != 0; };
  const bool bmi2 = has("bmi2") && has("popcnt");
  EXPECT_EQ(VarintKernelSupported(VarintKernel::kBmi2), bmi2);
  EXPECT_EQ(VarintKernelSupported(VarintKernel::kAvx512Vbmi2),
            bmi2 && has("avx512f") && has("avx512bw") && has("avx512vbmi") &&
                has("avx512_vbmi2"));
#else
  EXPECT_FALSE(VarintKernelSupported(VarintKernel::kBmi2));
  EXPECT_FALSE(VarintKernelSupported(VarintKernel::kAvx512Vbmi2));
#endif
  EXPECT_TRUE(VarintKernelSupported(VarintKernel::kPortable));
}

TEST(WireTest, VarintKernelIsTheBestSupportedOneWithinInflowKernels) {
  testing::ScopedEnv no_name("INFLOW_VARINT_KERNEL", "");
  const bool avx512 = VarintKernelSupported(VarintKernel::kAvx512Vbmi2);
  const bool bmi2 = VarintKernelSupported(VarintKernel::kBmi2);
  const VarintKernel below_avx512 =
      bmi2 ? VarintKernel::kBmi2 : VarintKernel::kPortable;
  {
    testing::ScopedEnv unset("INFLOW_KERNELS", "");
    EXPECT_EQ(ChooseVarintKernel(),
              avx512 ? VarintKernel::kAvx512Vbmi2 : below_avx512);
  }
  {
    testing::ScopedEnv limit("INFLOW_KERNELS", "avx2");
    EXPECT_EQ(ChooseVarintKernel(), below_avx512);
  }
  {
    testing::ScopedEnv limit("INFLOW_KERNELS", "sse4.2");
    EXPECT_EQ(ChooseVarintKernel(), VarintKernel::kPortable);
  }
  testing::ScopedEnv limit("INFLOW_KERNELS", "portable");
  for (VarintKernel k : kAllVarintKernels) {
    testing::ScopedEnv name("INFLOW_VARINT_KERNEL",
                            std::string(VarintKernelName(k)));
    EXPECT_EQ(ChooseVarintKernel(),
              VarintKernelSupported(k) ? k : VarintKernel::kPortable)
        << VarintKernelName(k);
  }
}

TEST(WireTest, VarintKernelNamesAreTheEnvironmentsSpellings) {
  EXPECT_EQ(VarintKernelName(VarintKernel::kAvx512Vbmi2), "avx512vbmi2");
  EXPECT_EQ(VarintKernelName(VarintKernel::kBmi2), "bmi2");
  EXPECT_EQ(VarintKernelName(VarintKernel::kPortable), "portable");
}

}  // namespace
}  // namespace inflow::internal
