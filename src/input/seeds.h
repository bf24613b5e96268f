// Copyright 2026 The inflow Authors.
//
// TF's graph/op seed rule (tf.compat.v1.get_seed), shared by the input
// producers' shuffle and the shuffle-batching queues' seed/seed2, so that a
// seeded op here draws the numbers its TF counterpart draws.

#ifndef INFLOW_INPUT_SEEDS_H_
#define INFLOW_INPUT_SEEDS_H_

#include <cstdint>
#include <optional>

namespace inflow::internal {

// The two seeds an op's kernel receives (its `seed` and `seed2` attributes).
// {0, 0} means "no seed": the kernel draws a random generator.
struct TfSeedPair {
  int64_t seed = 0;
  int64_t seed2 = 0;

  bool operator==(const TfSeedPair&) const = default;
};

// TF's DEFAULT_GRAPH_SEED: the graph seed used when only the op has one.
inline constexpr int64_t kTfDefaultGraphSeed = 87654321;
// TF's _MAXINT32 (2^31 - 1): seeds are reduced modulo it.
inline constexpr int64_t kTfMaxInt32 = (int64_t{1} << 31) - 1;

// Python's `seed % _MAXINT32` (never negative).
inline int64_t TfTruncateSeed(int64_t seed) {
  const int64_t r = seed % kTfMaxInt32;
  return r < 0 ? r + kTfMaxInt32 : r;
}

// tf.compat.v1.get_seed(op) with graph seed `graph`:
//   graph and op       -> (graph % M, op % M)
//   op only            -> (87654321, op % M)
//   graph only         -> (graph % M, unseeded_op_index % M), where TF's
//                         index counts the ops of the graph that asked for a
//                         seed without one before this op (0 for the first;
//                         the caller passes its own count)
//   neither            -> (0, 0): a random generator
// and (0, 0) from the first three becomes (0, M), as TF, so that a seeded
// op never falls into the random case. M = 2^31 - 1.
inline TfSeedPair TfSeeds(std::optional<int64_t> graph,
                          std::optional<int64_t> op,
                          int64_t unseeded_op_index = 0) {
  TfSeedPair seeds;
  if (graph.has_value()) {
    seeds = {TfTruncateSeed(*graph),
             TfTruncateSeed(op.has_value() ? *op : unseeded_op_index)};
  } else if (op.has_value()) {
    seeds = {kTfDefaultGraphSeed, TfTruncateSeed(*op)};
  } else {
    return {};
  }
  if (seeds == TfSeedPair{}) seeds.seed2 = kTfMaxInt32;
  return seeds;
}

}  // namespace inflow::internal

#endif  // INFLOW_INPUT_SEEDS_H_
