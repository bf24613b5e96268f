// Copyright 2026 The inflow Authors.

#include "input/epoch_shuffle.h"

#include <numeric>
#include <random>
#include <utility>

namespace inflow::internal {
namespace {

Philox4x32 MakeGenerator(TfSeedPair seeds) {
  uint64_t seed = static_cast<uint64_t>(seeds.seed);
  uint64_t seed2 = static_cast<uint64_t>(seeds.seed2);
  if (seed == 0 && seed2 == 0) {
    // TF's GuardedPhiloxRandom: no seeds, a random generator.
    std::random_device device;
    seed = (uint64_t{device()} << 32) | device();
    seed2 = (uint64_t{device()} << 32) | device();
  }
  return Philox4x32(seed, seed2);
}

}  // namespace

EpochShuffle::EpochShuffle(TfSeedPair seeds)
    : generator_(MakeGenerator(seeds)) {}

std::vector<int64_t> EpochShuffle::NextPermutation(int64_t n) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (n <= 1) return order;
  const uint64_t samples = static_cast<uint64_t>(n - 1);
  Philox4x32 local = [&] {
    MutexLock lock(&mu_);
    Philox4x32 reserved = generator_;
    generator_.Skip((samples + 3) / 4);
    return reserved;
  }();
  Philox4x32::Block block{};
  int used = 4;
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (used == 4) {
      block = local.Next();
      used = 0;
    }
    const uint32_t sample = block[used++];
    const int64_t j = i + sample % static_cast<uint32_t>(n - i);
    std::swap(order[i], order[j]);
  }
  return order;
}

Result<Tensor> GatherRows(const Tensor& t, const std::vector<int64_t>& order) {
  std::vector<Tensor> rows;
  rows.reserve(order.size());
  for (int64_t i : order) rows.push_back(t.SubTensor(i));
  return Tensor::Stack(rows);
}

}  // namespace inflow::internal
