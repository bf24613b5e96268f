// Copyright 2026 The inflow Authors.
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3") with TensorFlow's seeding and single-sample adapter, so that a
// RandomShuffleQueue or an input producer seeded like TF's picks the same
// slots, or the same permutations, in the same order. Not thread-safe; the
// callers hold their own locks.

#ifndef INFLOW_CORE_PHILOX_H_
#define INFLOW_CORE_PHILOX_H_

#include <array>
#include <cstdint>

namespace inflow::internal {

class Philox4x32 {
 public:
  using Block = std::array<uint32_t, 4>;

  // TF's PhiloxRandom(seed_lo, seed_hi): the low seed is the key, the high
  // seed the upper half of the 128-bit counter.
  Philox4x32(uint64_t seed_lo, uint64_t seed_hi) {
    key_[0] = static_cast<uint32_t>(seed_lo);
    key_[1] = static_cast<uint32_t>(seed_lo >> 32);
    counter_[2] = static_cast<uint32_t>(seed_hi);
    counter_[3] = static_cast<uint32_t>(seed_hi >> 32);
  }

  // The next block of four samples.
  Block Next() {
    Block counter = counter_;
    std::array<uint32_t, 2> key = key_;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] += kW32A;
        key[1] += kW32B;
      }
      counter = Round(counter, key);
    }
    SkipOne();
    return counter;
  }

  // Advances the 128-bit counter by `count` blocks (TF's PhiloxRandom::Skip).
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

 private:
  static constexpr uint32_t kW32A = 0x9E3779B9;
  static constexpr uint32_t kW32B = 0xBB67AE85;
  static constexpr uint32_t kM4x32A = 0xD2511F53;
  static constexpr uint32_t kM4x32B = 0xCD9E8D57;

  static Block Round(const Block& c, const std::array<uint32_t, 2>& key) {
    const uint64_t p0 = uint64_t{kM4x32A} * c[0];
    const uint64_t p1 = uint64_t{kM4x32B} * c[2];
    return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ key[0],
            static_cast<uint32_t>(p1),
            static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ key[1],
            static_cast<uint32_t>(p0)};
  }

  void SkipOne() {
    for (uint32_t& word : counter_) {
      if (++word != 0) break;
    }
  }

  Block counter_{};
  std::array<uint32_t, 2> key_{};
};

// Hands out a Philox block one 32-bit sample at a time (TF's
// SingleSampleAdapter).
class PhiloxSampler {
 public:
  PhiloxSampler(uint64_t seed_lo, uint64_t seed_hi)
      : philox_(seed_lo, seed_hi) {}

  uint32_t operator()() {
    if (used_ == 4) {
      block_ = philox_.Next();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  Philox4x32 philox_;
  Philox4x32::Block block_{};
  int used_ = 4;
};

}  // namespace inflow::internal

#endif  // INFLOW_CORE_PHILOX_H_
