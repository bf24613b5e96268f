// Copyright 2026 The inflow Authors.
//
// EpochShuffle: TF's RandomShuffle kernel as an input producer runs it, one
// permutation per epoch from one Philox generator whose state carries from
// epoch to epoch, so that a producer seeded like TF's shuffles like TF's.

#ifndef INFLOW_INPUT_EPOCH_SHUFFLE_H_
#define INFLOW_INPUT_EPOCH_SHUFFLE_H_

#include <cstdint>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/tensor.h"

#include "core/philox.h"
#include "input/seeds.h"

namespace inflow::internal {

// Thread-safe.
class EpochShuffle {
 public:
  // Rows above this are rejected (TF switches to 64-bit draws there).
  static constexpr int64_t kMaxRows = (int64_t{1} << 31) - 2;

  // {0, 0}: a randomly seeded generator, as TF's.
  explicit EpochShuffle(TfSeedPair seeds);

  // The next permutation of 0 .. n-1, as TF's kernel draws it: it reserves
  // ceil((n-1)/4) Philox blocks, reads them one 32-bit sample at a time and
  // swaps row i with row i + sample % (n - i) (Fisher-Yates from the
  // front). n <= 1 draws nothing. Precondition: n <= kMaxRows.
  std::vector<int64_t> NextPermutation(int64_t n) INFLOW_EXCLUDES(mu_);

 private:
  Mutex mu_;
  Philox4x32 generator_ INFLOW_GUARDED_BY(mu_);
};

// Rows `order` of `t` (rank >= 1), in that order.
Result<Tensor> GatherRows(const Tensor& t, const std::vector<int64_t>& order);

}  // namespace inflow::internal

#endif  // INFLOW_INPUT_EPOCH_SHUFFLE_H_
