// Copyright 2026 The inflow Authors.
//
// bench_distributed: data-parallel training steps on 1 rank against 2
// ranks, in the same run (docs/distributed.md, docs/PERFORMANCE.md).
//
// The program is its own driver: run plainly, it starts
// `mpirun -np 1 bench_distributed --worker ...` and `mpirun -np 2 ...` in
// turn, --rounds times, and reports the medians. Each worker rank trains
// the 784-625-625-10 Mlp (one math thread, RMSProp) on its own in-memory
// batch of --batch rows (the per-rank batch: 2 ranks step a global batch
// twice as large), each step being what `inflow train --distributed` does:
// this rank's gradient shares, then on 2 ranks the shared-memory step
// (SlicedStep: one copy of the parameters and slots for both ranks, each
// summing and updating half), the default, or DataParallel::Sum's
// MPI_Allreduce of the flat gradient buffer (3.5 MB) and the whole update
// on each rank ("2_ranks_allreduce", --no-shared-memory's path). Then,
// on 2 ranks, the allreduce alone over the same buffer, and an osu-style
// ping-pong of the same bytes between the two ranks (MPI_Send /
// MPI_Recv; one-way bandwidth = bytes / half the round trip): MPI's own
// figure for moving those bytes on this machine. And the machine's limit
// for two ranks: two 1-rank jobs at once, which share nothing but the
// machine (their examples/s summed over one 1-rank job's alone). Each
// round prints rank 0's time in each part of a step to stderr.
//
// The last stdout line:
//   {"bench": "distributed", "steps_per_s": {"1_rank": a, "2_ranks": b,
//    "2_ranks_allreduce": c, "2_ranks_blocking": d},
//    "ms_per_step": {...}, "ns_per_sample": {"1_rank": ., "2_ranks": .},
//    "scaling_2_ranks": x, "scaling_2_ranks_allreduce": 2 c / a,
//    "allreduce_ms": m, "allreduce_gb_s": y,
//    "pingpong_gb_s": z, "allreduce_vs_pingpong": y / z, "bytes": n,
//    "limit_2_independent": l, "scaling_vs_limit": x / l,
//    "kernels": {"train": the Mlp's kernel}}
// with "2_ranks_blocking" and "scaling_2_ranks_blocking" the allreduce
// path with MPI's blocking allreduce alone (MpiOptions::spin_wait -1),
// which polls through its whole wait, against the default that first
// waits for every rank in a barrier, sleeping after 1 ms.
// scaling_2_ranks is the examples/s of 2 ranks over 1 rank's (2 b / a);
// the goal is >= 1.7 on 2 cores. ns_per_sample is CPU ns (wall time x
// ranks) per training example. --smoke: a few steps, one round.

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "inflow/distributed/data_parallel.h"
#include "inflow/distributed/mpi.h"
#include "inflow/distributed/sliced_step.h"
#include "inflow/model/mlp.h"
#include "inflow/model/optimizer.h"

#include "bench_util.h"

