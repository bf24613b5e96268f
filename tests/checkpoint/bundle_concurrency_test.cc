// Copyright 2026 The inflow Authors.
//
// A BundleReader is thread-safe after Open(): threads reading at once,
// each opening the data file lazily for the first time, all get their
// values (runs under TSan).

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/bundle_test_util.h"

namespace inflow {
namespace {

TEST(BundleConcurrencyTest, ThreadsReadOneReaderAtOnce) {
  MemEnv env;
  constexpr int kTensors = 16;
  {
    BundleWriterOptions options;
    options.env = &env;
    BundleWriter writer("m", options);
    for (int i = 0; i < kTensors; ++i) {
      const DType dtype = i % 2 ? DType::kString : DType::kFloat32;
      ASSERT_TRUE(writer
                      .Add(testing::Indexed("t", static_cast<size_t>(i)),
                           testing::PatternTensor(dtype, {100}, i))
                      .ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (int i = 0; i < kTensors; ++i) {
          const DType dtype = i % 2 ? DType::kString : DType::kFloat32;
          Result<Tensor> got =
              reader->Read(testing::Indexed("t", static_cast<size_t>(i)));
          if (!got.ok() || !(*got == testing::PatternTensor(dtype, {100}, i))) {
            ++failures[t];
          }
        }
        if (!reader->Verify().ok()) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace inflow
