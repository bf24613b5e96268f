// Copyright 2026 The inflow Authors.
//
// Helpers of the Dataset tests: elements as int64 vectors, draining an
// iterator.

#ifndef INFLOW_TESTS_DATA_DATASET_TEST_UTIL_H_
#define INFLOW_TESTS_DATA_DATASET_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/data/dataset.h"

namespace inflow::data::testing {

// Every int64 value of the element's components, in order.
inline std::vector<int64_t> Values(const Tuple& element) {
  std::vector<int64_t> out;
  for (const Tensor& t : element) {
    if (t.dtype() != DType::kInt64) continue;
    for (int64_t v : t.flat<int64_t>()) out.push_back(v);
  }
  return out;
}

// Up to `limit` elements' Values; stops at the end (or an error, which
// fails the test).
inline std::vector<std::vector<int64_t>> Drain(Iterator& it,
                                               int64_t limit = 1 << 20) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t k = 0; k < limit; ++k) {
    Result<Tuple> e = it.Next();
    if (IsOutOfRange(e.status())) break;
    EXPECT_TRUE(e.ok()) << "element " << k << ": " << e.status();
    if (!e.ok()) break;
    out.push_back(Values(*e));
  }
  return out;
}

inline std::vector<std::vector<int64_t>> All(const Dataset& d,
                                             int64_t limit = 1 << 20) {
  Result<Iterator> it = d.MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return {};
  return Drain(*it, limit);
}

// {{a}, {b}, ...}
inline std::vector<std::vector<int64_t>> Scalars(std::vector<int64_t> v) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t x : v) out.push_back({x});
  return out;
}

}  // namespace inflow::data::testing

#endif  // INFLOW_TESTS_DATA_DATASET_TEST_UTIL_H_
