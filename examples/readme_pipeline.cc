// Copyright 2026 The inflow Authors.
//
// The pipeline of README.md's "A pipeline in a few lines", as a program:
// two QueueRunner threads share a budget of 1000 rows; when it runs out
// `produce` returns OUT_OF_RANGE, the last runner thread closes the queue,
// the loop drains it in batches of up to 32 rows and then gets OUT_OF_RANGE,
// a clean stop. Exits 0 when every row arrived exactly once and the
// threads ended without error. The lines between "README begin" and
// "README end" are README's snippet, word for word (a ctest checks it).
//
//   build/release/bin/example_readme_pipeline

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "inflow/queue/fifo_queue.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

int main() {
  // README begin
  auto left = std::make_shared<std::atomic<int64_t>>(1000);  // rows to make
  auto produce =
      [left](const inflow::CallOptions&) -> inflow::Result<inflow::Tuple> {
    const int64_t row = left->fetch_sub(1);
    if (row <= 0) return inflow::OutOfRangeError("no more rows");
    return inflow::Tuple{inflow::Tensor::FromVector<int64_t>({row, 2 * row})};
  };
  auto queue =
      inflow::FIFOQueue::Create({.capacity = 64,
                                 .dtypes = {inflow::DType::kInt64},
                                 .shapes = {inflow::PartialShape({2})}})
          .value();
  // Two threads, each running `produce` and enqueuing what it returns.
  auto runner = inflow::QueueRunner::Create(
                    queue, {inflow::MakeEnqueueOp(queue, produce),
                            inflow::MakeEnqueueOp(queue, produce)})
                    .value();
  inflow::Coordinator coord;
  auto threads = runner->CreateThreads(&coord, /*start=*/true);
  int64_t rows = 0, sum = 0;
  while (!coord.ShouldStop()) {
    auto batch = queue->DequeueUpTo(32, coord.MakeCallOptions());
    if (!batch.ok()) {  // OUT_OF_RANGE: closed and drained, a clean stop
      coord.RequestStop(batch.status()).IgnoreError();
      break;
    }
    const inflow::Tensor& x = (*batch)[0];  // shape [n, 2]; train on it
    rows += x.dim_size(0);
    for (int64_t v : x.flat<int64_t>()) sum += v;
  }
  inflow::Status s = coord.Join(threads);  // the first error, or OK
  // README end

  std::printf("%lld rows, sum %lld: %s\n", static_cast<long long>(rows),
              static_cast<long long>(sum), s.ToString().c_str());
  // Rows {r, 2r} for r = 1..1000, each once: 3 * 500500 in all.
  return s.ok() && rows == 1000 && sum == 1501500 ? 0 : 1;
}