namespace inflow {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct WorkerFlags {
  int steps = 60;
  int batch = 128;
  int spin_us = 1000;  // MpiOptions::spin_wait; -1: MPI's blocking allreduce
  // The sum and update in slices over host memory (SlicedStep), else
  // DataParallel::Sum's MPI_Allreduce and the whole update on each rank.
  bool sliced = true;
};

// One rank: prints (rank 0) one JSON line of its figures.
int Worker(const WorkerFlags& flags) {
  distributed::MpiOptions mpi;
  mpi.spin_wait = std::chrono::microseconds(flags.spin_us);
  mpi.share_host_memory = flags.sliced;
  Result<std::unique_ptr<distributed::Communicator>> world =
      distributed::MpiWorld(mpi);
  if (!world.ok()) {
    std::fprintf(stderr, "bench_distributed: %s\n",
                 world.status().ToString().c_str());
    return 1;
  }
  distributed::Communicator& comm = **world;
  distributed::DataParallel dp(&comm);
  MlpOptions mo;
  mo.seed = 1;
  mo.spare_gradient_floats = distributed::DataParallel::kReservedFloats;
  std::unique_ptr<Mlp> mlp = Mlp::Create(mo).value();
  OptimizerOptions oo;
  oo.kind = OptimizerKind::kRmsProp;
  std::unique_ptr<Optimizer> opt =
      Optimizer::Create(oo, mlp->variables()).value();
  // This rank's batch: Fashion-MNIST-like sparse images.
  std::mt19937 rng(17 + comm.rank());
  Tensor images(DType::kFloat32, TensorShape({flags.batch, 784}));
  std::vector<int64_t> label_values(flags.batch);
  float* px = images.mutable_flat<float>().value().data();
  for (int64_t i = 0; i < images.num_elements(); ++i) {
    px[i] = rng() % 2 ? static_cast<float>(rng() % 256) / 255.0f : 0.0f;
  }
  for (int64_t& l : label_values) l = rng() % 10;
  const Tensor labels = Tensor::FromVector(label_values);
  const BatchRows rows{.first_row = comm.rank() * flags.batch,
                       .global_batch = comm.size() * flags.batch};
  std::unique_ptr<distributed::SlicedStep> sliced;
  if (flags.sliced && comm.size() > 1) {
    std::vector<Tensor*> shared;
    for (auto& [name, t] : mlp->variables()) shared.push_back(t);
    for (Tensor* t : opt->parameter_slots()) shared.push_back(t);
    Result<std::unique_ptr<distributed::SlicedStep>> made =
        distributed::SlicedStep::Create(&dp, mlp->flat_gradients(),
                                        mlp->gradients(), shared);
    if (!made.ok() || !mlp->MoveGradients((*made)->gradient_buffer(),
                                          (*made)->gradient_offset())
                           .ok()) {
      std::fprintf(stderr, "bench_distributed: %s\n",
                   made.status().ToString().c_str());
      return 1;
    }
    sliced = *std::move(made);
  }
  // Rank 0's time in each part of a step: the gradients, the sum (its
  // wait for the other rank included), the update, the end-of-step wait.
  double phase_s[4] = {};
  auto step = [&](int64_t s) -> Status {
    Clock::time_point t = Clock::now();
    auto lap = [&](int phase) {
      const Clock::time_point now = Clock::now();
      phase_s[phase] += std::chrono::duration<double>(now - t).count();
      t = now;
    };
    INFLOW_ASSIGN_OR_RETURN(float loss,
                            mlp->ComputeGradients(images, labels, s, rows));
    lap(0);
    if (sliced != nullptr) {
      INFLOW_ASSIGN_OR_RETURN(
          distributed::StepOutcome out,
          sliced->Sum(s, loss / comm.size(), {}, OkStatus()));
      (void)out;
      lap(1);
      INFLOW_RETURN_IF_ERROR(
          opt->ApplyRanges(mlp->gradients(), sliced->ranges()));
      lap(2);
      INFLOW_RETURN_IF_ERROR(sliced->EndStep());
      lap(3);
      return OkStatus();
    }
    INFLOW_ASSIGN_OR_RETURN(
        distributed::StepOutcome out,
        dp.Sum(s, mlp->flat_gradients(), loss / comm.size(), {}, OkStatus()));
    (void)out;
    lap(1);
    INFLOW_RETURN_IF_ERROR(opt->Apply(mlp->gradients()));
    lap(2);
    return OkStatus();
  };
  for (int s = 0; s < 3; ++s) {  // warm-up
    if (Status st = step(s); !st.ok()) {
      std::fprintf(stderr, "bench_distributed: %s\n", st.ToString().c_str());
      return 1;
    }
  }
  // The ranks start the timed steps together.
  std::vector<float> token(1, 0.0f);
  if (!comm.AllreduceSum(std::span<float>(token)).ok()) return 1;
  for (double& p : phase_s) p = 0;
  const Clock::time_point t0 = Clock::now();
  for (int s = 0; s < flags.steps; ++s) {
    if (Status st = step(3 + s); !st.ok()) {
      std::fprintf(stderr, "bench_distributed: %s\n", st.ToString().c_str());
      return 1;
    }
  }
  const double seconds = Since(t0);
  std::span<float> flat = mlp->flat_gradients();
  const double bytes = static_cast<double>(flat.size_bytes());
  double allreduce_s = 0, pingpong_s = 0;
  const int reps = flags.steps < 20 ? 5 : 30;
  if (comm.size() > 1) {
    if (!comm.AllreduceSum(flat).ok()) return 1;
    const Clock::time_point a = Clock::now();
    for (int i = 0; i < reps; ++i) {
      if (!comm.AllreduceSum(flat).ok()) return 1;
    }
    allreduce_s = Since(a) / reps;
    // Ping-pong between ranks 0 and 1 (others idle), osu_bw's way.
    std::vector<char> buffer(flat.size_bytes());
    const int n = static_cast<int>(buffer.size());
    MPI_Barrier(MPI_COMM_WORLD);
    const Clock::time_point p = Clock::now();
    for (int i = 0; i < reps; ++i) {
      if (comm.rank() == 0) {
        MPI_Send(buffer.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer.data(), n, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      } else if (comm.rank() == 1) {
        MPI_Recv(buffer.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    pingpong_s = Since(p) / reps / 2;  // one way
  }
  if (comm.rank() == 0) {
    std::printf(
        "{\"ranks\": %d, \"steps_per_s\": %.4f, \"allreduce_s\": %.6g, "
        "\"pingpong_s\": %.6g, \"bytes\": %.0f, \"phases_ms\": [%.3f, "
        "%.3f, %.3f, %.3f]}\n",
        comm.size(), flags.steps / seconds, allreduce_s, pingpong_s, bytes,
        phase_s[0] * 1e3 / flags.steps, phase_s[1] * 1e3 / flags.steps,
        phase_s[2] * 1e3 / flags.steps, phase_s[3] * 1e3 / flags.steps);
    std::fflush(stdout);
  }
  return 0;
}

struct Figures {
  double steps_per_s = 0;
  double allreduce_s = 0;
  double pingpong_s = 0;
  double bytes = 0;
  std::vector<double> phases_ms;  // rank 0's: gradients, sum, update, end
};

// A worker's JSON line; false when it is not one.
bool ParseFigures(const std::string& line, Figures* out) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) return false;
  out->steps_per_s = j.value("steps_per_s", 0.0);
  out->allreduce_s = j.value("allreduce_s", 0.0);
  out->pingpong_s = j.value("pingpong_s", 0.0);
  out->bytes = j.value("bytes", 0.0);
  out->phases_ms = j.value("phases_ms", std::vector<double>{});
  return true;
}

// "; rank 0's ms: gradients g, sum s, update u, end e".
std::string Phases(const Figures& f) {
  if (f.phases_ms.size() != 4) return "";
  char text[128];
  std::snprintf(
      text, sizeof(text),
      "; rank 0's ms: gradients %.2f, sum %.2f, update %.2f, end %.2f",
      f.phases_ms[0], f.phases_ms[1], f.phases_ms[2], f.phases_ms[3]);
  return text;
}

// `jobs` concurrent `mpirun -np ranks` of the worker; each one's rank 0's
// figures into out[0..jobs).
bool RunWorkers(const std::string& self, int ranks, const WorkerFlags& flags,
                Figures* out, int jobs = 1) {
  // Concurrent jobs are not bound: mpirun would bind each one's rank 0 to
  // the same core.
  const std::string command =
      "mpirun -np " + std::to_string(ranks) + " --oversubscribe " +
      (jobs > 1 ? "--bind-to none " : "") + self + " --worker " +
      std::to_string(flags.steps) + " " + std::to_string(flags.batch) + " " +
      std::to_string(flags.spin_us) + " " + (flags.sliced ? "1" : "0");
  std::vector<std::FILE*> pipes;
  for (int j = 0; j < jobs; ++j) {
    std::FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return false;
    pipes.push_back(pipe);
  }
  bool ok = true;
  for (int j = 0; j < jobs; ++j) {
    char line[1024];
    std::string last;
    while (std::fgets(line, sizeof(line), pipes[j]) != nullptr) {
      if (line[0] == '{') last = line;
    }
    const int rc = pclose(pipes[j]);
    if (rc != 0 || !ParseFigures(last, &out[j])) {
      std::fprintf(stderr, "bench_distributed: `%s` failed (status %d)\n",
                   command.c_str(), rc);
      ok = false;
    }
  }
  return ok;
}

int Driver(const std::string& self, int rounds, const WorkerFlags& flags) {
  if (geteuid() == 0) {  // mpirun refuses root unless told
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  std::map<int, std::vector<double>> sps;  // by number of ranks
  std::vector<double> blocking_sps;        // 2 ranks, MPI's blocking allreduce
  std::vector<double> allreduce_sps;       // 2 ranks, DataParallel::Sum
  std::vector<double> limit;  // two 1-rank jobs at once: summed steps/s
  std::vector<double> allreduce, pingpong;
  double bytes = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int ranks : {1, 2}) {
      Figures f;
      if (!RunWorkers(self, ranks, flags, &f)) return 1;
      sps[ranks].push_back(f.steps_per_s);
      if (ranks == 2) {
        allreduce.push_back(f.allreduce_s);
        pingpong.push_back(f.pingpong_s);
        bytes = f.bytes;
      }
      std::fprintf(stderr,
                   "round %d: %d rank%s %.1f steps/s (batch %d per rank)%s\n",
                   round + 1, ranks, ranks > 1 ? "s" : "", f.steps_per_s,
                   flags.batch, Phases(f).c_str());
    }
    // The same 2 ranks with MPI's blocking allreduce, which polls
    // throughout its wait.
    WorkerFlags allreduce_path = flags;
    allreduce_path.sliced = false;
    Figures a;
    if (!RunWorkers(self, 2, allreduce_path, &a)) return 1;
    allreduce_sps.push_back(a.steps_per_s);
    std::fprintf(stderr,
                 "round %d: 2 ranks, MPI_Allreduce path %.1f steps/s%s\n",
                 round + 1, a.steps_per_s, Phases(a).c_str());
    WorkerFlags blocking = allreduce_path;
    blocking.spin_us = -1;
    Figures b;
    if (!RunWorkers(self, 2, blocking, &b)) return 1;
    blocking_sps.push_back(b.steps_per_s);
    std::fprintf(stderr, "round %d: 2 ranks, blocking allreduce %.1f steps/s\n",
                 round + 1, b.steps_per_s);
    Figures pair[2];
    if (!RunWorkers(self, 1, flags, pair, 2)) return 1;
    limit.push_back(pair[0].steps_per_s + pair[1].steps_per_s);
    std::fprintf(stderr,
                 "round %d: two 1-rank jobs at once %.1f + %.1f steps/s\n",
                 round + 1, pair[0].steps_per_s, pair[1].steps_per_s);
  }
  const double one = bench::Median(sps[1]), two = bench::Median(sps[2]);
  const double two_blocking = bench::Median(blocking_sps);
  const double two_allreduce = bench::Median(allreduce_sps);
  const double ar = bench::Median(allreduce), pp = bench::Median(pingpong);
  const double ar_gb = ar > 0 ? bytes / ar / 1e9 : 0;
  const double limit_scaling = bench::Median(limit) / one;
  const double pp_gb = pp > 0 ? bytes / pp / 1e9 : 0;
  std::printf(
      "{\"bench\": \"distributed\", \"steps_per_s\": {\"1_rank\": %.2f, "
      "\"2_ranks\": %.2f, \"2_ranks_allreduce\": %.2f, "
      "\"2_ranks_blocking\": %.2f}, \"ms_per_step\": "
      "{\"1_rank\": %.3f, \"2_ranks\": %.3f}, \"ns_per_sample\": "
      "{\"1_rank\": %.0f, \"2_ranks\": %.0f}, \"scaling_2_ranks\": %.3f, "
      "\"scaling_2_ranks_allreduce\": %.3f, "
      "\"scaling_2_ranks_blocking\": %.3f, \"allreduce_ms\": %.3f, "
      "\"allreduce_gb_s\": %.3f, \"pingpong_gb_s\": %.3f, "
      "\"allreduce_vs_pingpong\": %.3f, \"bytes\": %.0f, "
      "\"limit_2_independent\": %.3f, \"scaling_vs_limit\": %.3f, "
      "\"batch_per_rank\": %d, \"rounds\": %d, \"kernels\": {\"train\": "
      "\"%s\"}}\n",
      one, two, two_allreduce, two_blocking, 1e3 / one, 1e3 / two,
      1e9 / (one * flags.batch), 2e9 / (two * 2 * flags.batch), 2 * two / one,
      2 * two_allreduce / one, 2 * two_blocking / one, ar * 1e3, ar_gb, pp_gb,
      pp_gb > 0 ? ar_gb / pp_gb : 0, bytes, limit_scaling,
      limit_scaling > 0 ? 2 * two / one / limit_scaling : 0, flags.batch,
      rounds, std::string(Mlp::Create({}).value()->kernel()).c_str());
  return 0;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--worker") == 0) {
    return inflow::Worker({.steps = std::atoi(argv[2]),
                           .batch = std::atoi(argv[3]),
                           .spin_us = argc >= 5 ? std::atoi(argv[4]) : 1000,
                           .sliced = argc < 6 || std::atoi(argv[5]) != 0});
  }
  const bool smoke = inflow::bench::TakeSmokeFlag(&argc, argv);
  int rounds = smoke ? 1 : 3;
  inflow::WorkerFlags flags;
  if (smoke) flags.steps = 5;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--steps") == 0)
      flags.steps = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--batch") == 0)
      flags.batch = std::atoi(argv[++i]);
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return 1;
  self[n] = '\0';
  return inflow::Driver(self, rounds, flags);
}
