// Copyright 2026 The inflow Authors.
//
// A 300 MB float tensor round-trips through real files (release builds
// only: it takes a few seconds and 600 MB of memory).

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"

#include "checkpoint/bundle_test_util.h"

namespace inflow {
namespace {

TEST(BundleLargeTest, ThreeHundredMegabyteFloatTensorRoundTrips) {
  testing::ScratchDir dir;
  const std::string prefix = dir.Path("big/model.ckpt-1");
  const int64_t n = int64_t{300} * 1000 * 1000 / 4;
  Tensor big = Tensor::Uninitialized(DType::kFloat32, {n});
  float* p = big.mutable_flat<float>().value().data();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 1000003) * 0.5f;
  {
    BundleWriterOptions options;
    options.sync = false;  // the bytes are what this test is about
    BundleWriter writer(prefix, options);
    ASSERT_TRUE(writer.Add("big", big).ok());
    ASSERT_TRUE(writer.Add("after", Tensor::Scalar<int32_t>(42)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  std::unique_ptr<BundleReader> reader = BundleReader::Open(prefix).value();
  EXPECT_EQ(reader->Lookup("big").value()->size, n * 4);
  EXPECT_EQ(reader->Lookup("after").value()->offset, n * 4);
  Tensor out = Tensor::Uninitialized(DType::kFloat32, {n});
  ASSERT_TRUE(reader->ReadInto("big", &out).ok());
  EXPECT_EQ(out, big);
  EXPECT_EQ(reader->Read("after").value(), Tensor::Scalar<int32_t>(42));
  EXPECT_TRUE(reader->Verify().ok());
}

}  // namespace
}  // namespace inflow
