// Copyright 2026 The inflow Authors.
//
// SlicedStep: a data-parallel step with one copy of the parameters per
// host (docs/distributed.md). The ranks of a host share memory
// (Communicator::ShareHostMemory) holding the parameters, the optimizer's
// slots and a gradient buffer per rank. Each rank writes its gradients
// into its buffer; after a barrier, rank l of a host sums slice l of the
// host's gradient buffers (and, across hosts, that slice with the other
// hosts' rank l: HostMemory::AllreduceAcrossHosts), updates slice l of the
// shared parameters and slots, and a second barrier ends the step. Each
// rank sums and updates 1 / size() of the model, and nothing is copied
// back: every rank of a host reads the same parameters. The step's loss
// and flags are agreed on as DataParallel::Sum agrees on them.
//
//   Result<std::unique_ptr<SlicedStep>> sliced = SlicedStep::Create(
//       &dp, model.flat_gradients(), model.gradients(), shared);
//   // (FAILED_PRECONDITION: no shared memory; keep DataParallel::Sum)
//   model.MoveGradients(sliced->gradient_buffer(), sliced->gradient_offset());
//   for (...) {
//     loss = model.ComputeGradients(...);
//     Result<StepOutcome> out = sliced->Sum(step, loss_share, flags, status);
//     if (!out.ok()) return out.status();
//     if (!out->apply()) break;
//     optimizer.ApplyRanges(model.gradients(), sliced->ranges());
//     sliced->EndStep();  // every rank, after its update
//   }
//
// Thread-compatible, as the Communicator.

#ifndef INFLOW_DISTRIBUTED_SLICED_STEP_H_
#define INFLOW_DISTRIBUTED_SLICED_STEP_H_

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/distributed/communicator.h"
#include "inflow/distributed/data_parallel.h"

namespace inflow::distributed {

class SlicedStep {
 public:
  // Collective over `dp`'s ranks (`dp` outlives the result). `flat`: this
  // rank's gradient buffer, DataParallel::kReservedFloats at its end;
  // `gradients`: the tensors that are views of it, in the optimizer's
  // order; `shared`: tensors holding the same values on every rank (the
  // parameters, the optimizer's slots), each moved into the host's shared
  // memory with its host's rank 0's values (the pointers stay valid; the
  // tensors' buffers change). FAILED_PRECONDITION, on every rank, when
  // the ranks cannot share host memory (Communicator::ShareHostMemory):
  // nothing changed then.
  static Result<std::unique_ptr<SlicedStep>> Create(
      DataParallel* dp, std::span<const float> flat,
      std::span<const Tensor> gradients, std::vector<Tensor*> shared);

  // Where this rank's flat gradient buffer is to be moved (its values
  // copied): the buffer and the byte offset in it (Mlp::MoveGradients).
  const std::shared_ptr<TensorBuffer>& gradient_buffer() const {
    return buffer_;
  }
  size_t gradient_offset() const { return slot_offset_[host_->rank()]; }

  // As DataParallel::Sum for a buffer moved to gradient_buffer(), except
  // that only this rank's slice of the gradients holds their sum over
  // every rank afterwards: elements ranges()[i] of gradient i. When the
  // outcome does not apply (or is an error), the ranks have already
  // waited for each other: no EndStep then.
  [[nodiscard]] Result<StepOutcome> Sum(int64_t step, float loss,
                                        StepFlags flags, const Status& local);
  // [begin, end) of each gradient in this rank's slice.
  std::span<const std::pair<int64_t, int64_t>> ranges() const {
    return ranges_;
  }
  // After this rank's update of its slice (Optimizer::ApplyRanges), when
  // Sum's outcome applies (every rank calls it, whether or not its own
  // update succeeded): waits for the host's other ranks' updates,
  // before anyone reads the parameters or writes gradients again.
  [[nodiscard]] Status EndStep();

  // The ranks of this host, and this rank among them.
  int host_ranks() const { return host_->size(); }
  int host_rank() const { return host_->rank(); }

 private:
  SlicedStep() = default;
  float* Slot(int rank) const;

  DataParallel* dp_ = nullptr;
  std::shared_ptr<HostMemory> host_;
  std::shared_ptr<TensorBuffer> buffer_;  // the whole shared memory
  std::vector<size_t> slot_offset_;       // each host rank's gradients
  size_t floats_ = 0;                     // the flat buffer's, reserved too
  int64_t begin_ = 0, end_ = 0;           // this rank's slice of the flat
  std::vector<std::pair<int64_t, int64_t>> ranges_;
};

}  // namespace inflow::distributed

#endif  // INFLOW_DISTRIBUTED_SLICED_STEP_H_
