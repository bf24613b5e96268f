// Copyright 2026 The inflow Authors.
//
// SlicedStep (sliced_step.h). The shared memory: the shared tensors, each
// 64-byte aligned, then one gradient buffer per rank of the host.

#include "inflow/distributed/sliced_step.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace inflow::distributed {
namespace {

size_t RoundUp64(size_t bytes) { return (bytes + 63) / 64 * 64; }

// Rank l's slice of n floats among `parts`: whole cache lines.
void Slice(int64_t n, int part, int parts, int64_t* begin, int64_t* end) {
  const int64_t lines = (n + 15) / 16;
  *begin = std::min(n, lines * part / parts * 16);
  *end = std::min(n, lines * (part + 1) / parts * 16);
}

}  // namespace

Result<std::unique_ptr<SlicedStep>> SlicedStep::Create(
    DataParallel* dp, std::span<const float> flat,
    std::span<const Tensor> gradients, std::vector<Tensor*> shared) {
  if (flat.size() < DataParallel::kReservedFloats) {
    return InvalidArgumentError("SlicedStep: the gradient buffer holds " +
                                std::to_string(flat.size()) +
                                " floats, fewer than the reserved " +
                                std::to_string(DataParallel::kReservedFloats));
  }
  std::vector<size_t> tensor_offset;
  size_t bytes = 0;
  for (Tensor* t : shared) {
    if (t == nullptr || t->dtype() != DType::kFloat32 || t->read_only()) {
      return InvalidArgumentError(
          "SlicedStep: a shared tensor is not a writable float32 tensor");
    }
    tensor_offset.push_back(bytes);
    bytes += RoundUp64(static_cast<size_t>(t->num_elements()) * 4);
  }
  Communicator& comm = dp->comm();
  comm.SetActivity("sharing the parameters among a host's ranks");
  // A gradient buffer for each rank of the host.
  const size_t slot_bytes = RoundUp64(flat.size() * 4);
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<HostMemory> host,
                          comm.ShareHostMemory(bytes, slot_bytes));
  auto step = std::unique_ptr<SlicedStep>(new SlicedStep());
  step->dp_ = dp;
  step->host_ = host;
  step->floats_ = flat.size();
  const std::span<std::byte> memory = host->bytes();
  step->buffer_ =
      TensorBuffer::WrapWritable(memory.data(), memory.size(), [host] {});
  for (int r = 0; r < host->size(); ++r) {
    step->slot_offset_.push_back(bytes + slot_bytes * r);
  }
  // Slice l of the gradients, as ranges of each gradient tensor.
  const int64_t n =
      static_cast<int64_t>(flat.size() - DataParallel::kReservedFloats);
  Slice(n, host->rank(), host->size(), &step->begin_, &step->end_);
  for (const Tensor& g : gradients) {
    const int64_t at = static_cast<const float*>(g.raw_data()) - flat.data();
    const int64_t count = g.num_elements();
    if (at < 0 || at + count > n) {
      return InvalidArgumentError(
          "SlicedStep: a gradient is not a view of the gradient buffer");
    }
    const int64_t begin = std::clamp(step->begin_ - at, int64_t{0}, count);
    const int64_t end = std::clamp(step->end_ - at, begin, count);
    step->ranges_.emplace_back(begin, end);
  }
  // The host's rank 0's values in, then every rank's tensors moved there.
  if (host->rank() == 0) {
    for (size_t i = 0; i < shared.size(); ++i) {
      std::memcpy(memory.data() + tensor_offset[i], shared[i]->raw_data(),
                  static_cast<size_t>(shared[i]->num_elements()) * 4);
    }
  }
  INFLOW_RETURN_IF_ERROR(host->Barrier());
  for (size_t i = 0; i < shared.size(); ++i) {
    INFLOW_ASSIGN_OR_RETURN(
        Tensor moved, Tensor::FromBuffer(DType::kFloat32, shared[i]->shape(),
                                         step->buffer_, tensor_offset[i]));
    *shared[i] = std::move(moved);
  }
  return step;
}

float* SlicedStep::Slot(int rank) const {
  return reinterpret_cast<float*>(host_->bytes().data() + slot_offset_[rank]);
}

Result<StepOutcome> SlicedStep::Sum(int64_t step, float loss, StepFlags flags,
                                    const Status& local) {
  const size_t n = floats_ - DataParallel::kReservedFloats;
  float* mine = Slot(host_->rank());
  DataParallel::WriteReserved(mine + n, loss, flags, local);
  Communicator& comm = dp_->comm();
  const std::string activity = "the allreduce of step " + std::to_string(step);
  comm.SetActivity(activity);
  INFLOW_RETURN_IF_ERROR(host_->Barrier());
  // Every rank sums the reserved floats in rank order (the same bits on
  // each); rank l sums slice l into its own buffer, which no other rank
  // reads there.
  const int ranks = host_->size();
  float agreed[DataParallel::kReservedFloats] = {};
  for (int r = 0; r < ranks; ++r) {
    for (size_t k = 0; k < DataParallel::kReservedFloats; ++k) {
      agreed[k] += Slot(r)[n + k];
    }
  }
  if (ranks > 1) {
    // In blocks that stay in L1, each pass a vectorized loop.
    constexpr int64_t kBlock = 1024;
    float sum[kBlock];
    for (int64_t at = begin_; at < end_; at += kBlock) {
      const int64_t len = std::min(kBlock, end_ - at);
      const float* first = Slot(0) + at;
      for (int64_t i = 0; i < len; ++i) sum[i] = first[i];
      for (int r = 1; r < ranks; ++r) {
        const float* in = Slot(r) + at;
        for (int64_t i = 0; i < len; ++i) sum[i] += in[i];
      }
      std::memcpy(mine + at, sum, static_cast<size_t>(len) * 4);
    }
  }
  if (host_->hosts() > 1) {
    INFLOW_RETURN_IF_ERROR(host_->AllreduceAcrossHosts(
        std::span<float>(mine + begin_, static_cast<size_t>(end_ - begin_))));
    INFLOW_RETURN_IF_ERROR(host_->AllreduceAcrossHosts(agreed));
  }
  INFLOW_ASSIGN_OR_RETURN(StepOutcome out,
                          dp_->Outcome(agreed, step, local, activity));
  // No update follows, and no EndStep: every rank has read the others'
  // buffers before any writes its next step's (Agree above did the same
  // for an error).
  if (!out.apply()) INFLOW_RETURN_IF_ERROR(host_->Barrier());
  return out;
}

Status SlicedStep::EndStep() { return host_->Barrier(); }

}  // namespace inflow::distributed
