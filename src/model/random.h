// Copyright 2026 The inflow Authors.
//
// Internal: the training component's random numbers: xoshiro256** seeded
// through SplitMix64, with uniform, normal and Bernoulli draws defined
// here (no std:: distribution, whose results differ between standard
// libraries), so a seed means the same weights and dropout masks with
// every compiler (the normal draws use the C library's log, sin and cos).

#ifndef INFLOW_MODEL_RANDOM_H_
#define INFLOW_MODEL_RANDOM_H_

#include <cmath>
#include <cstdint>

namespace inflow::internal {

inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class TrainRandom {
 public:
  // The stream for (seed, stream): distinct streams are independent.
  TrainRandom(uint64_t seed, uint64_t stream) {
    uint64_t s = seed ^ SplitMix64(&stream);
    for (uint64_t& word : s_) word = SplitMix64(&s);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in (0, 1), 53 bits.
  double Uniform() {
    return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53;
  }

  // N(0, 1) by Box-Muller, computed in double.
  double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(Uniform()));
    const double theta = 6.283185307179586 * Uniform();
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

// n 32-bit draws, two from each 64-bit number (low half first).
inline void FillDraws(TrainRandom* random, uint32_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const uint64_t r = random->Next();
    out[i] = static_cast<uint32_t>(r);
    out[i + 1] = static_cast<uint32_t>(r >> 32);
  }
  if (i < n) out[i] = static_cast<uint32_t>(random->Next());
}

// Draws [begin, begin + count) of the block of `block` draws that
// FillDraws(random, out, block) would make, leaving `random` where that
// call leaves it: one rank's rows of a larger batch's dropout masks.
inline void FillDrawsWindow(TrainRandom* random, uint32_t* out, int64_t block,
                            int64_t begin, int64_t count) {
  const int64_t words = (block + 1) / 2;  // FillDraws' Next() calls
  int64_t word = 0;                       // calls made so far
  for (; word < begin / 2; ++word) random->Next();
  int64_t k = begin;  // the next draw to hand out
  int64_t i = 0;
  while (i < count) {
    const uint64_t r = random->Next();
    const int64_t low = 2 * word++;  // this word's draws: low, low + 1
    if (k == low) {
      out[i++] = static_cast<uint32_t>(r);
      ++k;
    }
    if (i < count && k == low + 1) {
      out[i++] = static_cast<uint32_t>(r >> 32);
      ++k;
    }
  }
  for (; word < words; ++word) random->Next();
}

// A draw below this keeps an element: floor(keep * 2^32), for 0 < keep < 1.
inline uint32_t KeepThreshold(float keep) {
  return static_cast<uint32_t>(static_cast<double>(keep) * 4294967296.0);
}

}  // namespace inflow::internal

#endif  // INFLOW_MODEL_RANDOM_H_
