// Copyright 2026 The inflow Authors.
//
// The ranks an `mpirun -np N ...` started, as a Communicator over Open MPI
// (docs/distributed.md):
//
//   Result<std::unique_ptr<Communicator>> world = MpiWorld();
//   // (*world)->rank(), ->size(), ->AllreduceSum(...)
//
// MPI is initialised on the first call (thread level SERIALIZED: any
// thread may call, one at a time) and finalised when the process exits.
// Without mpirun the world is this process alone (size 1).
//
// A dead rank never leaves the others waiting. MPI's errors return to the
// caller (UNAVAILABLE naming the collective) instead of aborting, and a
// watchdog thread looks at every collective that waits: when a rank on
// this host has died, or a collective has waited past `collective_timeout`,
// or the process was asked to stop (`stop`) and the collective still
// waits `stop_grace` later, it prints an error naming the dead rank (pid
// and host) and the collective ("the allreduce of step 57") to stderr and
// ends the process with status 1, the only way out of a collective that
// can no longer complete. mpirun then stops the remaining ranks.

#ifndef INFLOW_DISTRIBUTED_MPI_H_
#define INFLOW_DISTRIBUTED_MPI_H_

#include <chrono>
#include <memory>
#include <stop_token>

#include "inflow/core/result.h"
#include "inflow/distributed/communicator.h"

namespace inflow::distributed {

struct MpiOptions {
  // How often a waiting collective's watchdog looks for dead ranks.
  std::chrono::milliseconds check_interval{100};
  // A collective waiting longer ends the process; 0: no limit (a slow
  // rank, e.g. one writing a checkpoint, is not a dead one).
  std::chrono::seconds collective_timeout{0};
  // Once `stop` is requested, a collective still waiting `stop_grace`
  // later ends the process (the others stopped and will not come).
  std::stop_token stop;
  std::chrono::milliseconds stop_grace{3000};
  // An allreduce first waits for every rank to arrive (a nonblocking
  // barrier), polling for this long, then sleeping between polls (10 to
  // 50 us), which leaves its core to other work: on a busy machine, to
  // the rank it waits for. Then MPI's blocking MPI_Allreduce runs with
  // every rank there. Negative: the blocking allreduce alone, which
  // polls through the whole wait.
  std::chrono::microseconds spin_wait{1000};
  // ShareHostMemory gives the ranks of each host one MPI shared-memory
  // window (MPI_Win_allocate_shared); false: it fails, and a data-parallel
  // step sums with MPI_Allreduce alone (DataParallel).
  bool share_host_memory = true;
  // For tests on one machine: the ranks of a host as "hosts" of at most
  // this many consecutive ranks each, so that the step between hosts
  // (HostMemory::AllreduceAcrossHosts) runs; 0: a host is a machine.
  int ranks_per_host = 0;
};

// Every process of the job (MPI_COMM_WORLD, duplicated), this one's rank.
// UNAVAILABLE when MPI cannot be initialised.
[[nodiscard]] Result<std::unique_ptr<Communicator>> MpiWorld(
    const MpiOptions& options = {});

// True when mpirun (or another MPI launcher) started this process.
bool LaunchedByMpi();

}  // namespace inflow::distributed

#endif  // INFLOW_DISTRIBUTED_MPI_H_
