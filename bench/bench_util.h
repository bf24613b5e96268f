// Copyright 2026 The inflow Authors.
//
// Helpers shared by the benchmark programs.

#ifndef INFLOW_BENCH_BENCH_UTIL_H_
#define INFLOW_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace inflow::bench {

// The median of `values` (the mean of the middle two for an even count);
// 0 if there are none.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
}

}  // namespace inflow::bench

#endif  // INFLOW_BENCH_BENCH_UTIL_H_
