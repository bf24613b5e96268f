// Copyright 2026 The inflow Authors.
#include <gtest/gtest.h>

#include "inflow/queue/fifo_queue.h"

namespace inflow {
namespace {
TEST(FIFOQueueSmokeTest, EnqueueThenDequeue) {
  auto q = FIFOQueue::Create({.capacity = 2, .dtypes = {DType::kInt32}});
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE((*q)->Enqueue({Tensor::Scalar<int32_t>(7)}).ok());
  auto t = (*q)->Dequeue();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)[0].data<int32_t>()[0], 7);
}
}  // namespace
}  // namespace inflow
