// Copyright 2026 The inflow Authors.
//
// Data-parallel training over a Communicator (docs/distributed.md): each
// rank computes its share of a global batch's mean gradient (its rows'
// gradient sum over the global batch: Mlp::ComputeGradients with
// BatchRows); one allreduce per step sums the shares into the mean and,
// in the same buffer, agrees on the step's loss and on whether any rank
// wants to stop, has run out of input or has failed. Every rank therefore does
// the same thing after every step: all apply the averaged update, or all stop,
// or all return the failing rank's error. No rank is left waiting in a
// collective for one that quit.
//
//   DataParallel dp(comm);
//   std::span<float> flat = model.flat_gradients();  // + kReservedFloats
//   Result<StepOutcome> out = dp.Sum(step, flat, loss_share, flags, status);
//   if (!out.ok()) return out.status();  // "rank 1: DATA_LOSS ...: step 57"
//   if (out->stop || out->end_of_input) break;   // nobody applies the step
//   optimizer.Apply(...);
//
// ShardPlan: which part of the input a rank reads so that, across the
// ranks, every record is read once per epoch.
//
// Thread-compatible, as the Communicator.

#ifndef INFLOW_DISTRIBUTED_DATA_PARALLEL_H_
#define INFLOW_DISTRIBUTED_DATA_PARALLEL_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/distributed/communicator.h"

namespace inflow::distributed {

// What this rank brings to a step besides its gradients.
struct StepFlags {
  bool stop = false;          // asked to stop (a signal)
  bool end_of_input = false;  // its input has no batch for this step
};

// The ranks' agreement on a step.
struct StepOutcome {
  float loss = 0;             // the sum of the ranks' loss shares
  bool stop = false;          // some rank asked to stop
  bool end_of_input = false;  // some rank's input ended
  // Neither: every rank applies the step.
  bool apply() const { return !stop && !end_of_input; }
};

class DataParallel {
 public:
  // The floats at the end of Sum's buffer that it uses itself.
  static constexpr size_t kReservedFloats = 4;

  // Not owned; outlives this object.
  explicit DataParallel(Communicator* comm) : comm_(comm) {}

  Communicator& comm() const { return *comm_; }

  // `flat`: this rank's gradient shares, then kReservedFloats floats of
  // Sum's own; `loss`: its share of the global batch's loss (its rows'
  // mean loss times rows / global batch). On return the gradients are the
  // sum of every rank's (one allreduce, in place): the global batch's
  // mean. When any rank's `local` is an error, every rank returns the
  // error of the lowest such rank, naming it and the step (a second
  // collective, only then); a stopping rank or one whose input ended sets
  // its flag, and no rank applies that step (whatever the gradients then
  // hold). INVALID_ARGUMENT when `flat` is shorter than kReservedFloats.
  [[nodiscard]] Result<StepOutcome> Sum(int64_t step, std::span<float> flat,
                                        float loss, StepFlags flags,
                                        const Status& local);

  // The step protocol's reserved floats, for a step that sums them another
  // way (SlicedStep): this rank's into `reserved` (its loss share, 0 when
  // it does not contribute; its flags; whether `local` failed), and the
  // outcome from every rank's summed (`activity` names the collective
  // when a rank's failure has to be agreed on, as Sum's).
  static void WriteReserved(float* reserved, float loss, StepFlags flags,
                            const Status& local);
  [[nodiscard]] Result<StepOutcome> Outcome(const float* summed, int64_t step,
                                            const Status& local,
                                            std::string_view activity);

  // Every rank's `local` compared: OK when every one is OK; else every
  // rank returns the lowest failing rank's error, as "rank R: <error>
  // (WHAT)". For a setup phase that may fail on some ranks only (a file
  // missing on one machine): all fail together, none waits.
  [[nodiscard]] Status Agree(const Status& local, std::string_view what);

  // The ranks' parameters compared by checksum (CRC32C of their bytes):
  // INTERNAL naming the step and which ranks differ from rank 0.
  [[nodiscard]] Status CheckReplicas(int64_t step,
                                     std::span<const Tensor> params);

  // Rank 0's bytes of `value` to every rank.
  [[nodiscard]] Status BroadcastInt64(int64_t* value, std::string_view what);

 private:
  Communicator* comm_;
};

// How one rank's part of the input is chosen (in this order of preference):
//   kFiles           whole files, file i to rank i % N: when there are at
//                    least N files and every rank gets as many records
//   kRecordsByIndex  record i of the concatenated files to rank i % N, read
//                    by offset (the files can be indexed: uncompressed)
//   kEveryNthRecord  the same records, found by reading every record and
//                    keeping each N-th (compressed files)
enum class ShardKind { kFiles, kRecordsByIndex, kEveryNthRecord };

struct ShardPlan {
  ShardKind kind = ShardKind::kFiles;
  std::vector<std::string> files;  // kFiles: this rank's; else every file
  int num_shards = 1;              // N
  int index = 0;                   // this rank
  int64_t records = 0;             // this rank's records per epoch
  // "files 1, 3 of 4 (120 records)", "records 1, 4, 7, ... of 240 by
  // index (80 records)", ...
  std::string Describe() const;
};

// The plan of `rank` of `num_ranks` for `files` holding record_counts[i]
// records each; `indexable`: the files can be read by record offset.
// INVALID_ARGUMENT for a rank outside [0, num_ranks) or mismatched counts.
[[nodiscard]] Result<ShardPlan> PlanShards(
    const std::vector<std::string>& files,
    const std::vector<int64_t>& record_counts, bool indexable, int num_ranks,
    int rank);

}  // namespace inflow::distributed

#endif  // INFLOW_DISTRIBUTED_DATA_PARALLEL_H_
