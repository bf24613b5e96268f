// Copyright 2026 The inflow Authors.
//
// The expected pairs are what TF 2.x's tf.compat.v1.get_seed returns in a
// fresh graph (python/framework/random_seed.py), checked by running it.

#include "input/seeds.h"

#include <gtest/gtest.h>

namespace inflow::internal {
namespace {

TEST(TfSeeds, OpSeedAloneUsesTheDefaultGraphSeed) {
  EXPECT_EQ(TfSeeds(std::nullopt, 5), (TfSeedPair{87654321, 5}));
  EXPECT_EQ(TfSeeds(std::nullopt, 0), (TfSeedPair{87654321, 0}));
}

TEST(TfSeeds, SeedsAreReducedModuloMaxInt32AsPython) {
  EXPECT_EQ(TfSeeds(std::nullopt, -3), (TfSeedPair{87654321, 2147483644}));
  EXPECT_EQ(TfSeeds(std::nullopt, int64_t{1} << 40),
            (TfSeedPair{87654321, 512}));
  EXPECT_EQ(TfSeeds(-5, 2147483647), (TfSeedPair{2147483642, 0}));
}

TEST(TfSeeds, NeitherSeedMeansARandomGenerator) {
  EXPECT_EQ(TfSeeds(std::nullopt, std::nullopt), (TfSeedPair{0, 0}));
}

TEST(TfSeeds, ZeroZeroBecomesZeroMaxInt32) {
  EXPECT_EQ(TfSeeds(0, 0), (TfSeedPair{0, 2147483647}));
  EXPECT_EQ(TfSeeds(0, std::nullopt), (TfSeedPair{0, 2147483647}));
}

TEST(TfSeeds, GraphSeedAloneUsesTheCountOfUnseededOps) {
  EXPECT_EQ(TfSeeds(0, std::nullopt, 1), (TfSeedPair{0, 1}));
  EXPECT_EQ(TfSeeds(9, std::nullopt), (TfSeedPair{9, 0}));
  EXPECT_EQ(TfSeeds(9, 7), (TfSeedPair{9, 7}));
}

}  // namespace
}  // namespace inflow::internal
