// Copyright 2026 The inflow Authors.

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"

namespace inflow {
namespace {

TEST(BundleFilenamesTest, IndexIsPrefixDotIndex) {
  EXPECT_EQ(BundleIndexFilename("train/model.ckpt-1000"),
            "train/model.ckpt-1000.index");
}

TEST(BundleFilenamesTest, DataShardsAreZeroPaddedToFiveDigits) {
  EXPECT_EQ(BundleDataFilename("m.ckpt-7", 0, 1),
            "m.ckpt-7.data-00000-of-00001");
  EXPECT_EQ(BundleDataFilename("m", 12, 345), "m.data-00012-of-00345");
}

}  // namespace
}  // namespace inflow
