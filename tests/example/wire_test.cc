// Copyright 2026 The inflow Authors.
//
// The word-at-a-time varint counting and decoding against a plain byte
// loop, on every varint length and on malformed tails.

#include "example/wire.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace inflow::internal {
namespace {

std::vector<uint64_t> Reference(std::string_view payload) {
  std::vector<uint64_t> out;
  WireReader r(payload);
  uint64_t v;
  while (!r.done() && r.ReadVarint(&v)) out.push_back(v);
  return out;
}

TEST(WireTest, PackedVarintsDecodeLikeAByteLoopOnBothPaths) {
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
    std::vector<int64_t> fast(want.size() + 1), portable(want.size() + 1);
    ASSERT_EQ(DecodePackedVarints(payload, fast.data()),
              static_cast<int64_t>(want.size()));
    ASSERT_EQ(DecodePackedVarintsPortable(payload, portable.data()),
              static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(static_cast<uint64_t>(fast[i]), want[i]) << round << " " << i;
      ASSERT_EQ(static_cast<uint64_t>(portable[i]), want[i])
          << round << " " << i;
    }
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
  for (size_t offset = 0; offset < 140; ++offset) {
    const std::string head(offset, '\x05');
    const std::string ten = std::string(9, '\xff') + "\x01";
    const std::string payload = head + ten + "\x07";
    ASSERT_EQ(CountPackedVarints(payload), static_cast<int64_t>(offset) + 2)
        << offset;
    std::vector<int64_t> fast(offset + 2), portable(offset + 2);
    ASSERT_EQ(DecodePackedVarints(payload, fast.data()),
              static_cast<int64_t>(offset) + 2);
    ASSERT_EQ(DecodePackedVarintsPortable(payload, portable.data()),
              static_cast<int64_t>(offset) + 2);
    const std::vector<uint64_t> want = Reference(payload);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(static_cast<uint64_t>(fast[i]), want[i]) << offset;
      ASSERT_EQ(static_cast<uint64_t>(portable[i]), want[i]) << offset;
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
      for (int variant = 0; variant < 3; ++variant) {
        std::vector<int64_t> out(static_cast<size_t>(capacity) + 1, kCanary);
        const int64_t got =
            variant == 0
                ? DecodePackedVarintsChecked(in, out.data(), capacity, slack)
            : variant == 1
                ? DecodePackedVarintsCheckedPortable(in, out.data(), capacity,
                                                     slack)
                : DecodeShortPackedVarintsChecked(in, out.data(), capacity);
        ASSERT_EQ(got, count) << round << " slack " << slack;
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

// Long lists (where the AVX-512 path, if the CPU has it, decodes groups of
// eight) of short, long and mixed varints, some damaged, against a byte loop.
TEST(WireTest, CheckedDecodeOfLongListsMatchesAByteLoop) {
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
    std::vector<int64_t> want(201, kCanary), got(201, kCanary);
    const int64_t count =
        DecodeShortPackedVarintsChecked(in, want.data(), capacity);
    ASSERT_EQ(DecodePackedVarintsChecked(in, got.data(), capacity, slack),
              count)
        << round;
    ASSERT_EQ(got[static_cast<size_t>(capacity)], kCanary) << round;
    if (count >= 0 && count <= capacity) {
      for (int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)])
            << round << " " << i;
      }
    }
  }
}

TEST(WireTest, CheckedDecodeHandlesLongVarintsAcrossBlocks) {
  for (size_t offset = 0; offset < 140; ++offset) {
    const std::string head(offset, '\x05');
    const std::string payload =
        head + std::string(9, '\xff') + "\x01" + "\x07" + head;
    const std::vector<uint64_t> want = Reference(payload);
    for (size_t slack : {size_t{0}, size_t{64}}) {
      const std::string buffer = payload + std::string(slack, '\x80');
      const std::string_view in(buffer.data(), payload.size());
      for (bool portable : {false, true}) {
        std::vector<int64_t> out(want.size());
        const auto cap = static_cast<int64_t>(want.size());
        ASSERT_EQ(
            portable
                ? DecodePackedVarintsCheckedPortable(in, out.data(), cap, slack)
                : DecodePackedVarintsChecked(in, out.data(), cap, slack),
            cap);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(static_cast<uint64_t>(out[i]), want[i]) << offset;
        }
      }
      const std::string bad = head + std::string(10, '\x80') + "\x01" + head;
      ASSERT_EQ(DecodePackedVarintsChecked(bad, nullptr, 0, 0), -1);
      ASSERT_EQ(DecodePackedVarintsCheckedPortable(bad, nullptr, 0, 0), -1);
      ASSERT_EQ(DecodeShortPackedVarintsChecked(bad, nullptr, 0), -1);
    }
  }
}

}  // namespace
}  // namespace inflow::internal
