// Copyright 2026 The inflow Authors.
//
// DataParallel's step protocol and PlanShards (data_parallel.h).

#include "inflow/distributed/data_parallel.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "inflow/io/crc32c.h"

namespace inflow::distributed {
namespace {

// One rank's outcome as Agree sends it: a code and the message's first
// bytes.
struct Report {
  int32_t code = 0;
  char message[508] = {};
};

}  // namespace

Status DataParallel::Agree(const Status& local, std::string_view what) {
  Report mine;
  mine.code = static_cast<int32_t>(local.code());
  const std::string_view text = local.message();
  const size_t n = std::min(text.size(), sizeof(mine.message) - 1);
  if (n > 0) std::memcpy(mine.message, text.data(), n);
  std::vector<Report> all(static_cast<size_t>(comm_->size()));
  comm_->SetActivity("agreeing on " + std::string(what));
  INFLOW_RETURN_IF_ERROR(
      comm_->Allgather(std::as_bytes(std::span<const Report>(&mine, 1)),
                       std::as_writable_bytes(std::span<Report>(all))));
  for (int r = 0; r < comm_->size(); ++r) {
    const Report& report = all[static_cast<size_t>(r)];
    if (report.code == 0) continue;
    std::string message = report.message;
    if (std::strlen(report.message) == sizeof(report.message) - 1) {
      message += "...";
    }
    return Status(
        static_cast<StatusCode>(report.code),
        comm_->Describe(r) + ": " + message + " (" + std::string(what) + ")");
  }
  return OkStatus();
}

Result<StepOutcome> DataParallel::Sum(int64_t step, std::span<float> flat,
                                      float loss, StepFlags flags,
                                      const Status& local) {
  if (flat.size() < kReservedFloats) {
    return InvalidArgumentError(
        "DataParallel: the step's buffer holds " + std::to_string(flat.size()) +
        " floats, fewer than the reserved " + std::to_string(kReservedFloats));
  }
  float* reserved = flat.data() + flat.size() - kReservedFloats;
  WriteReserved(reserved, loss, flags, local);
  const std::string activity = "the allreduce of step " + std::to_string(step);
  comm_->SetActivity(activity);
  INFLOW_RETURN_IF_ERROR(comm_->AllreduceSum(flat));
  return Outcome(reserved, step, local, activity);
}

void DataParallel::WriteReserved(float* reserved, float loss, StepFlags flags,
                                 const Status& local) {
  // A flagged step is applied by no rank: its gradients may hold anything.
  const bool contributes = local.ok() && !flags.stop && !flags.end_of_input;
  reserved[0] = contributes ? loss : 0.0f;
  reserved[1] = flags.stop ? 1.0f : 0.0f;
  reserved[2] = flags.end_of_input ? 1.0f : 0.0f;
  reserved[3] = local.ok() ? 0.0f : 1.0f;
}

Result<StepOutcome> DataParallel::Outcome(const float* summed, int64_t step,
                                          const Status& local,
                                          std::string_view activity) {
  if (summed[3] > 0) {
    Status agreed = Agree(local, "step " + std::to_string(step));
    if (agreed.ok()) {
      return InternalError(std::string(activity) +
                           " said a rank failed, but none did");
    }
    return agreed;
  }
  StepOutcome out;
  out.stop = summed[1] > 0;
  out.end_of_input = summed[2] > 0;
  out.loss = summed[0];
  return out;
}

Status DataParallel::CheckReplicas(int64_t step,
                                   std::span<const Tensor> params) {
  uint32_t crc = 0;
  for (const Tensor& p : params) {
    const std::span<const float> v = p.flat<float>();
    crc = crc32c::Extend(crc, v.data(), v.size_bytes());
  }
  const int size = comm_->size();
  std::vector<uint32_t> all(static_cast<size_t>(size));
  comm_->SetActivity("comparing the parameters at step " +
                     std::to_string(step));
  INFLOW_RETURN_IF_ERROR(
      comm_->Allgather(std::as_bytes(std::span<const uint32_t>(&crc, 1)),
                       std::as_writable_bytes(std::span<uint32_t>(all))));
  std::string differ;
  for (int r = 1; r < size; ++r) {
    if (all[static_cast<size_t>(r)] == all[0]) continue;
    if (!differ.empty()) differ += ", ";
    differ += comm_->Describe(r);
  }
  if (differ.empty()) return OkStatus();
  char crcs[32];
  std::snprintf(crcs, sizeof(crcs), "%08x", all[0]);
  return InternalError("the ranks' parameters differ at step " +
                       std::to_string(step) + ": " + differ +
                       " differ from rank 0 (CRC32C " + crcs + ")");
}

Status DataParallel::BroadcastInt64(int64_t* value, std::string_view what) {
  comm_->SetActivity("the broadcast of " + std::string(what));
  return comm_->Broadcast(std::as_writable_bytes(std::span<int64_t>(value, 1)),
                          0);
}

std::string ShardPlan::Describe() const {
  const std::string n = std::to_string(num_shards);
  const std::string r = std::to_string(index);
  const std::string count = " (" + std::to_string(records) + " records)";
  switch (kind) {
    case ShardKind::kFiles:
      return "whole files i % " + n + " == " + r + " (" +
             std::to_string(files.size()) + " files, " +
             std::to_string(records) + " records)";
    case ShardKind::kRecordsByIndex:
      return "records i % " + n + " == " + r + ", read by index" + count;
    case ShardKind::kEveryNthRecord:
      return "records i % " + n + " == " + r +
             ", kept from reading every record" + count;
  }
  return "?";
}

Result<ShardPlan> PlanShards(const std::vector<std::string>& files,
                             const std::vector<int64_t>& record_counts,
                             bool indexable, int num_ranks, int rank) {
  if (num_ranks < 1 || rank < 0 || rank >= num_ranks) {
    return InvalidArgumentError("PlanShards: rank " + std::to_string(rank) +
                                " of " + std::to_string(num_ranks));
  }
  if (files.size() != record_counts.size()) {
    return InvalidArgumentError(
        "PlanShards: " + std::to_string(files.size()) + " files but " +
        std::to_string(record_counts.size()) + " record counts");
  }
  ShardPlan plan;
  plan.num_shards = num_ranks;
  plan.index = rank;
  std::vector<int64_t> per_rank(static_cast<size_t>(num_ranks), 0);
  int64_t total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    per_rank[i % static_cast<size_t>(num_ranks)] += record_counts[i];
    total += record_counts[i];
  }
  const bool even = std::all_of(per_rank.begin(), per_rank.end(),
                                [&](int64_t c) { return c == per_rank[0]; });
  if (files.size() >= static_cast<size_t>(num_ranks) && even) {
    plan.kind = ShardKind::kFiles;
    for (size_t i = static_cast<size_t>(rank); i < files.size();
         i += static_cast<size_t>(num_ranks)) {
      plan.files.push_back(files[i]);
    }
    plan.records = per_rank[static_cast<size_t>(rank)];
    return plan;
  }
  plan.kind =
      indexable ? ShardKind::kRecordsByIndex : ShardKind::kEveryNthRecord;
  plan.files = files;
  plan.records = total / num_ranks + (rank < total % num_ranks ? 1 : 0);
  return plan;
}

}  // namespace inflow::distributed
