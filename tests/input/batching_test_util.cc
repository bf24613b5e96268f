// Copyright 2026 The inflow Authors.

#include "batching_test_util.h"

#include <vector>

namespace inflow::testing {

Drained Drain(Batcher& batcher, QueueRunnerCollection& collection) {
  Drained out;
  Coordinator coord;
  auto threads = collection.Start(&coord);
  for (;;) {
    Result<Tuple> batch = batcher.Next(coord.MakeCallOptions(kCallLimit));
    if (!batch.ok()) {
      out.end = batch.status();
      break;
    }
    auto values = (*batch)[0].flat<int64_t>();
    out.batches.emplace_back(values.begin(), values.end());
  }
  coord.RequestStop();
  out.join = coord.Join(threads, kShutdownBound);
  return out;
}

std::vector<int64_t> Flatten(const std::vector<std::vector<int64_t>>& b) {
  std::vector<int64_t> all;
  for (const auto& batch : b) all.insert(all.end(), batch.begin(), batch.end());
  return all;
}

}  // namespace inflow::testing
